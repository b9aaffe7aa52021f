/**
 * The generated revisions this mcpgen carries (generated/<rev>/, compiled beside cli/ in the
 * installed package), as `serve`, `call` and `tools` load them: a revision's Server, Client and
 * table, the older handshake revisions a server also negotiates, the legacy side of dual-era.
 */
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@mcpgen/runtime/engine';
import { serializeMessage } from '@mcpgen/runtime/jsonrpc';
import type { ProtocolMaps } from '@mcpgen/runtime/protocol';
import type { ClientSession, ClientSessionOptions } from '@mcpgen/runtime/session';
import type { ServerClass } from '../reference/server.js';
import { didYouMean, revisionListProblem } from './nearest.js';
import { UsageError } from './inputs.js';
import { isStateless } from './serve/stateless.js';
import { redactText } from './redact.js';

// biome-ignore lint/suspicious/noExplicitAny: any options type: a generated class's constructor takes its own revision's
export type ClientClass = new (options: ClientSessionOptions<any>) => ClientSession<ProtocolMaps>;
export interface RevisionModule {
  Server: ServerClass;
  Client: ClientClass;
  protocolVersion: string;
  table: { lifecycle: string };
}

/** The revision `serve`, `call` and `tools` use without `--rev`. */
export const DEFAULT_REV = '2025-11-25';
/** The legacy revision a stateless revision serves and falls back to (dual-era). */
export const LEGACY_REV = '2025-11-25';

/**
 * Extension of the revision modules beside this one: `ts` in a checkout (sources run through
 * tsx), `js` in the installed package (compiled, with generated/ compiled beside cli/).
 */
const MODULE_EXT = import.meta.url.endsWith('.ts') ? 'ts' : 'js';

/** Loads generated/<rev>/index.ts (needs `mcpgen generate` first; in the installed package, its compiled index.js). */
export async function loadRevision(rev: string): Promise<RevisionModule> {
  const valid = /^[A-Za-z0-9._-]+$/.test(rev);
  const url = new URL(`../generated/${valid ? rev : '-'}/index.${MODULE_EXT}`, import.meta.url);
  if (!valid || !existsSync(fileURLToPath(url))) {
    // the revisions this mcpgen carries (an installed one: those it was packed with)
    const root = new URL('../generated/', import.meta.url);
    const served = existsSync(root)
      ? readdirSync(root)
          .filter((d) => existsSync(fileURLToPath(new URL(`${d}/index.${MODULE_EXT}`, root))))
          .sort()
      : [];
    const checkout = MODULE_EXT === 'ts' ? ' (in a checkout, npm run generate writes the pinned ones)' : '';
    const problem =
      revisionListProblem(rev, served) ??
      (valid ? `unknown revision ${rev}${didYouMean(rev, served)}` : `invalid revision "${rev}"`);
    throw new UsageError(
      `${problem}; this mcpgen serves ${served.length ? served.join(', ') : 'no revision'}${checkout}`,
    );
  }
  return (await import(url.href)) as RevisionModule;
}

/**
 * The tables of every generated handshake revision older than `rev` (dated `YYYY-MM-DD`
 * directories of generated/), newest first: a server of `rev` also answers clients that ask for
 * one of these in `initialize` (2025-11-25 basic/lifecycle, "Version Negotiation").
 */
export async function olderHandshakeTables(rev: string): Promise<RevisionModule['table'][]> {
  const dir = fileURLToPath(new URL('../generated/', import.meta.url));
  const dated = (r: string) => /^\d{4}-\d{2}-\d{2}$/.test(r);
  const revs = existsSync(dir)
    ? readdirSync(dir)
        .filter((r) => dated(r) && (!dated(rev) || r < rev) && r !== rev)
        .sort()
        .reverse()
    : [];
  const tables: RevisionModule['table'][] = [];
  for (const r of revs) {
    if (!existsSync(fileURLToPath(new URL(`../generated/${r}/index.${MODULE_EXT}`, import.meta.url)))) continue;
    const table = (await loadRevision(r)).table;
    if (table.lifecycle === 'handshake') tables.push(table);
  }
  return tables;
}

/** The legacy revision a dual-era serve answers `initialize` with, and its older fallbacks. */
export async function legacyRevision(): Promise<RevisionModule & { fallbackTables: RevisionModule['table'][] }> {
  return { ...(await loadRevision(LEGACY_REV)), fallbackTables: await olderHandshakeTables(LEGACY_REV) };
}

/** Diagnostics of the runtime, on stderr (stdout carries protocol messages or results). */
export const stderrLogger: Logger = {
  warn: (m, d) => process.stderr.write(`warn: ${redactText(m)}${d ? ` ${serializeMessage(d)}` : ''}\n`),
  error: (m, d) => process.stderr.write(`error: ${redactText(m)}${d ? ` ${serializeMessage(d)}` : ''}\n`),
};

/** `--modern-only` means something only for a stateless revision (it drops the 2025-era fallback). */
export function checkModernOnly(mod: RevisionModule, modernOnly: boolean | undefined): void {
  if (modernOnly && !isStateless(mod))
    throw new UsageError('--modern-only applies to a stateless revision (--rev draft or 2026-07-28)');
}
