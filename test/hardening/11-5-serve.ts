/**
 * Peers of the own-property tests (issue 11, findings 5 and 12): one JSON-RPC request at a time
 * to `mcpgen serve` over real stdio pipes or real HTTP (both eras), each answer reduced to an
 * {@link Outcome} that can be compared with the answer to a control name.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SseParser } from '../../runtime/codec/sse.js';
import { onLines, spawnStdioServe } from '../runtime/tasks/serve-process.js';

type Obj = Record<string, unknown>;

export const V = '2026-07-28';
export const LEGACY = '2025-11-25';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** Every name `Object.prototype` has: `constructor`, `toString`, `__proto__`, `hasOwnProperty`, … */
export const NAMES: readonly string[] = Object.getOwnPropertyNames(Object.prototype);
/** A name nothing is registered under: what every prototype name must be answered like. */
export const CONTROL = 'no_such_name_11';

/** The `_meta` of a stateless request (client capabilities as given). */
export const metaOf = (capabilities: unknown = {}): Obj => ({
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': capabilities,
  'io.modelcontextprotocol/clientInfo': { name: 'hardening', version: '1' },
});

/** What came back: the HTTP status (HTTP only) and the JSON-RPC result or error. */
export interface Outcome {
  status?: number;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export const outcomeOf = (body: unknown, status?: number): Outcome => {
  const m = (body ?? {}) as Obj;
  const out: Outcome = status === undefined ? {} : { status };
  if ('error' in m) out.error = m.error as Outcome['error'];
  else out.result = m.result;
  return out;
};

/** One request of a probe: `mcpName` is the Mcp-Name header a conforming client sends with it. */
export interface Probe {
  method: string;
  params: Obj;
  mcpName?: string;
}

/** Asks one request and reduces its answer. */
export type Ask = (p: Probe) => Promise<Outcome>;

/**
 * Asks `make(name)` for each of {@link NAMES} and for {@link CONTROL}; returns one line per name
 * whose outcome differs from the control's (with the control name replaced by that name).
 */
export async function differences(ask: Ask, what: string, make: (name: string) => Probe): Promise<string[]> {
  const control = JSON.stringify(await ask(make(CONTROL)));
  const out: string[] = [];
  for (const name of NAMES) {
    const expected = control.split(CONTROL).join(name);
    const got = JSON.stringify(await ask(make(name)));
    if (got !== expected) out.push(`${what} ${name}: ${got.slice(0, 240)} (expected ${expected.slice(0, 240)})`);
  }
  return out;
}

/** `mcpgen serve --stdio <args>` on real pipes: one request at a time, matched by id. */
export class StdioServe {
  #next = 0;
  readonly #waiting = new Map<string, (m: Obj) => void>();
  stderr = '';
  private constructor(readonly proc: ChildProcess) {
    onLines(proc.stdout!, (line) => {
      const m = JSON.parse(line) as Obj;
      const w = typeof m.id === 'string' && !('method' in m) ? this.#waiting.get(m.id) : undefined;
      if (w) {
        this.#waiting.delete(m.id as string);
        w(m);
      }
    });
    proc.stderr!.on('data', (d: Buffer) => void (this.stderr += d.toString()));
  }

  static start(...args: string[]): StdioServe {
    return new StdioServe(spawnStdioServe(args));
  }

  /** Sends a request (a fresh string id) and resolves with its response (30 s at most). */
  request(method: string, params?: Obj): Promise<Obj> {
    const id = `q${++this.#next}`;
    return new Promise((resolve, reject) => {
      const t = setTimeout(
        () => reject(new Error(`no answer to ${method} within 30 s; stderr: ${this.stderr}`)),
        30_000,
      );
      this.#waiting.set(id, (m) => (clearTimeout(t), resolve(m)));
      this.proc.stdin!.write(
        `${JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params })}\n`,
      );
    });
  }

  notify(method: string, params?: Obj): void {
    this.proc.stdin!.write(
      `${JSON.stringify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params })}\n`,
    );
  }

  /** Ends stdin and waits for the process to exit. */
  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.stdin!.end();
    const t = setTimeout(() => this.proc.kill('SIGTERM'), 10_000);
    await exited;
    clearTimeout(t);
  }
}

/** The headers a conforming stateless client sends with `p`. */
export function statelessHeaders(p: Probe): Record<string, string> {
  const h: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': V,
    'Mcp-Method': p.method,
  };
  if (p.mcpName !== undefined) h['Mcp-Name'] = p.mcpName;
  return h;
}

/** POSTs `body` (text as is, else JSON) and reads the whole answer: the JSON body, or the last SSE message. */
export async function postRaw(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const messages = new SseParser()
      .push(text)
      .filter((e) => e.data !== '')
      .map((e) => JSON.parse(e.data) as Obj);
    return { status: res.status, body: messages.at(-1), headers: res.headers };
  }
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
}

/** A stateless asker: each probe is one POST with `_meta` (client capabilities `capabilities`). */
export const statelessAsk =
  (url: string, capabilities: unknown = {}): Ask =>
  async (p) => {
    const r = await postRaw(url, statelessHeaders(p), {
      jsonrpc: '2.0',
      id: 1,
      method: p.method,
      params: { ...p.params, _meta: metaOf(capabilities) },
    });
    return outcomeOf(r.body, r.status);
  };

/** Opens a 2025-11-25 session at `url` (client `capabilities` as given, JSON text allowed); returns its id. */
export async function openSession(url: string, capabilities: unknown = {}): Promise<string> {
  const caps = typeof capabilities === 'string' ? capabilities : JSON.stringify(capabilities);
  const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"${LEGACY}","capabilities":${caps},"clientInfo":{"name":"hardening","version":"1"}}}`;
  const r = await postRaw(
    url,
    { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    init,
  );
  const sid = r.headers.get('mcp-session-id');
  if (r.status !== 200 || !sid) throw new Error(`initialize failed: ${r.status} ${JSON.stringify(r.body)}`);
  const ack = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': sid,
      'MCP-Protocol-Version': LEGACY,
    },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await ack.text();
  return sid;
}

/** A session asker: each probe is one POST in session `sid`. */
export const sessionAsk =
  (url: string, sid: string): Ask =>
  async (p) => {
    const r = await postRaw(
      url,
      {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': sid,
        'MCP-Protocol-Version': LEGACY,
      },
      { jsonrpc: '2.0', id: 1, method: p.method, params: p.params },
    );
    return outcomeOf(r.body, r.status);
  };

/** A stdio asker; `meta` adds the stateless `_meta` to each request. */
export const stdioAsk =
  (s: StdioServe, meta?: Obj): Ask =>
  async (p) =>
    outcomeOf(await s.request(p.method, meta ? { ...p.params, _meta: meta } : p.params));

/** A node:http server on 127.0.0.1 (port 0) around `handler`, recording each request's headers. */
export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => unknown,
): Promise<{ url: string; headers: IncomingMessage['headers'][]; close(): Promise<void> }> {
  const headers: IncomingMessage['headers'][] = [];
  const http: HttpServer = createServer((req, res) => {
    headers.push(req.headers);
    void handler(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    headers,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
