/**
 * Stateless (2026-07-28) `tools/call` → echo over Streamable HTTP on 127.0.0.1, server in a
 * child process (bench/stateless-server.ts), client in this one:
 * - ours: the generated draft Client on StatelessHttpClientTransport ↔ createStatelessHttpHandler;
 * - sdk: @modelcontextprotocol/client@2.4.0 (pinned to 2026-07-28) ↔ @modelcontextprotocol/server
 *   createMcpHandler behind a node:http → fetch adapter;
 * - cross pairs (our client ↔ SDK server, SDK client ↔ our server) and our handler behind the
 *   same adapter (`ours-fetch`) to tell client, server and adapter costs apart.
 * Sequential latency (p50, µs) and throughput with 16 requests in flight (req/s), each the
 * median of three rounds. Ratios are ours/sdk for throughput and sdk/ours for latency: higher
 * is better for us. `npm run bench:stateless [-- --quick]`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Client as SdkClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client } from '../generated/draft/index.js';
import { StatelessHttpClientTransport } from '../runtime/transport/http-stateless-client.js';

const quick = process.argv.includes('--quick');
const SEQ = quick ? 300 : 1500;
const FLOOD = quick ? 2000 : 8000;
const IN_FLIGHT = 16;
const WARMUP = quick ? 300 : 1500;
const ROUNDS = 3;
const root = fileURLToPath(new URL('..', import.meta.url));
const TEXT = 'hello, benchmark';

type Call = () => Promise<unknown>;

async function startServer(kind: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', `${root}bench/stateless-server.ts`, kind], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /port: (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

async function ourClient(url: string): Promise<{ call: Call; close(): Promise<void> }> {
  const c = new Client({ clientInfo: { name: 'bench', version: '0' } });
  await c.connect(new StatelessHttpClientTransport({ url }));
  return { call: () => c.callTool({ name: 'echo', arguments: { text: TEXT } }), close: () => c.close() };
}

async function sdkClient(url: string): Promise<{ call: Call; close(): Promise<void> }> {
  const c = new SdkClient({ name: 'bench', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { call: () => c.callTool({ name: 'echo', arguments: { text: TEXT } }), close: () => c.close() };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function sequential(call: Call, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return pct(times, 50) * 1000;
}

async function flood(call: Call, total: number): Promise<number> {
  let started = 0;
  const t = performance.now();
  const worker = async () => {
    while (started < total) {
      started++;
      await call();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return total / ((performance.now() - t) / 1000);
}

const pairs: Array<[name: string, server: string, client: typeof ourClient]> = [
  ['ours', 'ours', ourClient],
  ['sdk', 'sdk', sdkClient],
  ['ours_client_sdk_server', 'sdk', ourClient],
  ['sdk_client_ours_server', 'ours', sdkClient],
  ['ours_fetch_adapter', 'ours-fetch', ourClient],
];

console.log(`stateless.loadavg1: ${loadavg()[0].toFixed(2)} (${availableParallelism()} cpus)`);
const res: Record<string, { p50: number; rps: number }> = {};
for (const [name, kind, make] of pairs) {
  const { url, child } = await startServer(kind);
  const client = await make(url);
  await sequential(client.call, WARMUP);
  await flood(client.call, WARMUP);
  const p50s: number[] = [];
  const rates: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    p50s.push(await sequential(client.call, SEQ));
    rates.push(await flood(client.call, FLOOD));
  }
  res[name] = { p50: median(p50s), rps: median(rates) };
  console.log(`stateless.${name}.p50: ${res[name].p50.toFixed(0)} µs`);
  console.log(`stateless.${name}.rps: ${res[name].rps.toFixed(0)} req/s`);
  await client.close();
  child.kill();
}
const x = (v: number) => `${v.toFixed(2)}x`;
console.log(`stateless.rps_vs_sdk: ${x(res.ours.rps / res.sdk.rps)}`);
console.log(`stateless.p50_vs_sdk: ${x(res.sdk.p50 / res.ours.p50)}`);
console.log(`stateless.server_rps_vs_sdk: ${x(res.sdk_client_ours_server.rps / res.sdk.rps)}`);
console.log(`stateless.client_rps_vs_sdk: ${x(res.ours_client_sdk_server.rps / res.sdk.rps)}`);
console.log(`stateless.server_same_adapter_rps_vs_sdk: ${x(res.ours_fetch_adapter.rps / res.ours_client_sdk_server.rps)}`);
