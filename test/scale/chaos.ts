/**
 * The chaos run of issue 44: a real `redis-server` with its append-only file, three server
 * processes of one deployment (./chaos-serve.ts: `serve --redis` plus a tool that records each
 * execution) behind a round-robin TCP proxy that now and then resets a connection, and sessions
 * of the runtime's own client (`Client` over `HttpClientTransport`, node:http form, its default
 * retries) calling `record` with a unique key and progress. Two phases:
 * - restart: Redis is stopped and started again mid-run (its data kept), no other fault: with
 *   the client's retries no call may be lost;
 * - chaos: connection resets throughout, one process killed (SIGKILL) mid-run, then Redis
 *   paused (SIGSTOP) for `pauseMs`.
 * Every call ends one of four ways: its result (which must name its own key: else crossed), a
 * `RequestNotProcessedError` (the client was told it did not run: its key must have no
 * execution), an error saying it may have run (`ConnectionClosedError`, or -32000 from the
 * server: its process ended, or shutting down; at most one execution), or anything else
 * (a timeout: a hang). No key may run twice. Each call that did not get its result is sorted by
 * what the client saw ({@link LostStage}) and whether it ran: the execution log names the
 * process that ran a key and whether it finished, so a call whose process was killed mid-run is
 * told apart.
 * Run by `npm run chaos` (scripts/chaos.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '../../generated/2025-11-25/index.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { ConnectionClosedError, RequestNotProcessedError, RpcError } from '../../runtime/index.js';
import { startRedis, type RedisServer } from './support.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const serveScript = fileURLToPath(new URL('./chaos-serve.ts', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ChaosOptions {
  /** Sessions at once, per phase. */
  sessions: number;
  /** Calls per session (one after another). */
  calls: number;
  /** Progress notifications per call, and the pause after each, ms. */
  steps: number;
  stepMs: number;
  /** Connections the proxy resets per second in the chaos phase (a random open one each time). */
  resetsPerSecond: number;
  /** How long Redis is paused in the chaos phase, ms. */
  pauseMs: number;
  /** A call that has no outcome after this long counts as hung, ms. */
  callTimeoutMs: number;
  log?: (line: string) => void;
}

/** How the calls of a phase ended. */
export interface PhaseFigures {
  calls: number;
  ok: number;
  /** The client was told the call did not run (RequestNotProcessedError). */
  notProcessed: number;
  /** The client was told the call may have run (connection lost after sending, its process ended). */
  mayHaveRun: number;
  /** Of those, how many did run (the execution log has the key). */
  mayHaveRunRan: number;
  /** Their errors, by message (with the call's own numbers taken out). */
  mayHaveRunErrors: Record<string, number>;
  /** Neither: a timeout (hang) or an unexpected error; `otherErrors` names them. */
  other: number;
  otherErrors: string[];
  /** Keys run more than once. */
  duplicates: number;
  /** Results that name another call's key. */
  crossed: number;
  /** Calls answered with a result whose key has no execution, or told "not run" whose key ran. */
  contradictions: number;
  /** The calls without a result, by where they were cut (see {@link LostStage}). */
  lost: Partial<Record<LostStage, LostFigures>>;
  /** Results whose progress arrived complete (1..steps, each once, in order). */
  fullProgress: number;
  /** The first 10 results whose progress did not (`<key>: <progress values received>`), to trace. */
  partialProgress: string[];
  /** Sessions that could not even initialize (after 5 tries). */
  sessionsLost: number;
  ms: number;
}

/**
 * Where a call without its result was cut, from what its client saw:
 * - `notSent`: no byte written (RequestNotProcessedError 'not-sent');
 * - `refused`: 503 with Retry-After on every try (RequestNotProcessedError 'refused');
 * - `beforeResponse`: connected (the POST written, or part of it), cut before the response head,
 *   and not sent again (the server does not replay requests);
 * - `resendsSpent`: sent again after each cut (request replay), every POST of it cut before the
 *   response, until the client's re-sends were spent (RetryOptions `resendForMs`);
 * - `beforeEventId`: an SSE reply opened, cut before it carried an event id (nothing to resume);
 * - `afterEventId`: cut after an event id, and resuming it failed;
 * - `ownerEnded`: resumed on another process, which found the process running it gone (-32000);
 * - `otherMayHaveRun`: another ConnectionClosedError or -32000.
 */
export type LostStage =
  | 'notSent'
  | 'refused'
  | 'beforeResponse'
  | 'resendsSpent'
  | 'beforeEventId'
  | 'afterEventId'
  | 'ownerEnded'
  | 'otherMayHaveRun';

/** Calls cut at one {@link LostStage}: how many, how many of them ran, and of those how many ran on the killed process and never finished there. */
export interface LostFigures {
  calls: number;
  ran: number;
  ownerKilled: number;
}

interface Outcome {
  key: string;
  stage?: LostStage;
  kind: 'ok' | 'notProcessed' | 'mayHaveRun' | 'other';
  text?: string;
  error?: string;
  progress: number[];
}

/**
 * A round-robin TCP proxy over the live backends (each client connection to the next one that
 * accepts); with `resetsPerSecond` it resets a random open connection that often (RST to the
 * client, the backend's side closed).
 */
async function startResettingProxy(backends: () => Array<{ port: number } | undefined>) {
  let next = 0;
  let resets = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const pairs = new Map<Socket, Socket>();
  const sockets = new Set<Socket>();
  const server = createServer((down) => {
    sockets.add(down);
    down.on('close', () => sockets.delete(down));
    down.on('error', () => undefined);
    const list = backends();
    const tryFrom = (tries: number): void => {
      if (tries >= list.length) return void down.destroy();
      const b = list[next++ % list.length];
      if (!b) return tryFrom(tries + 1);
      const up = connect(b.port, '127.0.0.1');
      let connected = false;
      up.once('connect', () => {
        connected = true;
        sockets.add(up);
        down.pipe(up);
        up.pipe(down);
        pairs.set(down, up);
        down.once('close', () => pairs.delete(down));
      });
      up.on('error', () => {
        if (!connected) return tryFrom(tries + 1);
        down.destroy();
      });
      up.on('close', () => {
        sockets.delete(up);
        down.destroy();
      });
      down.on('close', () => up.destroy());
    };
    tryFrom(0);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    set resetsPerSecond(v: number) {
      clearInterval(timer);
      timer = undefined;
      if (v <= 0) return;
      timer = setInterval(() => {
        const open = [...pairs];
        if (open.length === 0) return;
        const [down, up] = open[Math.floor(Math.random() * open.length)];
        resets++;
        down.resetAndDestroy();
        up.destroy();
      }, 1000 / v);
    },
    get resets() {
      return resets;
    },
    async close() {
      clearInterval(timer);
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

interface Backend {
  proc: ChildProcess;
  port: number;
  exited: Promise<void>;
}

async function startBackend(redisUrl: string, log: string): Promise<Backend> {
  const proc = spawn(process.execPath, ['--import', 'tsx', serveScript, redisUrl, log], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`chaos-serve did not start: ${err}`)), 120_000);
    proc.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
    void exited.then(() => reject(new Error(`chaos-serve exited: ${err}`)));
  });
  return { proc, port: Number(new URL(url).port), exited };
}

/** One session's calls, one after another; its outcomes. */
async function runSession(url: string, prefix: string, o: ChaosOptions, lost: { n: number }): Promise<Outcome[]> {
  let client: Client | undefined;
  for (let attempt = 0; attempt < 5 && !client; attempt++) {
    const c = new Client({ clientInfo: { name: 'chaos', version: '1' } });
    try {
      await c.connect(
        new HttpClientTransport({ url, standaloneStream: false, reconnect: { initialDelayMs: 200, maxRetries: 20 } }),
      );
      client = c;
    } catch {
      await c.close().catch(() => undefined);
      await sleep(300);
    }
  }
  if (!client) {
    lost.n++;
    return [];
  }
  const outcomes: Outcome[] = [];
  for (let i = 0; i < o.calls; i++) {
    const key = `${prefix}.${i}`;
    const progress: number[] = [];
    try {
      const r = await client.callTool(
        { name: 'record', arguments: { key, steps: o.steps, ms: o.stepMs } },
        { onProgress: (p) => void progress.push(p.progress), timeout: o.callTimeoutMs },
      );
      const text = (r.content[0] as { text?: string } | undefined)?.text;
      outcomes.push({ key, kind: 'ok', text, progress });
    } catch (e) {
      const error = `${(e as Error).name}: ${(e as Error).message}`;
      if (e instanceof RequestNotProcessedError)
        outcomes.push({
          key,
          kind: 'notProcessed',
          stage: e.reason === 'refused' ? 'refused' : 'notSent',
          error,
          progress,
        });
      else if (e instanceof ConnectionClosedError || (e instanceof RpcError && e.code === -32000))
        outcomes.push({ key, kind: 'mayHaveRun', stage: stageOf(e), error, progress });
      else outcomes.push({ key, kind: 'other', error, progress });
    }
  }
  await client.close().catch(() => undefined);
  return outcomes;
}

/** The stage of a call that may have run, from its error (see {@link LostStage}). */
function stageOf(e: Error): LostStage {
  const m = e.message;
  if (e instanceof ConnectionClosedError) {
    if (m.includes('cut before the response, re-sends spent')) return 'resendsSpent';
    if (m.startsWith('Connection lost before the response')) return 'beforeResponse';
    if (m.includes('no event ID came')) return 'beforeEventId';
    if (m.includes('could not be re-established')) return 'afterEventId';
    return 'otherMayHaveRun';
  }
  return m.includes('ended before answering') ? 'ownerEnded' : 'otherMayHaveRun';
}

/** What the execution log says of a key: runs, and whether one began on the killed process and never ended. */
interface Executions {
  runs: number;
  killedMidRun: boolean;
}

function figures(outcomes: Outcome[], executions: Map<string, Executions>, o: ChaosOptions, ms: number, lost: number) {
  const f: PhaseFigures = {
    calls: outcomes.length,
    ok: 0,
    notProcessed: 0,
    mayHaveRun: 0,
    mayHaveRunRan: 0,
    mayHaveRunErrors: {},
    other: 0,
    otherErrors: [],
    duplicates: 0,
    crossed: 0,
    contradictions: 0,
    lost: {},
    fullProgress: 0,
    partialProgress: [],
    sessionsLost: lost,
    ms,
  };
  const full = Array.from({ length: o.steps }, (_, i) => i + 1).join(',');
  for (const c of outcomes) {
    const x = executions.get(c.key);
    const ran = x?.runs ?? 0;
    if (ran > 1) f.duplicates++;
    if (c.stage) {
      const l = (f.lost[c.stage] ??= { calls: 0, ran: 0, ownerKilled: 0 });
      l.calls++;
      if (ran > 0) l.ran++;
      if (x?.killedMidRun) l.ownerKilled++;
    }
    if (c.kind === 'ok') {
      f.ok++;
      if (c.text !== `ran ${c.key}`) f.crossed++;
      if (ran !== 1) f.contradictions++;
      if (c.progress.join(',') === full) f.fullProgress++;
      else if (f.partialProgress.length < 10) f.partialProgress.push(`${c.key}: ${c.progress.join(',') || 'none'}`);
    } else if (c.kind === 'notProcessed') {
      f.notProcessed++;
      if (ran !== 0) f.contradictions++;
    } else if (c.kind === 'mayHaveRun') {
      f.mayHaveRun++;
      if (ran > 0) f.mayHaveRunRan++;
      const why = (c.error ?? '').replace(/[0-9]+/g, 'N');
      f.mayHaveRunErrors[why] = (f.mayHaveRunErrors[why] ?? 0) + 1;
    } else {
      f.other++;
      if (f.otherErrors.length < 10)
        f.otherErrors.push(`${c.key} (ran ${ran}x, ${c.progress.length} progress): ${c.error}`);
    }
  }
  return f;
}

/** Runs both phases on a fresh deployment; returns their figures. */
export async function runChaos(
  o: ChaosOptions,
): Promise<{ restart: PhaseFigures; chaos: PhaseFigures; resets: number }> {
  const say = o.log ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-chaos-'));
  const log = join(dir, 'executions.log');
  writeFileSync(log, '');
  let redis: RedisServer | undefined;
  const backends: Array<Backend | undefined> = [];
  let proxy: Awaited<ReturnType<typeof startResettingProxy>> | undefined;
  let killedPid = '';
  const executions = (): Map<string, Executions> => {
    const m = new Map<string, Executions>();
    const open = new Set<string>();
    for (const line of readFileSync(log, 'utf8').split('\n')) {
      const [key, pid, what] = line.split(' ');
      if (!key) continue;
      const x = m.get(key) ?? { runs: 0, killedMidRun: false };
      m.set(key, x);
      if (what === 'start') {
        x.runs++;
        if (pid === killedPid) open.add(key);
      } else if (pid === killedPid) open.delete(key);
    }
    for (const key of open) m.get(key)!.killedMidRun = true;
    return m;
  };
  try {
    redis = await startRedis({ appendOnlyDir: dir });
    const r = redis;
    backends.push(...(await Promise.all([0, 1, 2].map(() => startBackend(r.url, log)))));
    proxy = await startResettingProxy(() => backends);
    const p = proxy;
    say(`deployment: redis ${r.url}, 3 processes, proxy ${p.url}`);

    const phase = async (name: string, faults: () => Promise<void>) => {
      const t0 = Date.now();
      const lost = { n: 0 };
      const runs = Array.from({ length: o.sessions }, (_, s) => runSession(p.url, `${name}.${s}`, o, lost));
      await faults();
      const outcomes = (await Promise.all(runs)).flat();
      return figures(outcomes, executions(), o, Date.now() - t0, lost.n);
    };

    // a Redis restart (kept data), nothing else: the client's retries must lose nothing
    const restart = await phase('restart', async () => {
      await sleep(1500);
      say('redis: restart');
      await r.stop();
      await r.start();
    });
    say(`restart: ${JSON.stringify(restart)}`);

    const chaos = await phase('chaos', async () => {
      p.resetsPerSecond = o.resetsPerSecond;
      await sleep(1500);
      say('process 0: SIGKILL');
      killedPid = String(backends[0]!.proc.pid);
      backends[0]!.proc.kill('SIGKILL');
      await backends[0]!.exited;
      backends[0] = undefined;
      await sleep(1000);
      say(`redis: SIGSTOP ${o.pauseMs} ms`);
      r.pause(true);
      await sleep(o.pauseMs);
      r.pause(false);
      say('redis: SIGCONT');
    });
    p.resetsPerSecond = 0;
    say(`chaos: ${JSON.stringify(chaos)}`);
    return { restart, chaos, resets: p.resets };
  } finally {
    await proxy?.close();
    for (const b of backends) {
      if (!b) continue;
      b.proc.kill('SIGTERM');
      await Promise.race([b.exited, sleep(5000)]);
      b.proc.kill('SIGKILL');
    }
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
