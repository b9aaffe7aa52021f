/**
 * Measurement pieces the benchmarks share: latency percentiles of sequential calls, throughput
 * of concurrent calls, medians over rounds, and the printed formats (`name: value unit`,
 * comparisons `name: N.NNx` with above 1 better for mcpgen).
 */

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Whether this bench runs compiled (bench/build.ts's tree, as `npm run bench:*` runs it) or
 * from the TypeScript sources through tsx (`node --import tsx bench/<name>.ts`).
 */
export const COMPILED = import.meta.url.endsWith('.js');
/** The tree the bench runs from, with a trailing slash: the checkout, or its compiled copy (.cache/bench/). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The checkout (its TypeScript sources, e.g. for the runtime's size). */
export const CHECKOUT = COMPILED ? fileURLToPath(new URL('../../../', import.meta.url)) : ROOT;

/** The `node` arguments that run bench/`name` (a TypeScript file of bench/) as the bench itself runs: compiled or through tsx. */
export const benchScript = (name: string): string[] =>
  COMPILED ? [`${ROOT}bench/${name}.js`] : ['--import', 'tsx', `${ROOT}bench/${name}.ts`];

export type Call = () => Promise<unknown>;

/** The p-th percentile (0–100) of an ascending list. */
export const pct = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * CPU time (µs) the threads of process `pid` have run so far, to the nanosecond: the sum of
 * Linux `/proc/<pid>/task/<tid>/schedstat` over its threads (`/proc/<pid>/stat` counts 10 ms
 * ticks, too coarse for a round of a few hundred ms); undefined without Linux /proc.
 */
export function processCpuUs(pid: number | undefined): number | undefined {
  const dir = `/proc/${pid}/task`;
  if (pid === undefined || !existsSync(dir)) return undefined;
  let ns = 0;
  for (const task of readdirSync(dir)) {
    try {
      ns += Number(readFileSync(`${dir}/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1000;
}

/** `n` calls one after another: p50 and p99 latency in µs. */
export async function sequential(call: Call, n: number): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50) * 1000, p99: pct(times, 99) * 1000 };
}

/** `total` calls with `inFlight` running at once: calls per second. */
export async function flood(call: Call, total: number, inFlight: number): Promise<number> {
  let started = 0;
  const t = performance.now();
  const worker = async () => {
    while (started < total) {
      started++;
      await call();
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return total / ((performance.now() - t) / 1000);
}

/**
 * Prints one comparison: `name: N.NNx` (above 1 is better for mcpgen); with `rounds` (the
 * ratio of each round, `v` their median), their spread beside it: `name: N.NNx (rounds
 * N.NN–N.NNx of n)`, so that a reader sees how far the rounds disagree.
 */
export const ratio = (name: string, v: number, rounds?: readonly number[]): void => {
  const spread = rounds?.length
    ? ` (rounds ${Math.min(...rounds).toFixed(2)}–${Math.max(...rounds).toFixed(2)}x of ${rounds.length})`
    : '';
  console.log(`${name}: ${v.toFixed(2)}x${spread}`);
};

/** The CPUs a bench's clients and its servers run on (see {@link pinCpus}). */
export interface Pinning {
  client: number;
  server: number;
}

/**
 * Pins this process (every thread of it: the clients of a bench) to the first CPU it may run
 * on and returns that CPU and the second one, for the servers (`startServer`'s `cpu`), so that
 * each side's CPU time per call is taken on a core of its own and ratios of two targets
 * compare like with like. Linux with `taskset` (util-linux) and at least two CPUs allowed
 * only; undefined (nothing pinned) otherwise.
 */
export function pinCpus(): Pinning | undefined {
  if (process.platform !== 'linux') return undefined;
  const got = spawnSync('taskset', ['-p', '-c', String(process.pid)], { encoding: 'utf8' });
  if (got.status !== 0) return undefined;
  // "pid N's current affinity list: 0-3,6"
  const cpus = (/list:\s*(\S+)/.exec(got.stdout)?.[1] ?? '').split(',').flatMap((part) => {
    const [a, b = a] = part.split('-').map(Number);
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
  if (cpus.length < 2 || !cpus.every(Number.isInteger)) return undefined;
  const pinned = spawnSync('taskset', ['-a', '-p', '-c', String(cpus[0]), String(process.pid)], { stdio: 'ignore' });
  return pinned.status === 0 ? { client: cpus[0], server: cpus[1] } : undefined;
}

export interface Figures {
  p50: number;
  p99: number;
  rps: number;
}

/** The comparisons of ours against the SDK and against the bare limit, under `prefix`. */
export function compare(prefix: string, results: Record<'ours' | 'sdk' | 'bare', Figures>): void {
  const { ours: o, sdk: k, bare: b } = results;
  ratio(`${prefix}.ours_vs_sdk.p50`, k.p50 / o.p50);
  ratio(`${prefix}.ours_vs_sdk.p99`, k.p99 / o.p99);
  ratio(`${prefix}.ours_vs_sdk.throughput`, o.rps / k.rps);
  ratio(`${prefix}.ours_vs_bare_limit.p50`, b.p50 / o.p50);
  ratio(`${prefix}.ours_vs_bare_limit.throughput`, o.rps / b.rps);
}

const live = new Set<ChildProcess>();
let reaping = false;

/**
 * Registers `child` to be killed when this process exits, also on a crash, so that a failing
 * bench leaves no server behind (one would hold the pipes of whoever runs the bench open).
 * Returns `child`.
 */
export function reaped(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!reaping) {
    reaping = true;
    process.once('exit', () => {
      for (const c of live) c.kill();
    });
  }
  return child;
}

/**
 * Spawns `node <args>` in `cwd` and resolves with the first `http://…/mcp` URL it prints (on
 * stdout or stderr); rejects when it exits first. `cpu`: the process runs on that CPU only
 * (`taskset -c`, which execs node: the child's pid is node's; see {@link pinCpus}).
 */
export function startServer(args: string[], cwd: string, cpu?: number): Promise<{ url: string; child: ChildProcess }> {
  const [command, argv] =
    cpu === undefined ? [process.execPath, args] : ['taskset', ['-c', String(cpu), process.execPath, ...args]];
  const child = reaped(spawn(command, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] }));
  return new Promise((resolve, reject) => {
    let seen = '';
    const look = (d: Buffer) => {
      seen += d.toString();
      const m = /(http:\/\/\S+\/mcp)/.exec(seen);
      if (!m) return;
      child.stdout!.off('data', look);
      child.stderr!.off('data', look);
      resolve({ url: m[1], child });
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${seen}`)));
  });
}

/** SIGTERM to a child process; resolves once it exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/**
 * The bare stdio client of the benches (bench/stdio.ts on a child's pipes, bench/stdio-client-frame.ts
 * on in-memory streams): newline JSON parsed from `input` (a readable of UTF-8 lines) and requests
 * `tools/call` → echo `{ text }` written to `output`, requests made in one turn leaving as one
 * write, or earlier once 2 KiB are queued (as bench/bare-echo.mjs and the runtime's stdio
 * transport write). Returns its `call`, which resolves with the answer's result.
 */
export function bareStdioClient(
  input: { setEncoding(e: 'utf8'): unknown; on(event: 'data', f: (chunk: string) => void): unknown },
  output: { write(chunk: string): unknown },
  text: string,
): Call {
  const pending = new Map<number, (v: unknown) => void>();
  let rest = '';
  let next = 0;
  input.setEncoding('utf8');
  input.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      const m = JSON.parse(line) as { id: number; result: unknown };
      pending.get(m.id)?.(m.result);
      pending.delete(m.id);
    }
  });
  let queued = '';
  const flush = () => {
    if (queued) output.write(queued);
    queued = '';
  };
  return () =>
    new Promise((resolve) => {
      const id = next++;
      pending.set(id, resolve);
      if (queued === '') process.nextTick(flush);
      queued += `${JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text } },
      })}\n`;
      if (queued.length >= 2048) flush();
    });
}
