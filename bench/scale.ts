/**
 * Several processes (issue 16): tools/call throughput and latency with the memory stores vs the
 * Redis stores, one process vs three behind a round-robin proxy on 127.0.0.1, side by side in one
 * run; then the heap each idle session costs with each store.
 *
 * Deployments (all `mcpgen serve --rev 2025-11-25 --http 0`, real processes): `memory_1` one
 * process; `redis_1` one process with `--redis`; `memory_3` three processes, the proxy sticky
 * by session (memory sessions cannot move); `redis_3` three processes with `--redis`, every
 * request to the next process. Load: CLIENTS sessions, each calling `echo` CALLS times in a row
 * (JSON replies), after 100 warm-up calls each. Printed (`name: value unit`): throughput (calls/s), p50 and p99 (ms) per
 * deployment; comparisons `name: N.NNx`. Heap: a child process (`--expose-gc`) serves in
 * process with each store, opens IDLE sessions (initialize + initialized), and reports V8
 * heap-used growth per session after full collections; with Redis the session's record is in
 * Redis (its size there is printed too, from `MEMORY USAGE`).
 *
 * Request replay's cost on `serve --redis` (one process, `--request-replay on` vs `off`: with it
 * every request is claimed in Redis before it runs and answered as SSE; without, JSON): both
 * processes run side by side, loaded in turn for ROUNDS paired rounds; printed per deployment
 * the median throughput and the serve process's CPU per call (µs, from /proc schedstat), and the
 * ratios on/off of each round's pair, their median as `scale_replay_*: N.NNx`.
 *
 * `npm run bench:scale [-- --calls N --clients N --idle N --rounds N --only replay]`; needs
 * `redis-server` on PATH. The
 * long SIGKILL run (3000 calls, test/scale/deployment.test.ts) is `npm run bench:scale-kill`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median, pct, processCpuUs, ratio } from './measure.js';
import { startHttpServeProcess, type Served } from '../test/runtime/tasks/serve-process.js';
import { startProxy, startRedis, TestSession, V } from '../test/scale/support.js';

const { values } = parseArgs({
  options: {
    calls: { type: 'string' },
    clients: { type: 'string' },
    idle: { type: 'string' },
    rounds: { type: 'string' },
    only: { type: 'string' },
  },
});
const ROUNDS = Number(values.rounds ?? 3);
const CALLS = Number(values.calls ?? 300);
const CLIENTS = Number(values.clients ?? 8);
const IDLE = Number(values.idle ?? 1000);
const root = fileURLToPath(new URL('..', import.meta.url));

interface Run {
  throughput: number;
  p50: number;
  p99: number;
}

async function load(url: string): Promise<Run> {
  const sessions = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const s = new TestSession(url);
      await s.initialize();
      return s;
    }),
  );
  // warm-up
  await Promise.all(
    sessions.map(async (s) => {
      for (let i = 0; i < 100; i++) await s.request('tools/call', { name: 'echo', arguments: { text: 'warm' } });
    }),
  );
  const latencies: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    sessions.map(async (s) => {
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now();
        const ex = await s.request('tools/call', { name: 'echo', arguments: { text: `m${i}` } });
        if (!ex.response || !('result' in ex.response))
          throw new Error(`call failed: ${ex.status} ${JSON.stringify(ex.response)}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  await Promise.all(sessions.map((s) => s.close()));
  latencies.sort((a, b) => a - b);
  return { throughput: latencies.length / wall, p50: pct(latencies, 50), p99: pct(latencies, 99) };
}

/** {@link load} on the process `served`, with the CPU it used per call (µs). */
async function loadWithCpu(served: Served): Promise<Run & { cpuPerCall: number }> {
  const pid = served.proc.pid;
  const before = processCpuUs(pid);
  const run = await load(served.url);
  const after = processCpuUs(pid);
  // the warm-up calls are counted too: CPU is read around the whole load
  const calls = CLIENTS * (CALLS + 100);
  return { ...run, cpuPerCall: before === undefined || after === undefined ? Number.NaN : (after - before) / calls };
}

/** Request replay on vs off on `serve --redis` (see the module docs), paired rounds. */
async function replayCost(redisUrl: string): Promise<void> {
  const [on, off] = await Promise.all([
    startHttpServeProcess(['--rev', V, '--redis', redisUrl, '--request-replay', 'on']),
    startHttpServeProcess(['--rev', V, '--redis', redisUrl, '--request-replay', 'off']),
  ]);
  try {
    const runs: { on: Run & { cpuPerCall: number }; off: Run & { cpuPerCall: number } }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      // alternate which goes first, so that a drift of the machine's load falls on both
      const first = r % 2 === 0 ? await loadWithCpu(on) : await loadWithCpu(off);
      const second = r % 2 === 0 ? await loadWithCpu(off) : await loadWithCpu(on);
      runs.push(r % 2 === 0 ? { on: first, off: second } : { on: second, off: first });
    }
    for (const side of ['on', 'off'] as const) {
      console.log(`scale_replay_${side}_throughput: ${median(runs.map((x) => x[side].throughput)).toFixed(0)} calls/s`);
      console.log(`scale_replay_${side}_cpu_per_call: ${median(runs.map((x) => x[side].cpuPerCall)).toFixed(0)} us`);
      console.log(`scale_replay_${side}_p50: ${median(runs.map((x) => x[side].p50)).toFixed(2)} ms`);
    }
    runs.forEach((x, i) => {
      ratio(`scale_replay_throughput_on_vs_off_round${i + 1}`, x.on.throughput / x.off.throughput);
      ratio(`scale_replay_cpu_per_call_on_vs_off_round${i + 1}`, x.on.cpuPerCall / x.off.cpuPerCall);
    });
    ratio('scale_replay_throughput_on_vs_off', median(runs.map((x) => x.on.throughput / x.off.throughput)));
    ratio('scale_replay_cpu_per_call_on_vs_off', median(runs.map((x) => x.on.cpuPerCall / x.off.cpuPerCall)));
  } finally {
    await Promise.all([on.stop(), off.stop()]);
  }
}

async function deployment(name: string, processes: number, redisUrl: string | undefined): Promise<Run> {
  const args = ['--rev', V, ...(redisUrl ? ['--redis', redisUrl] : [])];
  const serves: Served[] = await Promise.all(Array.from({ length: processes }, () => startHttpServeProcess(args)));
  const proxy =
    processes > 1
      ? await startProxy(
          serves.map((s) => s.url),
          { sticky: !redisUrl },
        )
      : undefined;
  try {
    const run = await load(proxy?.url ?? serves[0].url);
    console.log(`scale_${name}_throughput: ${run.throughput.toFixed(0)} calls/s`);
    console.log(`scale_${name}_p50: ${run.p50.toFixed(2)} ms`);
    console.log(`scale_${name}_p99: ${run.p99.toFixed(2)} ms`);
    return run;
  } finally {
    await proxy?.close();
    await Promise.all(serves.map((s) => s.stop()));
  }
}

/** Heap per idle session with one store, measured in a child process with `--expose-gc`. */
function idleHeap(
  store: 'memory' | 'redis',
  redisUrl: string,
): Promise<{ heapPerSession: number; redisPerSession?: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'bench/scale-idle.ts', store, redisUrl, String(IDLE)],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`scale-idle ${store} exited ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!));
    });
  });
}

const redis = await startRedis();
try {
  console.log(`scale: ${CLIENTS} sessions × ${CALLS} tools/call each, per deployment`);
  if (values.only !== undefined && values.only !== 'replay')
    throw new Error(`--only: replay is the one part, got ${values.only}`);
  await replayCost(redis.url);
  if (values.only !== 'replay') {
    const memory1 = await deployment('memory_1', 1, undefined);
    const redis1 = await deployment('redis_1', 1, redis.url);
    const memory3 = await deployment('memory_3', 3, undefined);
    const redis3 = await deployment('redis_3', 3, redis.url);
    ratio('scale_throughput_redis_1_vs_memory_1', redis1.throughput / memory1.throughput);
    ratio('scale_throughput_memory_3_vs_memory_1', memory3.throughput / memory1.throughput);
    ratio('scale_throughput_redis_3_vs_redis_1', redis3.throughput / redis1.throughput);
    ratio('scale_throughput_redis_3_vs_memory_3', redis3.throughput / memory3.throughput);
    ratio('scale_p99_redis_3_vs_memory_3', redis3.p99 / memory3.p99);
    for (const store of ['memory', 'redis'] as const) {
      const f = await idleHeap(store, redis.url);
      console.log(`scale_idle_heap_${store}: ${f.heapPerSession.toFixed(0)} bytes/session`);
      if (f.redisPerSession !== undefined)
        console.log(`scale_idle_redis_memory: ${f.redisPerSession.toFixed(0)} bytes/session`);
    }
  }
} finally {
  await redis.stop();
}
