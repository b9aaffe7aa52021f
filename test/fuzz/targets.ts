/**
 * The processes the fuzz run talks to: `mcpgen serve --stdio` and `mcpgen serve --http 0` of an
 * era (`--rev draft` for the dual-era server of the stateless revision), each a child process
 * reached over its real pipes or a loopback socket, with its RSS read from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { SseParser } from '../../runtime/codec/sse.js';
import { META, MODERN_VERSION, type Era } from './frames.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = `${root}bin/mcpgen.js`;

/** Resident set size of a process, bytes (0 when it is gone or /proc is missing). */
export function rssOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

const revArgs = (era: Era) => (era === 'draft' ? ['--rev', 'draft'] : []);
export const INIT = (id: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
  });

/** The liveness probe of the era: `ping`, or `server/discover` (the stateless revision has no ping). */
export const PROBE_METHOD = (era: Era) => (era === 'draft' ? 'server/discover' : 'ping');

/** The liveness probe of the era with a given raw id. */
export function pingText(era: Era, rawId: string): string {
  return era === 'draft'
    ? `{"jsonrpc":"2.0","id":${rawId},"method":"server/discover","params":{"_meta":${JSON.stringify(META)}}}`
    : `{"jsonrpc":"2.0","id":${rawId},"method":"ping"}`;
}

/**
 * `mcpgen serve --stdio` of an era. Lines the server writes go to `onLine`; server requests are
 * answered at once with -32601 (the fuzz client declares no capabilities).
 */
export class StdioTarget {
  child!: ChildProcess;
  exited = false;
  exitInfo = '';
  stderrTail = '';
  onLine: (line: string) => void = () => undefined;
  /** How long a start may take before it fails, ms. */
  startTimeoutMs = 30_000;
  /** Resolves when the current child exits. */
  exit!: Promise<void>;
  private partial = '';

  constructor(readonly era: Era) {}

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Spawns the server and, for the 2025 era, completes the initialize handshake. */
  async start(): Promise<void> {
    this.exited = false;
    this.partial = '';
    const child = spawn(process.execPath, [bin, 'serve', '--stdio', ...revArgs(this.era)], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdin!.on('error', () => undefined);
    child.stderr!.on('data', (d: Buffer) => {
      this.stderrTail = (this.stderrTail + d.toString()).slice(-4000);
    });
    this.exit = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exited = true;
        this.exitInfo = `exit ${code ?? signal}`;
        resolve();
      }),
    );
    child.stdout!.on('data', (d: Buffer) => {
      const text = this.partial + d.toString('utf8');
      const lines = text.split('\n');
      this.partial = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) this.line(line);
    });
    if (this.era === '2025-11-25') {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`stdio initialize timed out: ${this.stderrTail}`)),
          this.startTimeoutMs,
        );
        this.onLine = (l) => {
          if (l.includes('"fuzz-init"')) {
            clearTimeout(timer);
            resolve();
          }
        };
        void this.write(`${INIT('fuzz-init')}\n`);
      });
      this.onLine = () => undefined;
      await this.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    } else {
      // the dual-era server is ready once it answers a modern ping
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`stdio start timed out: ${this.stderrTail}`)),
          this.startTimeoutMs,
        );
        this.onLine = (l) => {
          if (l.includes('"fuzz-start"')) {
            clearTimeout(timer);
            resolve();
          }
        };
        void this.write(`${pingText(this.era, '"fuzz-start"')}\n`);
      });
      this.onLine = () => undefined;
    }
  }

  private line(line: string): void {
    // a server request: answer "not supported", so a tool waiting on it ends
    if (/^\{[^]*"method"/.test(line)) {
      try {
        const m = JSON.parse(line) as { id?: unknown; method?: unknown };
        if (m.id !== undefined && typeof m.method === 'string') {
          void this.write(
            `${JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } })}\n`,
          );
        }
      } catch {
        /* the oracle reports it */
      }
    }
    this.onLine(line);
  }

  /** Writes bytes, waiting for the pipe to drain. */
  write(bytes: Uint8Array | string): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.child.stdin!.write(bytes)) resolve();
      else {
        this.child.stdin!.once('drain', resolve);
        void this.exit.then(resolve);
      }
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    this.child.stdin!.end();
    const t = setTimeout(() => this.child.kill('SIGKILL'), 3000);
    await this.exit;
    clearTimeout(t);
  }
}

/** The outcome of one POST. */
export interface PostResult {
  status?: number;
  contentType?: string;
  body: string;
  /** Set when no status arrived: `timeout` or the socket error. */
  failure?: string;
  ms: number;
}

/**
 * `mcpgen serve --http 0` of an era. For the 2025 era it holds one session (initialized, its
 * id sent on every POST unless a frame changes it).
 */
export class HttpTarget {
  child!: ChildProcess;
  url!: URL;
  exited = false;
  exitInfo = '';
  stderrTail = '';
  sessionId: string | undefined;
  /** Keep-alive sockets are dropped after 2 s idle, well before the server's 5 s keepAliveTimeout
   * (a socket the server closes just as a POST reuses it fails with ECONNRESET, not the server). */
  private agent = new Agent({ keepAlive: true, maxSockets: 16, timeout: 2000 });

  constructor(readonly era: Era) {}

  get pid(): number | undefined {
    return this.child.pid;
  }

  async start(): Promise<void> {
    this.exited = false;
    const child = spawn(process.execPath, [bin, 'serve', '--http', '0', ...revArgs(this.era)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.once('exit', (code, signal) => {
      this.exited = true;
      this.exitInfo = `exit ${code ?? signal}`;
    });
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new Error(`serve --http did not start: ${seen}`)), 30_000);
      const look = (d: Buffer) => {
        seen += d.toString();
        this.stderrTail = seen.slice(-4000);
        const m = /(http:\/\/\S+\/mcp)/.exec(seen);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      child.stdout!.on('data', look);
      child.stderr!.on('data', look);
      child.once('exit', (code) => reject(new Error(`serve --http exited ${code}: ${seen}`)));
    });
    child.stderr!.on('data', (d: Buffer) => {
      this.stderrTail = (this.stderrTail + d.toString()).slice(-4000);
    });
    this.url = new URL(url);
    if (this.era === '2025-11-25') await this.openSession();
  }

  /** Initializes a 2025-11-25 session and keeps its id. */
  async openSession(): Promise<void> {
    this.sessionId = undefined;
    const r = await this.post(Buffer.from(INIT('fuzz-init')), {}, 30_000);
    const sid = r.headers?.['mcp-session-id'];
    if (r.status !== 200 || typeof sid !== 'string')
      throw new Error(`initialize failed: ${r.status} ${r.failure ?? ''} ${r.body.slice(0, 200)}`);
    this.sessionId = sid;
    await this.post(Buffer.from('{"jsonrpc":"2.0","method":"notifications/initialized"}'), {}, 30_000);
  }

  /** The headers a conforming client of the era sends with a body. */
  baseHeaders(): Record<string, string> {
    const h: Record<string, string> = {
      host: `${this.url.hostname}:${this.url.port}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (this.era === 'draft') h['mcp-protocol-version'] = MODERN_VERSION;
    else {
      h['mcp-protocol-version'] = '2025-11-25';
      if (this.sessionId) h['mcp-session-id'] = this.sessionId;
    }
    return h;
  }

  /** POSTs a body with the base headers and `overrides` (null drops one); never rejects. */
  post(
    body: Uint8Array,
    overrides: Record<string, string | null>,
    timeoutMs: number,
  ): Promise<PostResult & { headers?: Record<string, string | string[] | undefined> }> {
    const headers: Record<string, string> = this.baseHeaders();
    for (const [k, v] of Object.entries(overrides)) {
      if (v === null) delete headers[k];
      else headers[k] = v;
    }
    headers['content-length'] = String(body.length);
    const started = performance.now();
    return new Promise((resolve) => {
      let settled = false;
      const done = (r: PostResult & { headers?: Record<string, string | string[] | undefined> }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(r);
      };
      let req: ReturnType<typeof httpRequest>;
      try {
        req = httpRequest(
          {
            host: this.url.hostname,
            port: Number(this.url.port),
            path: this.url.pathname,
            method: 'POST',
            headers,
            setHost: false,
            agent: this.agent,
          },
          (res) => {
            const chunks: Buffer[] = [];
            // server requests on an SSE answer are answered as they come, as a client would
            const sse = String(res.headers['content-type'] ?? '').startsWith('text/event-stream')
              ? new SseParser()
              : undefined;
            res.on('data', (c: Buffer) => {
              chunks.push(c);
              for (const ev of sse?.push(c) ?? []) this.answerServerRequest(ev.data, headers['mcp-session-id']);
            });
            res.on('end', () =>
              done({
                status: res.statusCode,
                contentType: String(res.headers['content-type'] ?? ''),
                body: Buffer.concat(chunks).toString('utf8'),
                headers: res.headers,
                ms: performance.now() - started,
              }),
            );
            res.on('error', (e) =>
              done({
                status: res.statusCode,
                body: Buffer.concat(chunks).toString('utf8'),
                failure: `response ${(e as NodeJS.ErrnoException).code ?? e.message}`,
                ms: performance.now() - started,
              }),
            );
          },
        );
      } catch (e) {
        resolve({ body: '', failure: `unsendable: ${(e as Error).message}`, ms: 0 });
        return;
      }
      const timer = setTimeout(() => {
        req.destroy();
        done({ body: '', failure: 'timeout', ms: performance.now() - started });
      }, timeoutMs);
      req.on('error', (e) =>
        done({ body: '', failure: (e as NodeJS.ErrnoException).code ?? e.message, ms: performance.now() - started }),
      );
      req.end(body);
    });
  }

  /** Answers to server requests whose POST failed (the server then waits for them in vain). */
  serverAnswerFailures: string[] = [];

  /**
   * Answers a server request (an SSE event's data) with -32601: the fuzz client declares no
   * capabilities. The answer goes to the session of the POST that carried the request.
   */
  private answerServerRequest(data: string, sessionId: string | undefined): void {
    if (!data.includes('"method"')) return;
    let m: { id?: unknown; method?: unknown };
    try {
      m = JSON.parse(data) as typeof m;
    } catch {
      return;
    }
    if (m.id === undefined || typeof m.method !== 'string') return;
    const text = JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
    void this.post(
      Buffer.from(text),
      sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25', 'mcp-method': null } : {},
      30_000,
    ).then((r) => {
      if (r.failure && this.serverAnswerFailures.length < 100)
        this.serverAnswerFailures.push(`${m.method} ${JSON.stringify(m.id)}: ${r.failure}`);
    });
  }

  async stop(): Promise<void> {
    this.agent.destroy();
    this.agent = new Agent({ keepAlive: true, maxSockets: 16, timeout: 2000 });
    if (this.exited) return;
    const done = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    const t = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await done;
    clearTimeout(t);
  }
}
