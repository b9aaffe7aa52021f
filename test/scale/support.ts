/**
 * The pieces of a several-process deployment, for the scale tests and `npm run bench:scale`:
 * a real `redis-server` on a free port (no persistence), `mcpgen serve --http 0 --redis <url>`
 * processes, a round-robin HTTP proxy on 127.0.0.1 in front of them, and a small Streamable
 * HTTP client that resumes broken SSE streams with `Last-Event-ID` through the proxy.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { SseParser } from '../../runtime/codec/sse.js';
import { startHttpServeProcess, type Served } from '../runtime/tasks/serve-process.js';

type Obj = Record<string, unknown>;
export const V = '2025-11-25';

/** A free TCP port on 127.0.0.1 (bound and released). */
export async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A running `redis-server`. */
export interface RedisServer {
  url: string;
  port: number;
  /** Stops it (SIGTERM) and waits for the exit; its data is gone unless it has an append-only file. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops (SIGSTOP) or continues (SIGCONT) the process: connected, but not answering while stopped. */
  pause(paused: boolean): void;
}

/**
 * Starts `redis-server` on a free port, `--save '' --appendonly no` (with `appendOnlyDir`: the
 * append-only file in that folder, every write synced, so that a restart keeps what it held;
 * `password`: `--requirepass`, the probe authenticating; `args`: further arguments); resolves once
 * it answers PING.
 */
export async function startRedis(
  options: { appendOnlyDir?: string; password?: string; args?: readonly string[] } = {},
): Promise<RedisServer> {
  const port = await freePort();
  let proc: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const start = async (): Promise<void> => {
    let err = '';
    const p = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        ...(options.appendOnlyDir
          ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', options.appendOnlyDir]
          : ['--appendonly', 'no']),
        ...(options.password === undefined ? [] : ['--requirepass', options.password]),
        ...(options.args ?? []),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    proc = p;
    exited = new Promise((r) => p.once('exit', () => r()));
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = new Redis(port, '127.0.0.1', {
        lazyConnect: true,
        password: options.password,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        return;
      } catch {
        probe.disconnect();
      }
      if (p.exitCode !== null || Date.now() > deadline)
        throw new Error(`redis-server did not start on ${port}: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    pause(paused: boolean) {
      proc?.kill(paused ? 'SIGSTOP' : 'SIGCONT');
    },
    async stop() {
      if (proc && proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGCONT');
        proc.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** Starts `mcpgen serve --rev 2025-11-25 --http 0 --redis <url> <args>`. */
export const startRedisServe = (redisUrl: string, ...args: string[]): Promise<Served> =>
  startHttpServeProcess(['--rev', V, '--redis', redisUrl, ...args]);

/**
 * A round-robin HTTP proxy: each request goes to the next live backend. A request whose backend
 * fails before its response's headers (the connection refused, or broken after the backend read
 * the request, as by its process's death) is sent to a backend not tried yet, as a balancer
 * retrying on another upstream does: a POST the dead process had claimed (request replay) is
 * then answered by the next process from the claimed request's stream. Each response carries
 * `x-backend` (the index of the backend that answered) and `x-tried` (the indexes the request
 * was sent to, in order, comma-separated).
 */
export interface Proxy {
  url: string;
  /** Requests whose response is still streaming, per backend index. */
  open(backend: number): number;
  /** Which backend served each request, by its order (0-based) of arrival. */
  readonly served: number[];
  close(): Promise<void>;
}

/**
 * `sticky`: a request carrying `Mcp-Session-Id` goes to the backend that answered the session's
 * `initialize` (what a deployment without shared stores needs); otherwise round-robin.
 */
export async function startProxy(backends: readonly string[], options: { sticky?: boolean } = {}): Promise<Proxy> {
  const targets = backends.map((u) => new URL(u));
  let next = 0;
  const homes = new Map<string, number>();
  const open = targets.map(() => 0);
  const served: number[] = [];
  const live = new Set<IncomingMessage>();
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, tried: Set<number>): void => {
    const sid = req.headers['mcp-session-id'];
    const home = options.sticky && typeof sid === 'string' ? homes.get(sid) : undefined;
    let i = home ?? next++ % targets.length;
    // a retry goes to a backend not tried yet for this request
    while (tried.has(i)) i = (i + 1) % targets.length;
    tried.add(i);
    const t = targets[i];
    const headers = { ...req.headers, host: t.host };
    const out = request(
      { host: t.hostname, port: t.port, method: req.method, path: req.url, headers, agent: false },
      (up) => {
        served.push(i);
        const given = up.headers['mcp-session-id'];
        if (options.sticky && typeof given === 'string' && !homes.has(given)) homes.set(given, i);
        open[i]++;
        live.add(up);
        let counted = true;
        const done = (): void => {
          if (!counted) return;
          counted = false;
          open[i]--;
          live.delete(up);
        };
        res.writeHead(up.statusCode ?? 502, { ...up.headers, 'x-backend': String(i), 'x-tried': [...tried].join(',') });
        res.flushHeaders();
        up.on('data', (d: Buffer) => res.write(d));
        up.on('end', () => {
          done();
          res.end();
        });
        up.on('close', () => {
          done();
          // a backend that died mid-stream: what it sent is delivered, then the response ends early
          // (the client sees a stream that ended before its response, as behind a real balancer)
          if (!res.writableEnded) res.end();
        });
        res.on('close', () => up.destroy());
      },
    );
    out.on('error', () => {
      if (res.headersSent) return void res.destroy();
      if (tried.size < targets.length && home === undefined) return forward(req, res, body, tried);
      res.writeHead(502, { 'Content-Type': 'text/plain' }).end('no backend\n');
    });
    out.end(body);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => forward(req, res, Buffer.concat(chunks), new Set()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    open: (b) => open[b],
    served,
    async close() {
      for (const up of live) up.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** What one request got: its response, and every SSE event on the way (id, message). */
export interface Exchange {
  response?: Obj;
  status: number;
  events: Array<{ id?: string; message: Obj }>;
  /** How many times the stream was resumed with `Last-Event-ID`. */
  resumed: number;
  /** The proxy's backend index of the POST, then of each resumption. */
  backends: number[];
  /** The first SSE event ID read (also of an event without data, as a stream's priming event). */
  firstEventId?: string;
  /** The JSON-RPC id of the request. */
  id: number;
  /**
   * The proxy's backends the POST was sent to, in order: the last one answered it; each one
   * before failed before its response's headers (refused, or its connection broke), and the
   * proxy sent the request to the next.
   */
  tried: number[];
}

/**
 * A Streamable HTTP client session written for these tests: POSTs one message at a time (any
 * number concurrently), reads JSON or SSE replies, resumes a broken SSE stream with GET and
 * `Last-Event-ID` (every 100 ms, up to `resumeForMs`), and answers server → client requests
 * with `onRequest`.
 */
export class TestSession {
  sessionId: string | undefined;
  private nextId = 1;
  constructor(
    readonly url: string,
    private readonly onRequest?: (m: Obj) => Obj | undefined,
    private readonly resumeForMs = 15_000,
  ) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': V,
      ...(this.sessionId ? { 'Mcp-Session-Id': this.sessionId } : {}),
      ...extra,
    };
  }

  /** `initialize` + `notifications/initialized`; resolves the initialize result. */
  async initialize(capabilities: Obj = {}): Promise<Obj> {
    const ex = await this.request('initialize', {
      protocolVersion: V,
      capabilities,
      clientInfo: { name: 'scale-test', version: '1' },
    });
    if (!ex.response || 'error' in ex.response)
      throw new Error(`initialize failed: ${ex.status} ${JSON.stringify(ex.response)}`);
    await this.notify('notifications/initialized');
    return ex.response.result as Obj;
  }

  async notify(method: string, params?: Obj): Promise<number> {
    const r = await fetch(this.url, {
      method: 'POST',
      headers: this.headers({ 'Content-Type': 'application/json' }),
      body: JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) }),
    });
    await r.arrayBuffer();
    return r.status;
  }

  /** Sends request `method` and reads its reply to the end (resuming as needed). */
  async request(method: string, params: Obj = {}): Promise<Exchange> {
    const id = this.nextId++;
    const r = await fetch(this.url, {
      method: 'POST',
      headers: this.headers({ 'Content-Type': 'application/json' }),
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });
    const sid = r.headers.get('mcp-session-id');
    if (sid && !this.sessionId) this.sessionId = sid;
    const ex: Exchange = {
      id,
      status: r.status,
      events: [],
      resumed: 0,
      backends: [Number(r.headers.get('x-backend'))],
      tried: (r.headers.get('x-tried') ?? '').split(',').filter(Boolean).map(Number),
    };
    this.inflight.add(ex);
    try {
      return await this.reply(r, id, ex);
    } finally {
      this.inflight.delete(ex);
    }
  }

  /** The answers POSTed to server → client requests: their HTTP status and the proxy's backend. */
  readonly answers: Array<{ status: number; backend: number }> = [];

  /** Exchanges whose reply is still being read. */
  readonly inflight = new Set<Exchange>();

  private async reply(r: Response, id: number, ex: Exchange): Promise<Exchange> {
    if (!(r.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      const text = await r.text();
      ex.response = text ? (JSON.parse(text) as Obj) : undefined;
      return ex;
    }
    let last: string | undefined;
    let body: Response = r;
    const deadline = Date.now() + this.resumeForMs;
    for (;;) {
      const got = await this.read(body, id, ex, (eventId) => {
        last = eventId;
        ex.firstEventId ??= eventId;
      });
      if (got) return ex;
      // the stream broke before its response: resume where it was
      for (;;) {
        if (last === undefined || Date.now() > deadline)
          throw new Error(`stream of request ${id} broke and cannot be resumed (last event ${last})`);
        await new Promise((res) => setTimeout(res, 100));
        try {
          const g = await fetch(this.url, {
            method: 'GET',
            headers: this.headers({ Accept: 'text/event-stream', 'Last-Event-ID': last }),
          });
          if (g.status === 200) {
            body = g;
            ex.resumed++;
            ex.backends.push(Number(g.headers.get('x-backend')));
            break;
          }
          await g.arrayBuffer();
        } catch {
          /* no backend yet */
        }
      }
    }
  }

  /** Reads SSE events until the response to `id` (true) or the end of the body (false). */
  private async read(r: Response, id: number, ex: Exchange, cursor: (eventId: string) => void): Promise<boolean> {
    const parser = new SseParser();
    const decoder = new TextDecoder();
    try {
      for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
        const events = parser.push(decoder.decode(chunk, { stream: true }));
        if (parser.lastEventId) cursor(parser.lastEventId);
        for (const e of events) {
          if (!e.data) continue;
          const m = JSON.parse(e.data) as Obj;
          ex.events.push({ id: e.id, message: m });
          if (m.id === id && !('method' in m)) {
            ex.response = m;
            void r.body?.cancel().catch(() => undefined);
            return true;
          }
          if (typeof m.method === 'string' && 'id' in m && this.onRequest) {
            const result = this.onRequest(m);
            void fetch(this.url, {
              method: 'POST',
              headers: this.headers({ 'Content-Type': 'application/json' }),
              body: JSON.stringify({
                jsonrpc: '2.0',
                id: m.id,
                ...(result ? { result } : { error: { code: -32601, message: 'not handled' } }),
              }),
            }).then((x) => {
              this.answers.push({ status: x.status, backend: Number(x.headers.get('x-backend')) });
              return x.arrayBuffer();
            });
          }
        }
      }
    } catch {
      /* the connection broke */
    }
    return false;
  }

  async close(): Promise<void> {
    if (!this.sessionId) return;
    await fetch(this.url, { method: 'DELETE', headers: this.headers() })
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
  }
}
