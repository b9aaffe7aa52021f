/**
 * Real `mcpgen serve --rev draft` child processes for the hardening tests: over stdio (a line
 * client on the child's pipes, answers matched by id) and over HTTP (`--http 0`, the URL read
 * from stderr). Generous timeouts: the machine is shared.
 */
import type { ChildProcess } from 'node:child_process';
import {
  bin,
  onLines,
  root,
  spawnStdioServe,
  startHttpServeProcess,
  type Served,
} from '../runtime/tasks/serve-process.js';

export { bin, root };
export const DRAFT = 'draft';

type Obj = Record<string, any>;

/** The draft request `_meta` (protocol version, client capabilities, client info). */
export const meta = (protocolVersion: string, capabilities: Obj = { elicitation: {} }): Obj => ({
  'io.modelcontextprotocol/protocolVersion': protocolVersion,
  'io.modelcontextprotocol/clientCapabilities': capabilities,
  'io.modelcontextprotocol/clientInfo': { name: 'hardening', version: '1' },
});

/** A line client on `mcpgen serve --stdio <args>`. */
export class StdioServe {
  readonly proc: ChildProcess;
  readonly exited: Promise<number | null>;
  /** Every message the server wrote, in order. */
  readonly received: Obj[] = [];
  #waiters: Array<{ test: (m: Obj) => boolean; resolve: (m: Obj) => void }> = [];
  stderr = '';

  constructor(args: string[], env: NodeJS.ProcessEnv = process.env) {
    this.proc = spawnStdioServe(args, { env });
    this.exited = new Promise((r) => this.proc.once('exit', (code) => r(code)));
    this.proc.stderr!.on('data', (d: Buffer) => void (this.stderr += d.toString()));
    onLines(this.proc.stdout!, (line) => {
      const m = JSON.parse(line) as Obj;
      this.received.push(m);
      this.#waiters = this.#waiters.filter((w) => (w.test(m) ? (w.resolve(m), false) : true));
    });
  }

  send(message: Obj): void {
    this.proc.stdin!.write(`${JSON.stringify(message)}\n`);
  }

  /** The first message (already received or to come) that passes `test`; rejects after `ms`. */
  waitFor(test: (m: Obj) => boolean, ms = 30_000, what = 'a message'): Promise<Obj> {
    const seen = this.received.find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms; stderr: ${this.stderr}`)), ms);
      this.#waiters.push({ test, resolve: (m) => (clearTimeout(t), resolve(m)) });
    });
  }

  /** Sends a request and resolves with its response (result or error message). */
  async request(id: string | number, method: string, params?: Obj): Promise<Obj> {
    const before = this.received.length;
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return this.waitFor(
      (m) => this.received.indexOf(m) >= before && !('method' in m) && m.id === id,
      30_000,
      `answer to ${method} ${JSON.stringify(id)}`,
    );
  }

  /** The responses received so far whose id is `id`. */
  answersTo(id: string | number): Obj[] {
    return this.received.filter((m) => !('method' in m) && m.id === id);
  }

  async close(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    this.proc.stdin!.end();
    const t = setTimeout(() => this.proc.kill('SIGTERM'), 10_000);
    await this.exited;
    clearTimeout(t);
  }
}

/** A `mcpgen serve --http 0 <args>` process. */
export type HttpServe = Served;

/** Starts `mcpgen serve --http 0 <args>`; resolves once it printed its URL (60 s at most). */
export const startHttpServe = (args: string[], env: NodeJS.ProcessEnv = process.env): Promise<HttpServe> =>
  startHttpServeProcess(args, env);

/**
 * POSTs one draft request to a stateless endpoint with the standard headers (`Mcp-Method`,
 * `Mcp-Name` from `params.name` or `params.uri`) and resolves with its JSON-RPC answer.
 */
export async function postDraft(url: string, protocolVersion: string, body: Obj): Promise<Obj> {
  const name = body.params?.name ?? body.params?.uri;
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': protocolVersion,
    'Mcp-Method': body.method,
  };
  if (typeof name === 'string') headers['Mcp-Name'] = name;
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const messages = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trim())
      .filter(Boolean)
      .map((d) => JSON.parse(d) as Obj);
    const answer = messages.find((m) => !('method' in m) && m.id === body.id);
    if (!answer) throw new Error(`no answer in the SSE response (${res.status}): ${text}`);
    return answer;
  }
  if (!text) throw new Error(`empty response body (${res.status})`);
  return JSON.parse(text) as Obj;
}
