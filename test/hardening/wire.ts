/**
 * Raw JSON-RPC over a real `mcpgen serve --stdio` child and a real `mcpgen serve --http 0`
 * endpoint, for the hardening tests: what goes on the wire is written by hand, what comes back
 * is read as parsed JSON (single messages and batch arrays alike). Requests the server sends to
 * this "client" are recorded and answered with -32601, so nothing waits on them.
 * Expectations come from the spec inputs ($MCP_SPEC_DIR/schema/<rev>/schema.json), not from
 * the generated code under test.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { onLines, root, spawnStdioServe } from '../runtime/tasks/serve-process.js';

/** The handshake revisions `mcpgen serve` negotiates (its own 2025-11-25 and the older ones). */
export const HANDSHAKE_REVS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
/** Every revision with spec inputs, for the union of methods. */
export const ALL_REVS = [...HANDSHAKE_REVS, '2026-07-28', 'draft'] as const;

type Json = Record<string, unknown>;
const specDir = process.env.MCP_SPEC_DIR ?? join(root, '..', 'shared', 'mcp-spec');

/** `$defs` (or `definitions`) of a revision's schema.json. */
export function schemaDefs(rev: string): Record<string, Json> {
  const doc = JSON.parse(readFileSync(join(specDir, 'schema', rev, 'schema.json'), 'utf8')) as Json;
  return (doc.$defs ?? doc.definitions) as Record<string, Json>;
}

/** The methods of a revision's `ClientRequest` union. */
export function clientRequestMethods(rev: string): string[] {
  const defs = schemaDefs(rev);
  return ((defs.ClientRequest.anyOf ?? defs.ClientRequest.oneOf) as Json[]).map((r) => {
    const name = String(r.$ref).split('/').pop()!;
    return (defs[name].properties as Record<string, Json>).method.const as string;
  });
}

function deref(defs: Record<string, Json>, s: Json | undefined): Json | undefined {
  for (let i = 0; s && typeof s.$ref === 'string' && i < 32; i++) s = defs[String(s.$ref).split('/').pop()!];
  return s;
}

/**
 * The member paths of `value` that `schema` (a capabilities type of `defs`) does not define:
 * a member is defined when the object's `properties` list it or its `additionalProperties`
 * allows any. Empty: `value` is a subset of what the revision defines.
 */
export function undefinedMembers(
  defs: Record<string, Json>,
  schema: Json | undefined,
  value: unknown,
  path = '',
): string[] {
  const node = deref(defs, schema);
  if (!node || typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const props = (node.properties ?? {}) as Record<string, Json>;
  const open = node.additionalProperties !== undefined && node.additionalProperties !== false;
  const out: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (Object.hasOwn(props, k)) out.push(...undefinedMembers(defs, props[k], v, `${path}/${k}`));
    else if (!open) out.push(`${path}/${k}`);
  }
  return out;
}

/** A connection speaking raw JSON-RPC. */
export interface Wire {
  /** Sends one request and resolves with its response (a JSON-RPC response object). */
  request(method: string, params?: Json): Promise<Json>;
  notify(method: string, params?: Json): Promise<void>;
  /** Server → client requests seen so far (each answered with -32601). */
  readonly serverRequests: Json[];
  close(): Promise<void>;
}

const TIMEOUT_MS = 30_000;

/** `mcpgen serve --stdio` as a child process; lines in, parsed values out. */
export class StdioWire implements Wire {
  readonly serverRequests: Json[] = [];
  private readonly proc: ChildProcess;
  private readonly values: unknown[] = [];
  private waiters: Array<() => void> = [];
  private nextId = 1000;
  private readonly exited: Promise<void>;

  constructor(args: string[] = []) {
    this.proc = spawnStdioServe(args, { stderr: 'ignore' });
    this.exited = new Promise((r) => this.proc.once('exit', () => r()));
    onLines(this.proc.stdout!, (line) => {
      const v = JSON.parse(line) as unknown;
      if (typeof v === 'object' && v !== null && !Array.isArray(v) && 'method' in v && 'id' in v) {
        this.serverRequests.push(v as Json);
        this.writeLine(
          JSON.stringify({ jsonrpc: '2.0', id: (v as Json).id, error: { code: -32601, message: 'Method not found' } }),
        );
        return;
      }
      this.values.push(v);
      for (const w of this.waiters.splice(0)) w();
    });
  }

  writeLine(line: string): void {
    this.proc.stdin!.write(`${line}\n`);
  }

  /** The next value read (in order) that `match` accepts, removed from the queue. */
  async next(match: (v: unknown) => boolean = () => true, timeoutMs = TIMEOUT_MS): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.values.findIndex(match);
      if (i >= 0) return this.values.splice(i, 1)[0];
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `no matching message within ${timeoutMs} ms; unread: ${JSON.stringify(this.values).slice(0, 500)}`,
        );
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => (clearTimeout(t), r()));
      });
    }
  }

  /** Whether a value `match` accepts arrives within `ms` (a short wait for "nothing comes"). */
  async arrives(match: (v: unknown) => boolean, ms: number): Promise<boolean> {
    try {
      await this.next(match, ms);
      return true;
    } catch {
      return false;
    }
  }

  async request(method: string, params?: Json): Promise<Json> {
    const id = this.nextId++;
    this.writeLine(
      JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params }),
    );
    return (await this.next((v) => typeof v === 'object' && v !== null && (v as Json).id === id)) as Json;
  }

  async notify(method: string, params?: Json): Promise<void> {
    this.writeLine(
      JSON.stringify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }),
    );
  }

  async close(): Promise<void> {
    this.proc.stdin!.end();
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(t);
  }
}

/** What one POST got: status, content type, and the JSON-RPC values it carried (JSON body or SSE events). */
export interface PostResult {
  status: number;
  contentType: string | null;
  sessionId: string | null;
  /** The JSON body as parsed (an object or an array), or each SSE event's data; [] for none. */
  values: unknown[];
}

/** One Streamable HTTP session against `url` (raw POSTs). */
export class HttpWire implements Wire {
  readonly serverRequests: Json[] = [];
  sessionId: string | undefined;
  /** Sent as MCP-Protocol-Version once set (revisions from 2025-06-18 define the header). */
  protocolVersion: string | undefined;
  private nextId = 1000;

  constructor(readonly url: string) {}

  private headers(): Record<string, string> {
    const h: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    if (this.sessionId) h['Mcp-Session-Id'] = this.sessionId;
    if (this.protocolVersion && this.protocolVersion >= '2025-06-18') h['MCP-Protocol-Version'] = this.protocolVersion;
    return h;
  }

  /** POSTs `body` (a string is sent as is); reads the whole answer, answering server requests on the way. */
  async post(body: unknown): Promise<PostResult> {
    const r = await fetch(this.url, {
      method: 'POST',
      headers: this.headers(),
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const contentType = r.headers.get('content-type');
    const sessionId = r.headers.get('mcp-session-id');
    const values: unknown[] = [];
    if (contentType?.startsWith('text/event-stream')) {
      const reader = r.body!.getReader();
      const decoder = new TextDecoder();
      let buf = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
        let end: number;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const event = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const data = event
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).replace(/^ /, ''))
            .join('\n');
          if (!data) continue;
          const v = JSON.parse(data) as unknown;
          if (typeof v === 'object' && v !== null && !Array.isArray(v) && 'method' in v && 'id' in v) {
            this.serverRequests.push(v as Json);
            void this.post({
              jsonrpc: '2.0',
              id: (v as Json).id,
              error: { code: -32601, message: 'Method not found' },
            }).catch(() => undefined);
            continue;
          }
          values.push(v);
        }
      }
    } else {
      const text = await r.text();
      if (text) values.push(JSON.parse(text));
    }
    return { status: r.status, contentType, sessionId, values };
  }

  async request(method: string, params?: Json): Promise<Json> {
    const id = this.nextId++;
    const res = await this.post(
      params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
    );
    if (method === 'initialize' && res.sessionId) this.sessionId = res.sessionId;
    const answer = res.values.find((v) => typeof v === 'object' && v !== null && (v as Json).id === id);
    if (!answer)
      throw new Error(
        `${method}: HTTP ${res.status} without its response: ${JSON.stringify(res.values).slice(0, 300)}`,
      );
    return answer as Json;
  }

  async notify(method: string, params?: Json): Promise<void> {
    const res = await this.post(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
    if (res.status !== 202) throw new Error(`${method}: HTTP ${res.status}`);
  }

  async close(): Promise<void> {
    if (!this.sessionId) return;
    await fetch(this.url, { method: 'DELETE', headers: this.headers() }).catch(() => undefined);
  }
}

/** `initialize` with `rev` and no client capabilities, then `notifications/initialized`; resolves with the result. */
export async function initialize(wire: Wire, rev: string, capabilities: Json = {}): Promise<Json> {
  const r = await wire.request('initialize', {
    protocolVersion: rev,
    capabilities,
    clientInfo: { name: 'hardening', version: '0' },
  });
  if (!r.result) throw new Error(`initialize ${rev} failed: ${JSON.stringify(r)}`);
  if (wire instanceof HttpWire) wire.protocolVersion = (r.result as Json).protocolVersion as string;
  await wire.notify('notifications/initialized');
  return r.result as Json;
}

/** One session of the 2024-11-05 HTTP+SSE transport (GET /sse, POST the announced endpoint). */
export class LegacySseWire implements Wire {
  readonly serverRequests: Json[] = [];
  private readonly controller = new AbortController();
  private endpoint: string | undefined;
  private readonly values: Json[] = [];
  private waiters: Array<() => void> = [];
  private nextId = 1000;

  private constructor(readonly sseUrl: string) {}

  /** Opens the SSE stream; resolves once the endpoint event arrived. */
  static async open(sseUrl: string): Promise<LegacySseWire> {
    const w = new LegacySseWire(sseUrl);
    const r = await fetch(sseUrl, { headers: { Accept: 'text/event-stream' }, signal: w.controller.signal });
    const reader = r.body!.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    let announced!: () => void;
    const ready = new Promise<void>((res) => (announced = res));
    void (async () => {
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) return;
        buf += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
        let end: number;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const lines = buf.slice(0, end).split('\n');
          buf = buf.slice(end + 2);
          const event =
            lines
              .find((l) => l.startsWith('event:'))
              ?.slice(6)
              .trim() ?? 'message';
          const data = lines
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).replace(/^ /, ''))
            .join('\n');
          if (event === 'endpoint') {
            w.endpoint = new URL(data, sseUrl).href;
            announced();
          } else if (data) {
            const v = JSON.parse(data) as Json;
            if ('method' in v && 'id' in v) {
              w.serverRequests.push(v);
              void w.post({ jsonrpc: '2.0', id: v.id, error: { code: -32601, message: 'Method not found' } });
              continue;
            }
            w.values.push(v);
            for (const f of w.waiters.splice(0)) f();
          }
        }
      }
    })();
    await ready;
    return w;
  }

  private async post(body: unknown): Promise<number> {
    const r = await fetch(this.endpoint!, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    await r.text();
    return r.status;
  }

  async request(method: string, params?: Json): Promise<Json> {
    const id = this.nextId++;
    await this.post(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    const deadline = Date.now() + TIMEOUT_MS;
    for (;;) {
      const i = this.values.findIndex((v) => v.id === id);
      if (i >= 0) return this.values.splice(i, 1)[0];
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${method}: no response within ${TIMEOUT_MS} ms`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => (clearTimeout(t), r()));
      });
    }
  }

  async notify(method: string, params?: Json): Promise<void> {
    await this.post(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  async close(): Promise<void> {
    this.controller.abort();
  }
}

/**
 * A 2024-11-05 HTTP+SSE stream (GET `<base>/sse`) read as raw text, so that a test sees what the
 * server wrote (ids as written, no JSON parser between).
 */
export interface LegacyStream {
  /** The POST URL the stream's `endpoint` event announced (absolute). */
  endpoint: string;
  /** Reads on until the stream's text so far matches `pattern` (rejects after the limit); its match. */
  until(pattern: RegExp): Promise<RegExpExecArray>;
  /** POSTs `body` (a string as is, else JSON) to the endpoint; resolves with the HTTP status. */
  post(body: unknown): Promise<number>;
  /** Aborts the stream (the server ends the session). */
  close(): void;
}

/** Opens a {@link LegacyStream} at `base`; resolves once the endpoint event arrived (`limitMs` for each wait). */
export async function openLegacyStream(base: string, limitMs = TIMEOUT_MS): Promise<LegacyStream> {
  const abort = new AbortController();
  const res = await fetch(`${base}/sse`, { headers: { Accept: 'text/event-stream' }, signal: abort.signal });
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let text = '';
  const until = async (pattern: RegExp): Promise<RegExpExecArray> => {
    const end = Date.now() + limitMs;
    while (!pattern.test(text)) {
      if (Date.now() > end) throw new Error(`stream lacks ${pattern}: ${text}`);
      text += dec.decode((await reader.read()).value);
    }
    return pattern.exec(text)!;
  };
  try {
    const endpoint = new URL((await until(/event: endpoint\ndata: (\S+)/))[1], base).href;
    const post = (body: unknown) =>
      fetch(endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }).then((r) => r.status);
    return { endpoint, until, post, close: () => abort.abort() };
  } catch (e) {
    abort.abort();
    throw e;
  }
}
