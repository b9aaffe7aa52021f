/**
 * The connection flags of the client commands (`call`, `tools`): `--stdio "<command>"`, `--url`,
 * `--timeout`, checked alike, and what a failed request says.
 */
import { RpcError } from '@mcpgen/runtime/jsonrpc';
import { HttpStatusError } from '@mcpgen/runtime/http';
import { UsageError } from './inputs.js';
import { redactUrl } from './redact.js';

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
 * @throws UsageError naming the flag.
 */
export function connectFlags(name: string, values: Readonly<Record<string, unknown>>): ConnectFlags {
  const stdio = values.stdio as string | undefined;
  const url = values.url as string | undefined;
  if (!stdio === !url) throw new UsageError(`${name} needs --stdio "<command>" or --url <url>`);
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (
    timeout !== undefined &&
    !(/^[0-9]+$/.test(values.timeout as string) && timeout > 0 && Number.isSafeInteger(timeout))
  ) {
    throw new UsageError(`--timeout must be a positive integer of milliseconds, got ${JSON.stringify(values.timeout)}`);
  }
  if (stdio !== undefined) {
    const [cmd, ...args] = splitCommand(stdio);
    if (!cmd) throw new UsageError('--stdio command is empty');
    return { command: { cmd, args }, timeout };
  }
  try {
    if (!/^https?:$/.test(new URL(url!).protocol)) throw new Error('not http(s)');
  } catch {
    throw new UsageError(`--url must be an http(s) URL: ${redactUrl(url!)}`);
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
  if (quote) throw new UsageError(`unterminated ${quote} in command`);
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
    return `${redactUrl(url)} answered HTTP ${e.status} (${type}), not JSON-RPC: ${shown === '' ? 'an empty body' : JSON.stringify(shown)}`;
  }
  const cause = (e as { cause?: { message?: string } }).cause?.message;
  return `${(e as Error).message ?? String(e)}${cause ? ` (${cause})` : ''}${url ? ` [${redactUrl(url)}]` : ''}`;
}
