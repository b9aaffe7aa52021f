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
 * `npm run bench:scale [-- --calls N --clients N --idle N]`; needs `redis-server` on PATH. The
 * long SIGKILL run (3000 calls, test/scale/deployment.test.ts) is `npm run bench:scale-kill`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pct, ratio } from './measure.js';
import { startHttpServeProcess, type Served } from '../test/runtime/tasks/serve-process.js';
import { startProxy, startRedis, TestSession, V } from '../test/scale/support.js';

const { values } = parseArgs({
  options: { calls: { type: 'string' }, clients: { type: 'string' }, idle: { type: 'string' } },
});
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
} finally {
  await redis.stop();
}
