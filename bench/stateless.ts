/**
 * Stateless (2026-07-28) `tools/call` → echo over Streamable HTTP on 127.0.0.1, server in a
 * child process (bench/stateless-server.ts), client in this one:
 * - ours: the generated draft Client on StatelessHttpClientTransport ↔ createStatelessHttpHandler;
 * - sdk: @modelcontextprotocol/client@2.4.0 (pinned to 2026-07-28) ↔ @modelcontextprotocol/server
 *   createMcpHandler behind a node:http → fetch adapter;
 * - cross pairs (our client ↔ SDK server, SDK client ↔ our server) and our handler behind the
 *   same adapter (`ours-fetch`) to tell client, server and adapter costs apart;
 * - bare: node:http POSTs on a keep-alive Agent ↔ a node:http JSON echo (no MCP): the limit of
 *   node + loopback HTTP, as in bench:http.
 * Sequential latency (p50, p99, µs) and throughput with 16 requests in flight (req/s), each the
 * median of three rounds, plus the server process's CPU time per call (user + system µs over
 * the throughput rounds, read from the child by IPC): the server's own cost, which the
 * throughput of a pair hides when its client is the slower side (`server_cpu_per_call_vs_sdk`
 * compares both servers under the same SDK client; the bare server's figure is under its own
 * node:http client, and a server's CPU per call grows as its request rate falls: each request
 * then pays its own wake-up). Then `server_only`: one node:http client (keep-alive Agent, 16
 * in flight) posts the same draft `tools/call` (headers and `_meta` as the SDK client sends
 * them) to our server, the SDK's and the bare echo: the servers side by side with the client's
 * cost taken out. Ratios are ours/sdk for throughput and sdk/ours for latency and CPU: higher is
 * better for us; `ours_vs_bare_limit` is ours against the bare pair. The 1-minute load average is printed first (figures from a
 * loaded machine move; compare ratios within one run). `npm run bench:stateless [-- --quick]`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { Client as SdkClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client } from '../generated/draft/index.js';
import { StatelessHttpClientTransport } from '../runtime/transport/http/stateless/node-client.js';
import { benchScript, type Call, compare, flood, median, ROOT, ratio, reaped, sequential } from './measure.js';

const quick = process.argv.includes('--quick');
const SEQ = quick ? 300 : 1500;
const FLOOD = quick ? 2000 : 8000;
const IN_FLIGHT = 16;
const WARMUP = quick ? 300 : 1500;
const ROUNDS = 3;
const root = ROOT;
const TEXT = 'hello, benchmark';

async function startServer(kind: string): Promise<{ url: string; child: ChildProcess }> {
  const child = reaped(
    spawn(process.execPath, [...benchScript('stateless-server'), kind], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    }),
  );
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

/** The server child's CPU time so far (user + system), µs. */
function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (u: { user: number; system: number }) => resolve(u.user + u.system));
    child.send('cpu');
  });
}

const DRAFT_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const DRAFT_HEADERS = { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo' };

/**
 * node:http POSTs of a `tools/call` on one keep-alive Agent (as many sockets as calls in
 * flight); `draft`: with the `_meta` and headers of the 2026-07-28 revision, and a call fails
 * unless the answer is a JSON result.
 */
function rawClient(draft: boolean) {
  return async (url: string): Promise<{ call: Call; close(): Promise<void> }> => {
    const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    let id = 0;
    const call = () =>
      new Promise<unknown>((resolve, reject) => {
        const params = { name: 'echo', arguments: { text: TEXT }, ...(draft ? { _meta: DRAFT_META } : {}) };
        const body = JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params });
        const headers = {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Content-Length': Buffer.byteLength(body),
          ...(draft ? DRAFT_HEADERS : {}),
        };
        const req = request(url, { method: 'POST', agent, headers }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => {
            const answer = JSON.parse(text);
            if (answer.result === undefined) reject(new Error(`HTTP ${res.statusCode}: ${text}`));
            else resolve(answer);
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });
    return { call, close: async () => agent.destroy() };
  };
}
const bareClient = rawClient(false);

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
  ['bare', 'bare', bareClient],
  ['server_only.ours', 'ours', rawClient(true)],
  ['server_only.sdk', 'sdk', rawClient(true)],
];

console.log(`stateless.loadavg1: ${loadavg()[0].toFixed(2)} (${availableParallelism()} cpus)`);
const res: Record<string, { p50: number; p99: number; rps: number; cpu: number }> = {};
for (const [name, kind, make] of pairs) {
  const { url, child } = await startServer(kind);
  const client = await make(url);
  await sequential(client.call, WARMUP);
  await flood(client.call, WARMUP, IN_FLIGHT);
  const seq: Array<{ p50: number; p99: number }> = [];
  const rates: number[] = [];
  let cpu = 0;
  for (let r = 0; r < ROUNDS; r++) {
    seq.push(await sequential(client.call, SEQ));
    const before = await cpuOf(child);
    rates.push(await flood(client.call, FLOOD, IN_FLIGHT));
    cpu += (await cpuOf(child)) - before;
  }
  res[name] = {
    p50: median(seq.map((x) => x.p50)),
    p99: median(seq.map((x) => x.p99)),
    rps: median(rates),
    cpu: cpu / (ROUNDS * FLOOD),
  };
  console.log(`stateless.${name}.p50: ${res[name].p50.toFixed(0)} µs`);
  console.log(`stateless.${name}.p99: ${res[name].p99.toFixed(0)} µs`);
  console.log(`stateless.${name}.rps: ${res[name].rps.toFixed(0)} req/s`);
  console.log(`stateless.${name}.server_cpu_per_call: ${res[name].cpu.toFixed(1)} µs`);
  await client.close();
  child.kill();
}
console.log(`stateless.loadavg1_end: ${loadavg()[0].toFixed(2)}`);
compare('stateless', { ours: res.ours, sdk: res.sdk, bare: res.bare });
ratio('stateless.server_rps_vs_sdk', res.sdk_client_ours_server.rps / res.sdk.rps);
ratio('stateless.server_cpu_per_call_vs_sdk', res.sdk.cpu / res.sdk_client_ours_server.cpu);
ratio('stateless.server_cpu_per_call_vs_bare_limit', res.bare.cpu / res.sdk_client_ours_server.cpu);
ratio('stateless.client_rps_vs_sdk', res.ours_client_sdk_server.rps / res.sdk.rps);
ratio('stateless.server_same_adapter_rps_vs_sdk', res.ours_fetch_adapter.rps / res.ours_client_sdk_server.rps);
const only = { ours: res['server_only.ours'], sdk: res['server_only.sdk'] };
ratio('stateless.server_only.ours_vs_sdk.throughput', only.ours.rps / only.sdk.rps);
ratio('stateless.server_only.ours_vs_sdk.p50', only.sdk.p50 / only.ours.p50);
ratio('stateless.server_only.ours_vs_sdk.cpu_per_call', only.sdk.cpu / only.ours.cpu);
ratio('stateless.server_only.ours_vs_bare_limit.throughput', only.ours.rps / res.bare.rps);
ratio('stateless.server_only.ours_vs_bare_limit.cpu_per_call', res.bare.cpu / only.ours.cpu);
