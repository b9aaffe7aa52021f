/**
 * stdio round trips of `tools/call` → echo, child process per pair:
 * - ours: the generated 2025-11-25 Client on the runtime stdio transport ↔ `mcpgen serve --stdio`;
 * - sdk: @modelcontextprotocol/sdk Client ↔ an SDK McpServer (test/fixtures/sdk-server.mjs);
 * - bare: newline JSON written and parsed in this process ↔ bench/bare-echo.mjs (JSON.parse and
 *   JSON.stringify only): the limit of node + pipes. Both of its ends write what one turn of the
 *   event loop produced as one write, and earlier once 2 KiB are queued, as the runtime's stdio
 *   transport does (so both processes work at once).
 * Sequential latency (p50, p99) and throughput with 64 requests in flight, each the median of
 * five rounds (three with --quick), the pairs' rounds interleaved (the figures move with
 * machine load: the 1-minute load average is printed). Within a round bare and ours are
 * measured twice each, in the order A B B A, and each keeps its measurement with the higher
 * throughput (load only slows a measurement down; a burst of it then spoils one of the two).
 * With 64 in flight it also prints the CPU time per call of each process (client: this
 * process, `process.cpuUsage`; server: the child's threads, Linux `/proc/<pid>/task/*\/schedstat`):
 * unlike throughput, it hardly moves with the load other processes put on the machine; and the
 * write and read system calls per call of each (Linux `/proc/<pid>/io`; writes: 1 without
 * write coalescing).
 * Each comparison (`stdio.ours_vs_*`) is the median of the ratios made within each round (the
 * pairs measured back to back under the same load), not a ratio of medians taken at different
 * times; the ratios of every round are listed on a `# stdio.rounds` line after them.
 * `npm run bench:stdio [-- --quick]`.
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import ts from 'typescript';
import { availableParallelism, loadavg } from 'node:os';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client } from '../generated/2025-11-25/index.js';
import { StdioClientTransport } from '../runtime/transport/stdio.js';
import {
  bareStdioClient,
  type Call,
  CHECKOUT,
  flood,
  median,
  processCpuUs,
  ROOT,
  ratio,
  sequential,
} from './measure.js';

const quick = process.argv.includes('--quick');
const SEQ = quick ? 500 : 2000;
const FLOOD = quick ? 5000 : 20000;
const IN_FLIGHT = 64;
const WARMUP = quick ? 500 : 5000;
const root = ROOT;
const TEXT = 'hello, benchmark';

interface Pair {
  name: string;
  call: Call;
  /** The server process. */
  pid: number | undefined;
  close(): Promise<void>;
}

async function ours(): Promise<Pair> {
  const client = new Client({ clientInfo: { name: 'bench', version: '0' } });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [`${root}bin/mcpgen.js`, 'serve', '--stdio'],
    cwd: root,
  });
  await client.connect(transport);
  return {
    name: 'ours',
    pid: transport.pid,
    call: () => client.callTool({ name: 'echo', arguments: { text: TEXT } }),
    close: () => client.close(),
  };
}

async function sdk(): Promise<Pair> {
  const client = new SdkClient({ name: 'bench', version: '0' });
  const transport = new SdkStdioClientTransport({
    command: process.execPath,
    args: [`${root}test/fixtures/sdk-server.mjs`],
    cwd: root,
  });
  await client.connect(transport);
  return {
    name: 'sdk',
    pid: transport.pid ?? undefined,
    call: () => client.callTool({ name: 'echo', arguments: { text: TEXT } }),
    close: () => client.close(),
  };
}

async function bare(): Promise<Pair> {
  const child = spawn(process.execPath, [`${root}bench/bare-echo.mjs`], { stdio: ['pipe', 'pipe', 'inherit'] });
  return {
    name: 'bare',
    pid: child.pid,
    call: bareStdioClient(child.stdout, child.stdin, TEXT),
    close: async () => {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
    },
  };
}

const selfCpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** Read and write system calls process `pid` has made so far; undefined without Linux /proc. */
function processIo(pid: number | undefined): { reads: number; writes: number } | undefined {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    return { reads: Number(/^syscr: (\d+)$/m.exec(io)?.[1]), writes: Number(/^syscw: (\d+)$/m.exec(io)?.[1]) };
  } catch {
    return undefined;
  }
}

const ROUNDS = quick ? 3 : 5;

/** One measurement of a pair: sequential latency, then a flood with its CPU and system calls per call. */
interface Sample {
  seq: { p50: number; p99: number };
  rate: number;
  clientCpu: number;
  serverCpu: number | undefined;
  /** Per call, of this process (the client) and of the server: undefined without /proc. */
  clientIo: { reads: number; writes: number } | undefined;
  serverIo: { reads: number; writes: number } | undefined;
}

interface Samples {
  seq: { p50: number; p99: number }[];
  rates: number[];
  clientCpu: number[];
  serverCpu: number[];
  clientWrites: number[];
  serverWrites: number[];
  clientReads: number[];
  serverReads: number[];
}

const perCall = (
  a: { reads: number; writes: number } | undefined,
  b: { reads: number; writes: number } | undefined,
): { reads: number; writes: number } | undefined =>
  a && b ? { reads: (b.reads - a.reads) / FLOOD, writes: (b.writes - a.writes) / FLOOD } : undefined;

async function measure(pair: Pair): Promise<Sample> {
  const seq = await sequential(pair.call, SEQ);
  const c0 = selfCpuUs();
  const s0 = processCpuUs(pair.pid);
  const io0 = [processIo(process.pid), processIo(pair.pid)];
  const rate = await flood(pair.call, FLOOD, IN_FLIGHT);
  const clientCpu = (selfCpuUs() - c0) / FLOOD;
  const s1 = processCpuUs(pair.pid);
  const io1 = [processIo(process.pid), processIo(pair.pid)];
  return {
    seq,
    rate,
    clientCpu,
    serverCpu: s0 !== undefined && s1 !== undefined ? (s1 - s0) / FLOOD : undefined,
    clientIo: perCall(io0[0], io1[0]),
    serverIo: perCall(io0[1], io1[1]),
  };
}

function record(x: Samples, s: Sample): void {
  x.seq.push(s.seq);
  x.rates.push(s.rate);
  x.clientCpu.push(s.clientCpu);
  if (s.serverCpu !== undefined) x.serverCpu.push(s.serverCpu);
  if (s.clientIo) {
    x.clientWrites.push(s.clientIo.writes);
    x.clientReads.push(s.clientIo.reads);
  }
  if (s.serverIo) {
    x.serverWrites.push(s.serverIo.writes);
    x.serverReads.push(s.serverIo.reads);
  }
}

console.log(`stdio.loadavg1: ${loadavg()[0].toFixed(2)} (${availableParallelism()} cpus)`);
// All pairs run side by side and the rounds interleave (bare, ours, sdk, bare, ...): a change in
// machine load then lands on every pair alike instead of on whichever ran at the time.
const pairs: Pair[] = [];
for (const make of [bare, ours, sdk]) pairs.push(await make());
const samples = new Map<Pair, Samples>();
for (const pair of pairs) {
  await sequential(pair.call, WARMUP);
  await flood(pair.call, WARMUP, IN_FLIGHT);
  samples.set(pair, {
    seq: [],
    rates: [],
    clientCpu: [],
    serverCpu: [],
    clientWrites: [],
    serverWrites: [],
    clientReads: [],
    serverReads: [],
  });
}
for (let r = 0; r < ROUNDS; r++) {
  // bare and ours measured twice each in the order A B B A (A alternating from round to round),
  // and each keeps the measurement with the higher throughput: other processes' load only ever
  // slows a measurement down, and a burst of it lands on one of the two, not on both (with one
  // measurement each, a round's ratio read 0.5 or 1.6 whenever a burst hit one pair)
  const [a, b] = r % 2 ? [pairs[1], pairs[0]] : [pairs[0], pairs[1]];
  const best = new Map<Pair, Sample>();
  for (const pair of [a, b, b, a]) {
    const s = await measure(pair);
    const kept = best.get(pair);
    if (!kept || s.rate > kept.rate) best.set(pair, s);
  }
  for (const [pair, s] of best) record(samples.get(pair)!, s);
  record(samples.get(pairs[2])!, await measure(pairs[2]));
}
const line = (name: string, xs: number[], digits: number, unit: string) => {
  if (xs.length) console.log(`stdio.${name}: ${median(xs).toFixed(digits)} ${unit}`);
};
for (const pair of pairs) {
  const x = samples.get(pair)!;
  line(
    `${pair.name}.sequential.p50`,
    x.seq.map((v) => v.p50),
    1,
    'us',
  );
  line(
    `${pair.name}.sequential.p99`,
    x.seq.map((v) => v.p99),
    1,
    'us',
  );
  line(`${pair.name}.inflight${IN_FLIGHT}.throughput`, x.rates, 0, 'calls/s');
  line(`${pair.name}.inflight${IN_FLIGHT}.client_cpu`, x.clientCpu, 2, 'us/call');
  line(`${pair.name}.inflight${IN_FLIGHT}.server_cpu`, x.serverCpu, 2, 'us/call');
  line(`${pair.name}.inflight${IN_FLIGHT}.client_writes`, x.clientWrites, 3, 'syscalls/call');
  line(`${pair.name}.inflight${IN_FLIGHT}.server_writes`, x.serverWrites, 3, 'syscalls/call');
  line(`${pair.name}.inflight${IN_FLIGHT}.client_reads`, x.clientReads, 3, 'syscalls/call');
  line(`${pair.name}.inflight${IN_FLIGHT}.server_reads`, x.serverReads, 3, 'syscalls/call');
}
for (const pair of pairs) await pair.close();

/**
 * The comparisons (above 1: ours is better), each the median over rounds of the ratio made
 * within the round: `of(x, r)` is a pair's figure in round r (undefined: not measured).
 */
const [bareS, oursS, sdkS] = pairs.map((p) => samples.get(p)!);
const comparisons: [string, Samples, Samples, (x: Samples, r: number) => number | undefined][] = [
  ['ours_vs_sdk.p50', sdkS, oursS, (x, r) => x.seq[r].p50],
  ['ours_vs_sdk.p99', sdkS, oursS, (x, r) => x.seq[r].p99],
  ['ours_vs_sdk.throughput', oursS, sdkS, (x, r) => x.rates[r]],
  ['ours_vs_bare_limit.p50', bareS, oursS, (x, r) => x.seq[r].p50],
  ['ours_vs_bare_limit.throughput', oursS, bareS, (x, r) => x.rates[r]],
  // CPU per call against the write-batching bare pair, each side and both
  ['ours_vs_bare_limit.client_cpu_per_call', bareS, oursS, (x, r) => x.clientCpu[r]],
  ['ours_vs_bare_limit.server_cpu_per_call', bareS, oursS, (x, r) => x.serverCpu[r]],
  [
    'ours_vs_bare_limit.cpu_per_call',
    bareS,
    oursS,
    (x, r) => (x.serverCpu[r] === undefined ? undefined : x.clientCpu[r] + x.serverCpu[r]),
  ],
];
const perRound: string[] = [];
for (const [name, num, den, of] of comparisons) {
  const rs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const a = of(num, r);
    const b = of(den, r);
    if (a !== undefined && b !== undefined && b > 0) rs.push(a / b);
  }
  if (!rs.length) continue;
  ratio(`stdio.${name}`, median(rs));
  perRound.push(`${name} ${rs.map((v) => v.toFixed(2)).join(' ')}`);
}
console.log(`# stdio.rounds (each round's ratio): ${perRound.join('; ')}`);

// The built runtime: every runtime module compiled to JavaScript (what a package ships).
const runtimeDir = `${CHECKOUT}runtime/`;
let built = '';
for (const f of readdirSync(runtimeDir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .sort()) {
  built += ts.transpileModule(readFileSync(join(runtimeDir, f), 'utf8'), {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, removeComments: true },
  }).outputText;
}
console.log(`runtime.built.size: ${Buffer.byteLength(built)} bytes`);
console.log(`runtime.built.gzip: ${gzipSync(built).length} bytes`);
