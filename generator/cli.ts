/**
 * mcpgen CLI. Exit codes: 0 success; 1 the command ran and found a failure (a check or diff
 * that fails); 2 usage error (unknown command or flag); 3 input error (missing or mismatched
 * schema inputs, unreadable schema: the message names the file and field).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { type ResolvedRevision, PinError, loadPins, pull, resolvePinned, resolveUnpinned } from '../schema/resolve.js';
import { generate } from './generate.js';
import { IngestError, ingest } from './ingest.js';
import type { ProtocolModel } from './model.js';

export const EXIT = { ok: 0, failed: 1, usage: 2, input: 3 } as const;

class UsageError extends Error {}

const HELP = `mcpgen — schema-first code generator for the Model Context Protocol

Usage:
  mcpgen generate [--rev <id>|all] [--out DIR] [--spec-dir DIR | --unpinned DIR]
  mcpgen list [--spec-dir DIR]
  mcpgen pull [--rev <id>|all] [--base-url URL]

generate   Writes generated/<rev>/ for each revision: model.json, types.gen.ts, validators.gen.js
           (+ .d.ts), protocol.gen.ts, dispatch.gen.ts, index.ts. Each revision's folder is wiped
           and rewritten; output is byte-identical for identical inputs.
list       Pinned revisions and where their inputs were found.
pull       Downloads the pinned inputs into the user cache and verifies their sha256.

Inputs: --spec-dir DIR, else $MCP_SPEC_DIR, else the cache ($MCPGEN_CACHE or ~/.cache/mcpgen).
--unpinned DIR generates from any folder holding schema.json and schema.ts (revision id: the
folder's name, or --rev).

Exit codes: 0 ok · 1 a check failed · 2 usage error · 3 input error (missing or mismatched inputs)
`;

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}
const stdio: Io = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };

function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** Resolves the inputs of the requested revisions. */
export function resolveInputs(v: { rev?: string; 'spec-dir'?: string; unpinned?: string }): ResolvedRevision[] {
  if (v.unpinned) return [resolveUnpinned(v.unpinned, v.rev && v.rev !== 'all' ? v.rev : undefined)];
  const pins = loadPins();
  const revs = !v.rev || v.rev === 'all' ? Object.keys(pins.revisions) : v.rev.split(',');
  return revs.map((r) => resolvePinned(r, { specDir: v['spec-dir'] }, pins));
}

/** Ingests resolved inputs into a model. */
export function modelOf(r: ResolvedRevision): ProtocolModel {
  const f = r.files;
  return ingest({ revision: r.revision, schemaJson: f['schema.json'], schemaTs: f['schema.ts'], pinned: r.pinned, commit: r.commit });
}

/** Writes `files` into `dir`, wiping it first. */
export function writeTree(dir: string, files: Map<string, string>): void {
  rmSync(dir, { recursive: true, force: true });
  for (const [p, text] of files) {
    const full = join(dir, p);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
}

async function cmdGenerate(args: string[], io: Io): Promise<number> {
  const { values: v } = parse(args, {
    rev: { type: 'string' },
    out: { type: 'string', default: 'generated' },
    'spec-dir': { type: 'string' },
    unpinned: { type: 'string' },
  });
  if (v['spec-dir'] && v.unpinned) throw new UsageError('--spec-dir and --unpinned exclude each other');
  const out = resolve(v.out as string);
  const t0 = performance.now();
  const inputs = resolveInputs(v as never);
  for (const r of inputs) {
    const t1 = performance.now();
    const model = modelOf(r);
    const steps: string[] = [`ingest ${(performance.now() - t1).toFixed(0)}ms`];
    const files = await generate(model, { onStep: (s, ms) => steps.push(`${s} ${ms.toFixed(0)}ms`) });
    writeTree(join(out, model.revision), files);
    io.out(`${model.revision}: ${files.size} files (${steps.join(', ')}) from ${r.source}${r.pinned ? '' : ' (unpinned)'}`);
    for (const w of model.warnings) io.err(`warning: ${model.revision}: ${w}`);
  }
  io.out(`generated ${inputs.length} revision(s) into ${out} in ${(performance.now() - t0).toFixed(0)}ms`);
  return EXIT.ok;
}

function cmdList(args: string[], io: Io): number {
  const { values: v } = parse(args, { 'spec-dir': { type: 'string' } });
  const pins = loadPins();
  io.out(`upstream ${pins.upstream.repository} @ ${pins.upstream.commit}`);
  for (const rev of Object.keys(pins.revisions)) {
    try {
      const r = resolvePinned(rev, { specDir: v['spec-dir'] as string | undefined }, pins);
      io.out(`${rev}\t${r.source}\t${dirname(r.files['schema.json'].path)}`);
    } catch (e) {
      io.out(`${rev}\tmissing\t${(e as Error).message}`);
    }
  }
  return EXIT.ok;
}

async function cmdPull(args: string[], io: Io): Promise<number> {
  const { values: v } = parse(args, { rev: { type: 'string' }, 'base-url': { type: 'string' } });
  const pins = loadPins();
  const revs = !v.rev || v.rev === 'all' ? Object.keys(pins.revisions) : (v.rev as string).split(',');
  const written = await pull(revs, { baseUrl: v['base-url'] as string | undefined, log: io.out }, pins);
  io.out(`pulled ${written.length} file(s); ${revs.length} revision(s) verified`);
  return EXIT.ok;
}

export const COMMANDS: Record<string, (args: string[], io: Io) => number | Promise<number>> = {
  generate: cmdGenerate,
  list: cmdList,
  pull: cmdPull,
};

export async function main(argv: string[], io: Io = stdio): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    io.out(HELP);
    return cmd ? EXIT.ok : EXIT.usage;
  }
  const run = COMMANDS[cmd];
  try {
    if (!run) throw new UsageError(`unknown command "${cmd}" (commands: ${Object.keys(COMMANDS).join(', ')})`);
    return await run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`mcpgen ${cmd ?? ''}: ${e.message}\n(see mcpgen --help)`);
      return EXIT.usage;
    }
    if (e instanceof PinError || e instanceof IngestError) {
      io.err(`mcpgen ${cmd}: ${e.message}`);
      return EXIT.input;
    }
    throw e;
  }
}

