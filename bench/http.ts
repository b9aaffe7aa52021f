/**
 * Streamable HTTP round trips of `tools/call` → echo, each server in its own process:
 * - ours: generated 2025-11-25 Clients on HttpClientTransport ↔ `mcpgen serve --http`
 *   (reference server, one generated Server per session);
 * - sdk: @modelcontextprotocol/sdk Clients on StreamableHTTPClientTransport ↔ an SDK McpServer
 *   per session on StreamableHTTPServerTransport with JSON replies (test/fixtures/sdk-http-server.mjs);
 * - bare: node:http client POSTs (one keep-alive Agent) ↔ a node:http JSON echo
 *   (bench/bare-http-echo.mjs): the limit of node + loopback HTTP (issue #4).
 * Sequential latency (p50, p99) on one session, and throughput of 16 clients (16 sessions)
 * calling in a loop, with the CPU time per call of client and server (Linux); each the median
 * of three rounds, the targets taking turns within a round (the 1-minute load average is printed).
 * Also counted per target: MaxListenersExceededWarning (abort listeners piling up on a signal).
 * Then (Linux) the memory of each server process holding 1,000 idle sessions, ours vs sdk
 * (bench/http-idle.ts).
 * `npm run bench:http [-- --quick]`.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '../generated/2025-11-25/index.js';
import { HttpClientTransport } from '../runtime/transport/http/session/client.js';
import { type Call, compare, median, ratio, sequential, startServer, stopChild } from './measure.js';

const quick = process.argv.includes('--quick');
const SEQ = quick ? 300 : 1500;
const TOTAL = quick ? 3000 : 12000;
const CLIENTS = 16;
const WARMUP = quick ? 300 : 2000;
const ROUNDS = 3;
const root = fileURLToPath(new URL('..', import.meta.url));
const TEXT = 'hello, benchmark';

interface Target {
  name: string;
  /** The server process. */
  pid: number;
  /** One independent client (its own session). */
  client(): Promise<{ call: Call; close(): Promise<void> }>;
  stop(): Promise<void>;
}

async function ours(): Promise<Target> {
  const { url, child } = await startServer([`${root}bin/mcpgen.js`, 'serve', '--http', '0'], root);
  return {
    name: 'ours',
    pid: child.pid!,
    async client() {
      const c = new Client({ clientInfo: { name: 'bench', version: '0' } });
      await c.connect(new HttpClientTransport({ url }));
      return { call: () => c.callTool({ name: 'echo', arguments: { text: TEXT } }), close: () => c.close() };
    },
    stop: () => stopChild(child),
  };
}

async function sdk(): Promise<Target> {
  const { url, child } = await startServer([`${root}test/fixtures/sdk-http-server.mjs`], root);
  return {
    name: 'sdk',
    pid: child.pid!,
    async client() {
      const c = new SdkClient({ name: 'bench', version: '0' });
      const t = new StreamableHTTPClientTransport(new URL(url));
      await c.connect(t);
      return {
        call: () => c.callTool({ name: 'echo', arguments: { text: TEXT } }),
        close: async () => {
          await t.terminateSession().catch(() => undefined);
          await c.close();
        },
      };
    },
    stop: () => stopChild(child),
  };
}

async function bare(): Promise<Target> {
  const { url, child } = await startServer([`${root}bench/bare-http-echo.mjs`], root);
  const { hostname, port, pathname } = new URL(url);
  // one keep-alive pool for all clients, like the fetch dispatcher the other targets share
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const post = (body: string): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const req = request({ agent, hostname, port, path: pathname, method: 'POST', headers: { ...headers, 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          try {
            resolve(JSON.parse(text));
          } catch (e) {
            reject(e);
          }
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    name: 'bare',
    pid: child.pid!,
    async client() {
      let id = 0;
      return {
        call: () => post(JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'echo', arguments: { text: TEXT } } })),
        close: async () => undefined,
      };
    },
    stop: async () => {
      agent.destroy();
      await stopChild(child);
    },
  };
}

async function throughput(calls: Call[], total: number): Promise<number> {
  let started = 0;
  const t = performance.now();
  await Promise.all(calls.map(async (call) => {
    while (started < total) {
      started++;
      await call();
    }
  }));
  return total / ((performance.now() - t) / 1000);
}

// Counted per target instead of printed: a client transport that hands one long-lived signal to
// every fetch collects an abort listener per request (MaxListenersExceededWarning past 1500).
let listenerWarnings = 0;
process.removeAllListeners('warning');
process.on('warning', (w) => {
  if (w.name === 'MaxListenersExceededWarning') listenerWarnings++;
  else console.error(`${w.name}: ${w.message}`);
});

/** CPU time of process `pid` so far (user + system), µs; NaN where /proc is missing. */
function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // clock ticks at USER_HZ 100
  } catch {
    return NaN;
  }
}

// All servers run at once and the rounds alternate between the targets, so that a change of
// the machine's load hits all of them alike; CPU per call (this process + the server) is the
// figure that load disturbs least.
console.log(`http.loadavg1: ${loadavg()[0].toFixed(2)} (${availableParallelism()} cpus)`);
const results: Record<string, { p50: number; p99: number; rps: number }> = {};
const targets = [await bare(), await ours(), await sdk()];
try {
  const runs = [];
  for (const target of targets) {
    listenerWarnings = 0;
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => target.client()));
    const calls = clients.map((c) => c.call);
    await sequential(calls[0], WARMUP);
    await throughput(calls, WARMUP);
    runs.push({ target, clients, calls, warnings: listenerWarnings, seq: [] as { p50: number; p99: number }[], rates: [] as number[], cpu: [] as { client: number; server: number }[] });
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const run of runs) {
      listenerWarnings = 0;
      run.seq.push(await sequential(run.calls[0], SEQ));
      const mine = process.cpuUsage();
      const theirs = cpuOf(run.target.pid);
      run.rates.push(await throughput(run.calls, TOTAL));
      const used = process.cpuUsage(mine);
      run.cpu.push({ client: (used.user + used.system) / TOTAL, server: (cpuOf(run.target.pid) - theirs) / TOTAL });
      run.warnings += listenerWarnings;
    }
  }
  for (const { target, clients, seq, rates, cpu, warnings } of runs) {
    const s = { p50: median(seq.map((x) => x.p50)), p99: median(seq.map((x) => x.p99)) };
    results[target.name] = { ...s, rps: median(rates) };
    const client = median(cpu.map((c) => c.client));
    const server = median(cpu.map((c) => c.server));
    console.log(`http.${target.name}.sequential.p50: ${s.p50.toFixed(1)} us`);
    console.log(`http.${target.name}.sequential.p99: ${s.p99.toFixed(1)} us`);
    console.log(`http.${target.name}.clients${CLIENTS}.throughput: ${Math.round(median(rates))} calls/s`);
    console.log(`http.${target.name}.clients${CLIENTS}.cpu_per_call: ${(client + server).toFixed(1)} us (client ${client.toFixed(1)}, server ${server.toFixed(1)})`);
    console.log(`http.${target.name}.max_listeners_warnings: ${warnings} warnings`);
    await Promise.all(clients.map((c) => c.close()));
  }
} finally {
  await Promise.all(targets.map((t) => t.stop()));
}

compare('http', results as Parameters<typeof compare>[1]);

// Idle sessions: memory per idle session of each server process, ours vs SDK v1 (bench/http-idle.ts,
// also runnable alone).
if (process.platform === 'linux') await (await import('./http-idle.js')).idleSessionFigures();
