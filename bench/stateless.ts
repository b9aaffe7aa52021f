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
import { type Call, flood, median, ratio, sequential } from './measure.js';

const quick = process.argv.includes('--quick');
const SEQ = quick ? 300 : 1500;
const FLOOD = quick ? 2000 : 8000;
const IN_FLIGHT = 16;
const WARMUP = quick ? 300 : 1500;
const ROUNDS = 3;
const root = fileURLToPath(new URL('..', import.meta.url));
const TEXT = 'hello, benchmark';


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
  await flood(client.call, WARMUP, IN_FLIGHT);
  const p50s: number[] = [];
  const rates: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    p50s.push((await sequential(client.call, SEQ)).p50);
    rates.push(await flood(client.call, FLOOD, IN_FLIGHT));
  }
  res[name] = { p50: median(p50s), rps: median(rates) };
  console.log(`stateless.${name}.p50: ${res[name].p50.toFixed(0)} µs`);
  console.log(`stateless.${name}.rps: ${res[name].rps.toFixed(0)} req/s`);
  await client.close();
  child.kill();
}
ratio('stateless.rps_vs_sdk', res.ours.rps / res.sdk.rps);
ratio('stateless.p50_vs_sdk', res.sdk.p50 / res.ours.p50);
ratio('stateless.server_rps_vs_sdk', res.sdk_client_ours_server.rps / res.sdk.rps);
ratio('stateless.client_rps_vs_sdk', res.ours_client_sdk_server.rps / res.sdk.rps);
ratio('stateless.server_same_adapter_rps_vs_sdk', res.ours_fetch_adapter.rps / res.ours_client_sdk_server.rps);
