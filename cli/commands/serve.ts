/**
 * `mcpgen serve --rev <rev> --stdio`: the reference server (reference/server.ts) on
 * the generated `Server` of a revision, over stdin/stdout. Nothing but protocol messages goes to
 * stdout; diagnostics go to stderr. With `--http <port>` it serves Streamable HTTP instead
 * (./serve-http.ts). Revisions with tasks (2025-11-25) add the task tools of
 * reference/tasks.ts; stateless revisions the tasks extension's fixtures. `initialize`
 * also negotiates every older generated handshake revision (2024-11-05, 2025-03-26, 2025-06-18
 * for 2025-11-25) when the client asks for it, on stdio, /mcp and /sse alike (basic/lifecycle,
 * "Version Negotiation"). On SIGINT/SIGTERM `--http` stops accepting, lets POSTs in flight
 * finish for up to 2 s, then answers the rest with -32000 "server shutting down".
 *
 * `mcpgen call --stdio "<command>" | --url <url> <method> [params-json] [--progress] [--rev <rev>]`:
 * spawns the command (or opens a Streamable HTTP session at the URL), initializes, sends one
 * request and prints its result as JSON on stdout. Progress (with --progress), the server's log
 * messages and errors go to stderr; a failed request exits 1; a `tools/call` result with
 * `isError: true` (the tool reported an error) is printed and exits {@link EXIT_TOOL_ERROR} (4).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { ParseArgsConfig } from 'node:util';
import { parseFlags } from '../inputs.js';
import { serializeMessage } from '@mcpgen/runtime/jsonrpc';
import { RpcError } from '@mcpgen/runtime/jsonrpc';
import { MIN_REQUEST_STATE_SECRET_BYTES } from '@mcpgen/runtime/stateless';
import type { ClientSession, ClientSessionOptions } from '@mcpgen/runtime/session';
import type { Logger } from '@mcpgen/runtime/engine';
import type { ProtocolMaps } from '@mcpgen/runtime/protocol';
import { StdioClientTransport, StdioServerTransport } from '@mcpgen/runtime/stdio';
import type { Transport } from '@mcpgen/runtime/jsonrpc';
import { createReferenceServer, type ServerClass } from '../../reference/server.js';
import type { ServeAuthOptions } from './serve-auth.js';
import { oauthFetch } from '@mcpgen/runtime/auth';
import { startLoopbackRedirect } from '@mcpgen/runtime/auth';
import { HttpStatusError, afterClosingResponse } from '@mcpgen/runtime/http';
import { httpClientTransport, serveHttp } from './serve-http.js';
import {
  isStateless,
  serveDualEraConnection,
  serveStatelessHttp,
  statelessClientTransport,
} from './serve-stateless.js';

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** Exit code of `call` when the tool reported an error (a `tools/call` result with `isError: true`). */
export const EXIT_TOOL_ERROR = 4;

/** A usage problem: the CLI prints it with a pointer to --help and exits 2. */
export class CommandUsageError extends Error {}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ClientClass = new (options: ClientSessionOptions<any>) => ClientSession<ProtocolMaps>;
interface RevisionModule {
  Server: ServerClass;
  Client: ClientClass;
  protocolVersion: string;
  table: { lifecycle: string };
}

const DEFAULT_REV = '2025-11-25';
/** The legacy revision a stateless revision serves and falls back to (dual-era). */
const LEGACY_REV = '2025-11-25';

function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>) {
  return parseFlags(args, options);
}

/**
 * Extension of the revision modules beside this one: `ts` in a checkout (sources run through
 * tsx), `js` in the installed package (compiled, with generated/ compiled beside cli/).
 */
const MODULE_EXT = import.meta.url.endsWith('.ts') ? 'ts' : 'js';

/** Loads generated/<rev>/index.ts (needs `mcpgen generate` first; in the installed package, its compiled index.js). */
export async function loadRevision(rev: string): Promise<RevisionModule> {
  if (!/^[A-Za-z0-9._-]+$/.test(rev)) throw new CommandUsageError(`invalid revision "${rev}"`);
  const url = new URL(`../../generated/${rev}/index.${MODULE_EXT}`, import.meta.url);
  if (!existsSync(fileURLToPath(url))) {
    // the revisions this mcpgen carries (an installed one: those it was packed with)
    const root = new URL('../../generated/', import.meta.url);
    const served = existsSync(root)
      ? readdirSync(root)
          .filter((d) => existsSync(fileURLToPath(new URL(`${d}/index.${MODULE_EXT}`, root))))
          .sort()
      : [];
    const checkout = MODULE_EXT === 'ts' ? ' (in a checkout, npm run generate writes the pinned ones)' : '';
    throw new CommandUsageError(
      `unknown revision ${rev}: this mcpgen serves ${served.length ? served.join(', ') : 'no revision'}${checkout}`,
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
  const dir = fileURLToPath(new URL('../../generated/', import.meta.url));
  const dated = (r: string) => /^\d{4}-\d{2}-\d{2}$/.test(r);
  const revs = existsSync(dir)
    ? readdirSync(dir)
        .filter((r) => dated(r) && (!dated(rev) || r < rev) && r !== rev)
        .sort()
        .reverse()
    : [];
  const tables: RevisionModule['table'][] = [];
  for (const r of revs) {
    if (!existsSync(fileURLToPath(new URL(`../../generated/${r}/index.${MODULE_EXT}`, import.meta.url)))) continue;
    const table = (await loadRevision(r)).table;
    if (table.lifecycle === 'handshake') tables.push(table);
  }
  return tables;
}

/** The legacy revision a dual-era serve answers `initialize` with, and its older fallbacks. */
async function legacyRevision(): Promise<RevisionModule & { fallbackTables: RevisionModule['table'][] }> {
  return { ...(await loadRevision(LEGACY_REV)), fallbackTables: await olderHandshakeTables(LEGACY_REV) };
}

const stderrLogger: Logger = {
  warn: (m, d) => process.stderr.write(`warn: ${m}${d ? ` ${serializeMessage(d)}` : ''}\n`),
  error: (m, d) => process.stderr.write(`error: ${m}${d ? ` ${serializeMessage(d)}` : ''}\n`),
};

/** Wraps a transport so that `closed` resolves when it closes. */
function watchClose(t: Transport): { transport: Transport; closed: Promise<Error | undefined> } {
  let done!: (e: Error | undefined) => void;
  const closed = new Promise<Error | undefined>((r) => (done = r));
  const transport: Transport = {
    start: (events) =>
      t.start({
        ...events,
        onClose: (e) => {
          events.onClose(e);
          done(e);
        },
      }),
    send: (m, o) => t.send(m, o),
    sendBatch: t.sendBatch && ((m) => t.sendBatch!(m)),
    close: () => t.close(),
  };
  return { transport, closed };
}

export async function cmdServe(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    rev: { type: 'string' },
    stdio: { type: 'boolean' },
    http: { type: 'string' },
    host: { type: 'string' },
    reply: { type: 'string' },
    'modern-only': { type: 'boolean' },
    'request-state-secret-file': { type: 'string' },
    'session-idle-ms': { type: 'string' },
    'max-sessions': { type: 'string' },
    'cors-origin': { type: 'string', multiple: true },
    'allowed-host': { type: 'string', multiple: true },
    'public-url': { type: 'string' },
    redis: { type: 'string' },
    auth: { type: 'string' },
    'auth-jwks': { type: 'string' },
    'auth-scope': { type: 'string' },
    lang: { type: 'string' },
  });
  if (positionals.length) throw new CommandUsageError(`unexpected arguments: ${positionals.join(' ')}`);
  if (values.lang !== undefined && values.lang !== 'typescript') {
    if (values.lang !== 'python' && values.lang !== 'go')
      throw new CommandUsageError(`--lang: unknown language ${values.lang} (typescript, python, go)`);
    if (values.stdio && values.http !== undefined) throw new CommandUsageError('--stdio and --http exclude each other');
    const other = Object.keys(values).filter((k) => !['lang', 'rev', 'stdio', 'http', 'host'].includes(k));
    if (other.length)
      throw new CommandUsageError(
        `--lang ${values.lang} takes --rev, --stdio, --http and --host only (not --${other.join(', --')})`,
      );
    if (!values.stdio && values.http === undefined) throw new CommandUsageError('serve needs --stdio or --http <port>');
    if (values.lang === 'go') {
      const { GO_REVISIONS, hasGo, serveGo } = await import('./serve-go.js');
      if (!hasGo()) throw new CommandUsageError('--lang go needs a checkout of mcpgen (go/ is not in the npm package)');
      if (values.rev !== undefined && !GO_REVISIONS.includes(values.rev as string))
        throw new CommandUsageError(
          `--lang go serves ${GO_REVISIONS.join(', ')} (2025-11-25 also negotiates 2025-06-18 and 2025-03-26), not ${values.rev}`,
        );
      return serveGo(values as { rev?: string; stdio?: boolean; http?: string; host?: string });
    }
    const { hasPython, servePython } = await import('./serve-python.js');
    if (!hasPython())
      throw new CommandUsageError('--lang python needs a checkout of mcpgen (python/ is not in the npm package)');
    return servePython(values as { rev?: string; stdio?: boolean; http?: string; host?: string });
  }
  if (
    values.http === undefined &&
    (values.auth !== undefined || values['auth-jwks'] !== undefined || values['auth-scope'] !== undefined)
  )
    throw new CommandUsageError('--auth needs --http (a stdio server takes its credentials from the environment)');
  if (values.stdio && values.http !== undefined) throw new CommandUsageError('--stdio and --http exclude each other');
  const requestStateSecret = readRequestStateSecret(values['request-state-secret-file'] as string | undefined);
  if (values.http !== undefined)
    return serveOverHttp(values as Record<string, string | undefined>, io, requestStateSecret);
  if (!values.stdio) throw new CommandUsageError('serve needs --stdio or --http <port>');
  const rev = (values.rev as string | undefined) ?? DEFAULT_REV;
  const mod = await loadRevision(rev);
  checkModernOnly(mod, values['modern-only'] as boolean | undefined);
  const { transport, closed } = watchClose(new StdioServerTransport());
  if (isStateless(mod))
    await serveDualEraConnection(
      mod,
      values['modern-only'] ? undefined : await legacyRevision(),
      transport,
      stderrLogger,
      requestStateSecret,
    );
  else
    await createReferenceServer(mod.Server, {
      logger: stderrLogger,
      table: mod.table,
      fallbackTables: (await olderHandshakeTables(rev)) as never,
    }).server.connect(transport);
  const error = await closed;
  if (error) io.err(`mcpgen serve: connection closed: ${error.message}`);
  return error ? 1 : 0;
}

/** The environment variable holding the `requestState` secret of `serve` (stateless revisions). */
export const REQUEST_STATE_SECRET_ENV = 'MCPGEN_REQUEST_STATE_SECRET';

/**
 * The `requestState` HMAC secret of `serve`: the contents of `--request-state-secret-file`
 * (one trailing newline dropped), else `$MCPGEN_REQUEST_STATE_SECRET`, else undefined (random per
 * process: only that process accepts its states; processes behind one endpoint must share one).
 * Throws CommandUsageError when the file cannot be read or the secret has fewer than 32 bytes.
 */
export function readRequestStateSecret(
  file: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  let secret: string | undefined;
  let from: string;
  if (file !== undefined) {
    try {
      secret = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (e) {
      throw new CommandUsageError(`--request-state-secret-file: cannot read ${file}: ${(e as Error).message}`);
    }
    from = `--request-state-secret-file ${file}`;
  } else {
    secret = env[REQUEST_STATE_SECRET_ENV];
    if (secret === undefined || secret === '') return undefined;
    from = `$${REQUEST_STATE_SECRET_ENV}`;
  }
  const bytes = Buffer.byteLength(secret, 'utf8');
  if (bytes < MIN_REQUEST_STATE_SECRET_BYTES)
    throw new CommandUsageError(
      `${from}: the requestState secret needs at least ${MIN_REQUEST_STATE_SECRET_BYTES} bytes, got ${bytes}`,
    );
  return secret;
}

/** `--modern-only` means something only for a stateless revision (it drops the 2025-era fallback). */
function checkModernOnly(mod: RevisionModule, modernOnly: boolean | undefined): void {
  if (modernOnly && !isStateless(mod))
    throw new CommandUsageError('--modern-only applies to a stateless revision (--rev draft or 2026-07-28)');
}

/** What `--stdio "<command>"` / `--url <url>` / `--timeout <ms>` of a client command say, checked. */
export interface ConnectFlags {
  /** `--url`, an http(s) URL. */
  url?: string;
  /** `--stdio` split into the program and its arguments (see {@link splitCommand}). */
  command?: { cmd: string; args: string[] };
  /** `--timeout`, a positive integer of ms. */
  timeout?: number;
}

/**
 * Checks the connection flags `tools` and `call` share: exactly one of `--stdio` and `--url`
 * (`<name> needs --stdio "<command>" or --url <url>`), a `--timeout` that is a positive integer
 * of ms (`--timeout must be a positive integer of milliseconds, got "-5"`), a non-empty
 * `--stdio` command, an http(s) `--url`.
 * @throws CommandUsageError naming the flag.
 */
export function connectFlags(name: string, values: Readonly<Record<string, unknown>>): ConnectFlags {
  const stdio = values.stdio as string | undefined;
  const url = values.url as string | undefined;
  if (!stdio === !url) throw new CommandUsageError(`${name} needs --stdio "<command>" or --url <url>`);
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (
    timeout !== undefined &&
    !(/^[0-9]+$/.test(values.timeout as string) && timeout > 0 && Number.isSafeInteger(timeout))
  ) {
    throw new CommandUsageError(
      `--timeout must be a positive integer of milliseconds, got ${JSON.stringify(values.timeout)}`,
    );
  }
  if (stdio !== undefined) {
    const [cmd, ...args] = splitCommand(stdio);
    if (!cmd) throw new CommandUsageError('--stdio command is empty');
    return { command: { cmd, args }, timeout };
  }
  try {
    if (!/^https?:$/.test(new URL(url!).protocol)) throw new Error('not http(s)');
  } catch {
    throw new CommandUsageError(`--url must be an http(s) URL: ${url}`);
  }
  return { url, timeout };
}

/** Splits a command line into words: whitespace-separated, with '…' and "…" quoting and \ escapes. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let has = false;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has) words.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (quote) throw new CommandUsageError(`unterminated ${quote} in command`);
  if (has) words.push(cur);
  return words;
}

/** Characters of a body that is not JSON-RPC that {@link describeFailure} shows. */
const BODY_SHOWN = 100;

/** A parsed JSON body that holds no JSON-RPC message: an object without its own `jsonrpc`, `error`, `result` or `method`. */
const notRpc = (body: unknown): boolean =>
  typeof body === 'object' &&
  body !== null &&
  !Array.isArray(body) &&
  !['jsonrpc', 'error', 'result', 'method'].some((k) => Object.hasOwn(body, k));

/**
 * What a failed request of `call` or `tools` says after `<step> failed: `: a JSON-RPC error's
 * code, message and data; for an HTTP reply that is not JSON-RPC (an HTML page, `text/plain`,
 * JSON that does not parse), the URL, the status, the Content-Type and the first
 * {@link BODY_SHOWN} characters of the body (`http://127.0.0.1:8080/mcp answered HTTP 200
 * (Content-Type text/html), not JSON-RPC: "<!doctype html>…"`); else the error's message and
 * cause, with the URL.
 */
export function describeFailure(e: unknown, url: string | undefined): string {
  if (e instanceof RpcError) return `${e.code} ${e.message}${e.data === undefined ? '' : ` ${JSON.stringify(e.data)}`}`;
  if (e instanceof HttpStatusError && url && (typeof e.body === 'string' || notRpc(e.body))) {
    const text = typeof e.body === 'string' ? e.body : JSON.stringify(e.body);
    const shown = text.length > BODY_SHOWN ? `${text.slice(0, BODY_SHOWN)}…` : text;
    const type = e.contentType === undefined ? 'no Content-Type' : `Content-Type ${e.contentType}`;
    return `${url} answered HTTP ${e.status} (${type}), not JSON-RPC: ${shown === '' ? 'an empty body' : JSON.stringify(shown)}`;
  }
  const cause = (e as { cause?: { message?: string } }).cause?.message;
  return `${(e as Error).message ?? String(e)}${cause ? ` (${cause})` : ''}${url ? ` [${url}]` : ''}`;
}

/** How long `call --url` waits for the standalone GET stream before sending its request, ms. */
const STANDALONE_WAIT_MS = 2000;

export async function cmdCall(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    stdio: { type: 'string' },
    url: { type: 'string' },
    rev: { type: 'string' },
    progress: { type: 'boolean' },
    timeout: { type: 'string' },
    auth: { type: 'boolean' },
    'auth-client-id': { type: 'string' },
    'auth-scope': { type: 'string' },
  });
  const { url, command, timeout } = connectFlags('call', values);
  if (!url && (values.auth || values['auth-client-id'] !== undefined || values['auth-scope'] !== undefined))
    throw new CommandUsageError('--auth needs --url (a stdio server takes its credentials from the environment)');
  if (!values.auth && (values['auth-client-id'] !== undefined || values['auth-scope'] !== undefined))
    throw new CommandUsageError('--auth-client-id and --auth-scope need --auth');
  const [method, paramsJson, ...extra] = positionals;
  if (!method) throw new CommandUsageError('call needs a method, e.g. tools/list');
  if (extra.length) throw new CommandUsageError(`unexpected arguments: ${extra.join(' ')}`);
  let params: Record<string, unknown> | undefined;
  if (paramsJson !== undefined) {
    try {
      params = JSON.parse(paramsJson) as Record<string, unknown>;
    } catch (e) {
      throw new CommandUsageError(`params are not JSON: ${(e as Error).message}`);
    }
    if (typeof params !== 'object' || params === null || Array.isArray(params))
      throw new CommandUsageError('params must be a JSON object');
  }
  const mod = await loadRevision((values.rev as string | undefined) ?? DEFAULT_REV);
  const client = new mod.Client({
    clientInfo: { name: 'mcpgen-call', version: '0.1.0' },
    logger: stderrLogger,
    timeout,
    fallbackTables: isStateless(mod) ? [(await loadRevision(LEGACY_REV)).table as never] : undefined,
    notificationHandlers: {
      'notifications/message': (p: { level?: string; logger?: string; data?: unknown }) =>
        io.err(
          `log ${p.level}${p.logger ? ` [${p.logger}]` : ''}: ${typeof p.data === 'string' ? p.data : JSON.stringify(p.data)}`,
        ),
    },
  });
  const auth =
    url && values.auth
      ? await callAuth(io, values['auth-client-id'] as string | undefined, values['auth-scope'] as string | undefined)
      : undefined;
  const transport = url
    ? isStateless(mod)
      ? statelessClientTransport(url, auth?.fetch)
      : httpClientTransport(url, auth?.fetch)
    : new StdioClientTransport({ command: command!.cmd, args: command!.args, stderr: 'inherit' });
  let step = 'connecting (initialize)';
  try {
    await client.connect(transport);
    // over Streamable HTTP, wait (a bounded time) for the standalone GET stream, so what the
    // server sends there while the request runs (log messages) prints, as over stdio
    const opened = (transport as { standaloneOpened?: () => Promise<boolean> }).standaloneOpened?.();
    if (opened) await Promise.race([opened, new Promise((r) => setTimeout(r, STANDALONE_WAIT_MS).unref())]);
    step = method;
    const result = await client.request(
      method as never,
      params as never,
      values.progress ? { onProgress: (p) => io.err(`progress: ${JSON.stringify(p)}`) } : undefined,
    );
    io.out(JSON.stringify(result, null, 2));
    if (method === 'tools/call' && (result as { isError?: unknown } | undefined)?.isError === true) {
      io.err(`mcpgen call: tool ${String(params?.name)} reported an error (isError: true)`);
      return EXIT_TOOL_ERROR;
    }
    return 0;
  } catch (e) {
    io.err(`mcpgen call: ${step} failed: ${describeFailure(e, url)}`);
    return 1;
  } finally {
    await client.close().catch(() => undefined);
    await auth?.close();
  }
}

/**
 * `call --url … --auth [--auth-client-id ID] [--auth-scope "a b"]`: the OAuth client of
 * runtime/auth/client.ts with a loopback redirect on 127.0.0.1 (runtime/auth/loopback-redirect.ts);
 * the authorization URL goes to stderr for the user to open. A pre-registered public client id,
 * else a Client ID Metadata Document is not available to a command line: dynamic registration.
 */
async function callAuth(
  io: Io,
  clientId: string | undefined,
  scope: string | undefined,
): Promise<{ fetch: typeof fetch; close(): Promise<void> }> {
  const loopback = await startLoopbackRedirect({
    open: (url) => io.err(`mcpgen call: to authorize, open ${url.href}`),
  });
  const client = oauthFetch({
    userAgent: loopback.userAgent,
    redirectUri: loopback.redirectUri,
    credentials: clientId ? { client_id: clientId, token_endpoint_auth_method: 'none' } : undefined,
    scope: scope?.trim() || undefined,
    clientMetadata: {
      client_name: 'mcpgen call',
      redirect_uris: [loopback.redirectUri],
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
  });
  return { fetch: client.fetch, close: loopback.close };
}

/** `--auth <issuer> [--auth-jwks <url>] [--auth-scope "a b"]`, checked: absolute http(s) URLs. */
function authOptions(values: Record<string, string | undefined>): ServeAuthOptions | undefined {
  if (values.auth === undefined) {
    if (values['auth-jwks'] !== undefined || values['auth-scope'] !== undefined)
      throw new CommandUsageError('--auth-jwks and --auth-scope need --auth <issuer>');
    return undefined;
  }
  for (const flag of ['auth', 'auth-jwks'] as const) {
    const v = values[flag];
    if (v === undefined) continue;
    let u: URL | undefined;
    try {
      u = new URL(v);
    } catch {
      u = undefined;
    }
    if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:'))
      throw new CommandUsageError(`--${flag} needs an absolute http(s) URL, got ${JSON.stringify(v)}`);
  }
  const scopes = values['auth-scope']?.split(' ').filter(Boolean);
  return { issuer: values.auth, jwks: values['auth-jwks'], scopes: scopes?.length ? scopes : undefined };
}

/**
 * `--allowed-host` (repeatable: a Host value a proxy in front sends, `name` any port or
 * `name:port`) and `--public-url` (the URL clients use, behind a load balancer: the resource
 * tokens name as audience and the metadata names; its host is allowed too).
 */
function frontOptions(values: Record<string, string | undefined>): { allowedHosts?: string[]; publicUrl?: string } {
  const hosts = (values['allowed-host'] as unknown as string[] | undefined) ?? [];
  for (const h of hosts)
    if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$/.test(h))
      throw new CommandUsageError(
        `--allowed-host needs a host name, optionally with :port (mcp.example.com:443), got ${h}`,
      );
  const publicUrl = values['public-url'];
  if (publicUrl !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(publicUrl);
    } catch {
      u = undefined;
    }
    if (!u || (u.protocol !== 'https:' && u.protocol !== 'http:') || u.search || u.hash || u.username || u.password)
      throw new CommandUsageError(
        `--public-url needs the absolute http(s) URL clients use for /mcp, without query or credentials (https://mcp.example.com/mcp), got ${publicUrl}`,
      );
  }
  return { ...(hosts.length ? { allowedHosts: hosts } : {}), ...(publicUrl ? { publicUrl } : {}) };
}

/** `serve --http <port> [--host H] [--reply auto|json|sse]`: runs until SIGINT/SIGTERM. */
async function serveOverHttp(
  values: Record<string, string | undefined>,
  io: Io,
  requestStateSecret: string | undefined,
): Promise<number> {
  const port = Number(values.http);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new CommandUsageError(`--http needs a port number (0-65535), got ${values.http}`);
  const reply = values.reply ?? 'auto';
  if (reply !== 'auto' && reply !== 'json' && reply !== 'sse')
    throw new CommandUsageError(`--reply must be auto, json or sse, got ${reply}`);
  const corsOrigins = (values['cors-origin'] as unknown as string[] | undefined) ?? [];
  for (const o of corsOrigins) {
    let ok = false;
    try {
      const u = new URL(o);
      ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === o.replace(/\/$/, '');
    } catch {
      ok = false;
    }
    if (!ok)
      throw new CommandUsageError(
        `--cors-origin needs an origin like https://app.example (scheme, host, optional port), got ${o}`,
      );
  }
  const front = frontOptions(values);
  const limits = {
    corsOrigins,
    ...front,
    sessionIdleMs: count(values['session-idle-ms'], '--session-idle-ms', 0),
    maxSessions: count(values['max-sessions'], '--max-sessions', 1),
  };
  const auth = authOptions(values);
  const rev = values.rev ?? DEFAULT_REV;
  const mod = await loadRevision(rev);
  checkModernOnly(mod, values['modern-only'] !== undefined);
  const redis = values.redis;
  if (redis !== undefined) {
    let ok = false;
    try {
      const u = new URL(redis);
      ok = /^rediss?:$/.test(u.protocol) && /^(\/([0-9]{1,9})?)?$/.test(u.pathname) && u.search === '';
    } catch {
      /* not a URL */
    }
    if (!ok)
      throw new CommandUsageError(
        `--redis must be a redis:// or rediss:// URL, its path a database number if any, no query (redis://HOST:PORT/0), got ${redactUrl(redis)}`,
      );
  }
  const served = isStateless(mod)
    ? await serveStatelessHttp(mod, values['modern-only'] ? undefined : await legacyRevision(), {
        port,
        host: values.host,
        replyMode: reply,
        logger: stderrLogger,
        requestStateSecret,
        redis,
        auth,
        ...limits,
      })
    : await serveHttp(
        { ...mod, fallbackTables: await olderHandshakeTables(rev) },
        { port, host: values.host, replyMode: reply, logger: stderrLogger, redis, auth, ...limits },
      );
  const posts = countPosts(served.server);
  io.err(`mcpgen serve: listening on ${served.url}`);
  if (auth)
    io.err(
      `mcpgen serve: protected: bearer tokens of ${auth.issuer} for ${served.resource}${auth.scopes ? ` with scope ${auth.scopes.join(' ')}` : ''}`,
    );
  else if ('sseUrl' in served) io.err(`mcpgen serve: 2024-11-05 HTTP+SSE clients: ${served.sseUrl}`);
  const signalled = () =>
    new Promise<void>((resolve) => {
      const once = () => {
        process.off('SIGINT', once);
        process.off('SIGTERM', once);
        resolve();
      };
      process.on('SIGINT', once);
      process.on('SIGTERM', once);
    });
  await signalled();
  // /readyz answers 503 from now on (the load balancer stops sending new work); stop accepting, give the POSTs in flight a grace period (a second signal cuts it short),
  // then close: what is still pending gets a JSON-RPC error "server shutting down"
  served.drain();
  served.server.close();
  served.server.closeIdleConnections();
  if (posts.count > 0) {
    io.err(
      `mcpgen serve: shutting down; waiting up to ${SHUTDOWN_GRACE_MS} ms for ${posts.count} request(s) in flight`,
    );
    // (a timer that holds the process: with nothing else left, an unref'd one would let it exit mid-await)
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([posts.idle(), signalled(), new Promise((r) => (grace = setTimeout(r, SHUTDOWN_GRACE_MS)))]);
    clearTimeout(grace);
  }
  await served.close();
  return 0;
}

/** A URL fit to print: password and user name as `***` (a string that is no URL: up to its last `@` hidden). */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    if (u.username) u.username = '***';
    return u.href;
  } catch {
    const at = url.lastIndexOf('@');
    return at < 0 ? url : `***${url.slice(at)}`;
  }
}

/** A whole-number flag value of at least `min` (undefined when the flag is absent). */
function count(text: string | undefined, flag: string, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(n) || n < min)
    throw new CommandUsageError(`${flag} needs a whole number of at least ${min}, got ${text}`);
  return n;
}

/** How long `serve --http` lets requests in flight finish after SIGINT/SIGTERM, ms. */
const SHUTDOWN_GRACE_MS = 2000;

/**
 * Counts the server's POSTs whose response has not closed yet (GET streams are long-lived). A
 * POST pipelined behind a response that closes its connection is not processed, so not counted;
 * one queued behind another response counts until its response or its connection closes
 * (node:http never closes a queued response whose connection went away).
 */
function countPosts(server: HttpServer): { readonly count: number; idle(): Promise<void> } {
  let count = 0;
  let waiters: (() => void)[] = [];
  const down = (): void => {
    if (--count > 0) return;
    for (const w of waiters) w();
    waiters = [];
  };
  const counted = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'POST' || afterClosingResponse(req)) return;
    count++;
    if (res.socket !== null) {
      // (a ServerResponse emits 'close' once: one listener function for all, no closure per request)
      res.on('close', down);
      return;
    }
    // queued behind another response on its connection: node emits no 'close' on it when the
    // connection goes first, so the connection's own counts too
    const socket = req.socket;
    const done = (): void => {
      res.off('close', done);
      socket.off('close', done);
      down();
    };
    res.once('close', done);
    socket.once('close', done);
  };
  // (a POST sent with `Expect: 100-continue` arrives as checkContinue)
  server.prependListener('request', counted);
  server.prependListener('checkContinue', counted);
  return {
    get count() {
      return count;
    },
    idle: () => (count === 0 ? Promise.resolve() : new Promise<void>((r) => waiters.push(r))),
  };
}
