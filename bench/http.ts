// size: a benchmark script: its scenarios side by side
/**
 * Streamable HTTP round trips of `tools/call` → echo, each server in its own process:
 * - ours: generated 2025-11-25 Clients on HttpClientTransport ↔ `mcpgen serve --http`
 *   (reference server, one generated Server per session);
 * - sdk: @modelcontextprotocol/sdk Clients on StreamableHTTPClientTransport ↔ an SDK McpServer
 *   per session on StreamableHTTPServerTransport with JSON replies (test/fixtures/sdk-http-server.mjs);
 * - bare: node:http client POSTs (one keep-alive Agent) ↔ a node:http JSON echo
 *   (bench/bare-http-echo.mjs): the limit of node + loopback HTTP (issue #4);
 * - json.bare_client_ours_server, json.ours_client_bare_server: each side of ours against the
 *   bare other side;
 * - sse.*: the same four pairs with SSE replies (`serve --reply sse`, bare-http-echo.mjs --sse
 *   writing one event per reply; issue #19), with `cpu_cost` ratios (ours over bare, CPU per call).
 *   `sse_over_json`: a server's CPU per call with SSE replies beyond its JSON replies, ours and
 *   bare; `sse_vs_json`: how much farther our server is from the bare one with SSE replies than
 *   with JSON replies;
 * - json.sdk2, sse.sdk2: @modelcontextprotocol/client 2.4.0 (legacy negotiation: initialize) ↔
 *   an @modelcontextprotocol/server 2.4.0 McpServer per session on
 *   WebStandardStreamableHTTPServerTransport (bench/sdk2-http-server.mjs, JSON replies or --sse);
 * - stateless.{json,sse}.*: the stateless era (2026-07-28): the generated draft Client on
 *   StatelessHttpClientTransport ↔ createStatelessHttpHandler (bench/stateless-server.ts, `ours`
 *   / `ours-sse`), the bare client (draft `_meta` and headers, no handshake) ↔ bare-http-echo.mjs
 *   as the limit, the two mixed pairs, and (JSON) @modelcontextprotocol/client 2.4.0 pinned to
 *   2026-07-28 ↔ @modelcontextprotocol/server 2.4.0 createMcpHandler (`stateless.json.sdk2`);
 * - progress.*: SSE replies of a `progress` tool sending 10 notifications/progress before its
 *   result, ours ↔ ours (bench/progress-http-server.ts) and SDK 1.32.2 ↔ SDK 1.32.2 (--sse), each
 *   beside `echo` on the same server (`progress.*.echo`): `cpu_per_event` is the CPU per call
 *   above echo's, over the 10 events; `events_per_call` counts the progress the client delivered.
 * Sequential latency (p50, p99) on one session, and throughput of 16 clients (16 sessions)
 * calling in a loop, with the CPU time per call of client and server (Linux); each the median
 * of three rounds (`--rounds`), the targets of a group (JSON, SSE, stateless JSON, stateless
 * SSE, progress, the SDKs) taking turns within a round, each round after an unmeasured burst
 * of calls (the 1-minute load average is printed). The ratios against the bare limit are
 * medians of the ratios within each round, so that a slow phase of the machine meets both of
 * their sides.
 * Also counted per target: MaxListenersExceededWarning (abort listeners piling up on a signal).
 * Then (Linux) the memory of each server process holding 1,000 idle sessions, ours vs sdk
 * (bench/http-idle.ts).
 * On Linux with `taskset` and two CPUs or more, this process (every client) runs on one CPU and
 * every server on another (measure.ts `pinCpus`; `--no-pin` leaves them to the scheduler), so
 * that each side's CPU per call is taken alike for every target; the order of a group's targets
 * rotates from round to round. Each ratio against a limit is printed with its spread over the
 * rounds (`N.NNx (rounds min–maxx of n)`): the noise of the reading.
 * `npm run bench:http [-- --quick] [--no-idle] [--no-pin] [--only <regexp>] [--rounds <n>]`: `--only` keeps the
 * targets whose name matches (e.g. `'^sse\.'`), and prints the ratios whose figures all ran.
 */
import { Agent, request } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import {
  Client as Sdk2Client,
  StreamableHTTPClientTransport as Sdk2HttpClientTransport,
} from '@modelcontextprotocol/client';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client } from '../generated/2025-11-25/index.js';
import { Client as DraftClient } from '../generated/draft/index.js';
import { HttpClientTransport } from '../runtime/transport/http/session/node-client.js';
import { StatelessHttpClientTransport } from '../runtime/transport/http/stateless/node-client.js';
import {
  benchScript,
  type Call,
  compare,
  median,
  pinCpus,
  processCpuUs,
  ROOT,
  ratio,
  sequential,
  startServer,
  stopChild,
} from './measure.js';

const quick = process.argv.includes('--quick');
const SEQ = quick ? 300 : 1500;
const TOTAL = quick ? 3000 : 12000;
const CLIENTS = 16;
const WARMUP = quick ? 300 : 2000;
/** Calls of each target before each of its measured rounds (see the rounds loop). */
const REWARM = quick ? 300 : 3000;
const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const ROUNDS = Number(flag('--rounds') ?? 3);
const only = flag('--only') === undefined ? undefined : new RegExp(flag('--only')!);
if (!(Number.isInteger(ROUNDS) && ROUNDS > 0))
  throw new Error(`bench:http: --rounds must be a positive integer, got ${flag('--rounds')}`);
const root = ROOT;
const TEXT = 'hello, benchmark';

interface Server {
  url: string;
  /** The server process. */
  pid: number;
  stop(): Promise<void>;
}

interface Target {
  name: string;
  /** The server process. */
  pid: number;
  /** One independent client (its own session). */
  client(): Promise<{ call: Call; close(): Promise<void> }>;
}

/** The CPUs of the clients (this process, pinned here) and of the servers; undefined: not pinned. */
const cpus = availableParallelism();
const pin = process.argv.includes('--no-pin') ? undefined : pinCpus();

/** `node <args>` printing its URL (a TypeScript server of bench/: `benchScript`), on the servers' CPU. */
async function server(args: string[]): Promise<Server> {
  const { url, child } = await startServer(args, root, pin?.server);
  return { url, pid: child.pid!, stop: () => stopChild(child) };
}

/** Progress notifications delivered to the clients of each target (progress rows). */
const delivered: Record<string, number> = {};
const count = (name: string) => () => void (delivered[name] = (delivered[name] ?? 0) + 1);

/** Generated 2025-11-25 Clients on HttpClientTransport; `progress`: calls the `progress` tool. */
function oursClient(name: string, s: Server, progress = false): Target {
  return {
    name,
    pid: s.pid,
    async client() {
      const c = new Client({ clientInfo: { name: 'bench', version: '0' } });
      await c.connect(new HttpClientTransport({ url: s.url }));
      const call = progress
        ? () => c.callTool({ name: 'progress', arguments: {} }, { onProgress: count(name) })
        : () => c.callTool({ name: 'echo', arguments: { text: TEXT } });
      return { call, close: () => c.close() };
    },
  };
}

/** The generated draft Client on StatelessHttpClientTransport (no handshake). */
function oursStatelessClient(name: string, s: Server): Target {
  return {
    name,
    pid: s.pid,
    async client() {
      const c = new DraftClient({ clientInfo: { name: 'bench', version: '0' } });
      await c.connect(new StatelessHttpClientTransport({ url: s.url }));
      return { call: () => c.callTool({ name: 'echo', arguments: { text: TEXT } }), close: () => c.close() };
    },
  };
}

/** @modelcontextprotocol/client 2.4.0: pinned to 2026-07-28 (stateless era), or `legacy` (initialize, sessions). */
function sdk2Client(name: string, s: Server, era: 'stateless' | 'legacy' = 'stateless'): Target {
  return {
    name,
    pid: s.pid,
    async client() {
      const c = new Sdk2Client(
        { name: 'bench', version: '0' },
        { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } } },
      );
      await c.connect(new Sdk2HttpClientTransport(new URL(s.url)));
      return { call: () => c.callTool({ name: 'echo', arguments: { text: TEXT } }), close: () => c.close() };
    },
  };
}

/** @modelcontextprotocol/sdk 1.32.2 Clients; `progress`: calls the `progress` tool. */
function sdkClient(name: string, s: Server, progress = false): Target {
  return {
    name,
    pid: s.pid,
    async client() {
      const c = new SdkClient({ name: 'bench', version: '0' });
      const t = new StreamableHTTPClientTransport(new URL(s.url));
      await c.connect(t);
      return {
        call: progress
          ? () => c.callTool({ name: 'progress', arguments: {} }, undefined, { onprogress: count(name) })
          : () => c.callTool({ name: 'echo', arguments: { text: TEXT } }),
        close: async () => {
          await t.terminateSession().catch(() => undefined);
          await c.close();
        },
      };
    },
  };
}

// one keep-alive pool for all bare clients, like the agent the other targets share
const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });

/**
 * The bare client: node:http POSTs, the body read whole and JSON.parse'd; for an SSE reply the
 * `data:` of its events (one line each, as every server here writes them) parsed, the one with
 * an `id` being the answer. Initializes like an MCP client (session id and protocol version
 * headers afterwards) and validates nothing; `stateless`: no handshake, each call with the
 * 2026-07-28 `_meta` and headers instead.
 */
function bareClient(name: string, s: Server, stateless = false): Target {
  const { hostname, port, pathname } = new URL(s.url);
  const post = (body: string, session: Record<string, string>): Promise<{ body: unknown; sid: string | undefined }> =>
    new Promise((resolve, reject) => {
      const headers = {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Content-Length': String(Buffer.byteLength(body)),
        ...session,
      };
      const req = request({ agent, hostname, port, path: pathname, method: 'POST', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          const sid = res.headers['mcp-session-id'] as string | undefined;
          try {
            if (text === '') return resolve({ body: undefined, sid });
            if (!res.headers['content-type']?.startsWith('text/event-stream'))
              return resolve({ body: JSON.parse(text), sid });
            let answer: unknown;
            for (const line of text.split('\n')) {
              if (!line.startsWith('data: ') || line.length === 6) continue;
              const m = JSON.parse(line.slice(6)) as { id?: unknown };
              if (m.id !== undefined) answer = m;
            }
            resolve({ body: answer, sid });
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
    name,
    pid: s.pid,
    async client() {
      if (stateless) {
        const meta = {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bare', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        };
        const headers = { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo' };
        let id = 1;
        return {
          call: async () => {
            const { body } = await post(
              JSON.stringify({
                jsonrpc: '2.0',
                id: id++,
                method: 'tools/call',
                params: { name: 'echo', arguments: { text: TEXT }, _meta: meta },
              }),
              headers,
            );
            if (!(body as { result?: unknown } | undefined)?.result)
              throw new Error(`no result: ${JSON.stringify(body)}`);
            return body;
          },
          close: async () => undefined,
        };
      }
      const init = await post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bare', version: '0' } },
        }),
        {},
      );
      const session: Record<string, string> = { 'MCP-Protocol-Version': '2025-11-25' };
      if (init.sid !== undefined) session['Mcp-Session-Id'] = init.sid;
      await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), session);
      let id = 1;
      return {
        call: async () => {
          const { body } = await post(
            JSON.stringify({
              jsonrpc: '2.0',
              id: id++,
              method: 'tools/call',
              params: { name: 'echo', arguments: { text: TEXT } },
            }),
            session,
          );
          if (!(body as { result?: unknown } | undefined)?.result)
            throw new Error(`no result: ${JSON.stringify(body)}`);
          return body;
        },
        close: async () => undefined,
      };
    },
  };
}

/**
 * Collects this process's garbage before a target's rounds, so that what the previous target's
 * clients left (the SDK clients leave the most) is not collected during the next target's
 * round, on its CPU figures and beside its server (`npm run bench:http` runs with
 * `--expose-gc`; without it nothing is done).
 */
async function settle(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return;
  gc();
  await new Promise((r) => setTimeout(r, 20));
}

async function throughput(calls: Call[], total: number): Promise<number> {
  let started = 0;
  const t = performance.now();
  await Promise.all(
    calls.map(async (call) => {
      while (started < total) {
        started++;
        await call();
      }
    }),
  );
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

/** CPU time of process `pid` so far (user + system, all its threads), µs; NaN where /proc is missing. */
const cpuOf = (pid: number): number => processCpuUs(pid) ?? NaN;

// All servers run at once. The targets run in groups of those that ratios compare (JSON
// replies, SSE replies, the stateless era's two, progress; the SDKs), one group after the
// other, and within a group the rounds alternate between its targets, so that a change of the
// machine's load hits all of them alike; CPU per call (this process + the server) is the figure that
// load disturbs least. Rounds of every target one after the other would leave each server
// idle for a minute between its rounds, and V8 shrinks the young generation of a process idle
// for seconds (then a few thousand calls cost 1.5x and the rest about 5% more, for longer than
// a round): the figures would measure that instead of the steady state.
const pinned = pin ? `; clients on cpu ${pin.client}, servers on cpu ${pin.server}` : '; not pinned';
console.log(`http.loadavg1: ${loadavg()[0].toFixed(2)} (${cpus} cpus${pinned})`);
const results: Record<string, { p50: number; p99: number; rps: number; client: number; server: number }> = {};
/** Each target's throughput rounds, in order: calls/s and CPU µs per call of either side. */
type Round = { rps: number; client: number; server: number };
const rounds: Record<string, Round[]> = {};
const serve = `${root}bin/mcpgen.js`;
const servers = await Promise.all([
  server([`${root}bench/bare-http-echo.mjs`]),
  server([`${root}bench/bare-http-echo.mjs`, '--sse']),
  server([serve, 'serve', '--http', '0', '--reply', 'json']),
  server([serve, 'serve', '--http', '0', '--reply', 'sse']),
  server([`${root}test/fixtures/sdk-http-server.mjs`]),
  server([...benchScript('stateless-server'), 'ours']),
  server([...benchScript('stateless-server'), 'ours-sse']),
  server([...benchScript('stateless-server'), 'sdk']),
  server(benchScript('progress-http-server')),
  server([`${root}test/fixtures/sdk-http-server.mjs`, '--sse']),
  server([`${root}bench/sdk2-http-server.mjs`]),
  server([`${root}bench/sdk2-http-server.mjs`, '--sse']),
]);
const [
  bareJson,
  bareSse,
  oursJson,
  oursSse,
  sdkJson,
  oursStateless,
  oursStatelessSse,
  sdk2Stateless,
  oursProgress,
  sdkSse,
  sdk2Json,
  sdk2Sse,
] = servers;
// JSON replies under the historical names (bare, ours, sdk), SSE replies under `sse.`; the
// mixed pairs measure each side of ours against the bare other side.
const targets = (
  [
    bareClient('bare', bareJson),
    oursClient('ours', oursJson),
    sdkClient('sdk', sdkJson),
    bareClient('json.bare_client_ours_server', oursJson),
    oursClient('json.ours_client_bare_server', bareJson),
    bareClient('sse.bare', bareSse),
    oursClient('sse.ours', oursSse),
    bareClient('sse.bare_client_ours_server', oursSse),
    oursClient('sse.ours_client_bare_server', bareSse),
    sdk2Client('json.sdk2', sdk2Json, 'legacy'),
    sdk2Client('sse.sdk2', sdk2Sse, 'legacy'),
    bareClient('stateless.json.bare', bareJson, true),
    oursStatelessClient('stateless.json.ours', oursStateless),
    bareClient('stateless.json.bare_client_ours_server', oursStateless, true),
    oursStatelessClient('stateless.json.ours_client_bare_server', bareJson),
    sdk2Client('stateless.json.sdk2', sdk2Stateless),
    bareClient('stateless.sse.bare', bareSse, true),
    oursStatelessClient('stateless.sse.ours', oursStatelessSse),
    bareClient('stateless.sse.bare_client_ours_server', oursStatelessSse, true),
    oursStatelessClient('stateless.sse.ours_client_bare_server', bareSse),
    oursClient('progress.ours.echo', oursProgress),
    oursClient('progress.ours', oursProgress, true),
    sdkClient('progress.sdk.echo', sdkSse),
    sdkClient('progress.sdk', sdkSse, true),
  ] as Target[]
).filter((t) => only === undefined || only.test(t.name));
const EVENTS = 10;
try {
  const runs = [];
  for (const target of targets) {
    listenerWarnings = 0;
    delivered[target.name] = 0;
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => target.client()));
    const calls = clients.map((c) => c.call);
    await sequential(calls[0], WARMUP);
    await throughput(calls, WARMUP);
    runs.push({
      target,
      clients,
      calls,
      warnings: listenerWarnings,
      seq: [] as { p50: number; p99: number }[],
      rates: [] as number[],
      cpu: [] as { client: number; server: number }[],
      events: [] as number[],
    });
  }
  /** The group a target's rounds run in (see above); the SDK pairs, compared by their medians, are one of their own. */
  const groupOf = (name: string): string =>
    (/^(progress)\./.exec(name) ?? /(sdk)/.exec(name) ?? /^(stateless\.json|stateless\.sse|sse)\./.exec(name))?.[1] ??
    'json';
  for (const group of new Set(runs.map((run) => groupOf(run.target.name)))) {
    const members = runs.filter((run) => groupOf(run.target.name) === group);
    for (let r = 0; r < ROUNDS; r++) {
      // each target takes each place in the round's order in turn
      for (const run of members.map((_, i) => members[(i + r) % members.length])) {
        await settle();
        // unmeasured: reopens the connections the server's keep-alive timeout closed during the
        // other targets' turns, and runs the code they take until it is optimized again
        await throughput(run.calls, REWARM);
        listenerWarnings = 0;
        run.seq.push(await sequential(run.calls[0], SEQ));
        const before = delivered[run.target.name] ?? 0;
        const mine = process.cpuUsage();
        const theirs = cpuOf(run.target.pid);
        run.rates.push(await throughput(run.calls, TOTAL));
        const used = process.cpuUsage(mine);
        run.cpu.push({ client: (used.user + used.system) / TOTAL, server: (cpuOf(run.target.pid) - theirs) / TOTAL });
        run.warnings += listenerWarnings;
        run.events.push(((delivered[run.target.name] ?? 0) - before) / TOTAL);
      }
    }
  }
  for (const { target, clients, seq, rates, cpu, warnings, events } of runs) {
    const s = { p50: median(seq.map((x) => x.p50)), p99: median(seq.map((x) => x.p99)) };
    const client = median(cpu.map((c) => c.client));
    const server = median(cpu.map((c) => c.server));
    results[target.name] = { ...s, rps: median(rates), client, server };
    rounds[target.name] = cpu.map((c, i) => ({ rps: rates[i], ...c }));
    console.log(`http.${target.name}.sequential.p50: ${s.p50.toFixed(1)} us`);
    console.log(`http.${target.name}.sequential.p99: ${s.p99.toFixed(1)} us`);
    console.log(
      `http.${target.name}.clients${CLIENTS}.throughput: ${Math.round(median(rates))} calls/s (rounds ${rates.map(Math.round).join(', ')})`,
    );
    console.log(
      `http.${target.name}.clients${CLIENTS}.cpu_per_call: ${(client + server).toFixed(1)} us (client ${client.toFixed(1)}, server ${server.toFixed(1)})`,
    );
    console.log(`http.${target.name}.max_listeners_warnings: ${warnings} warnings`);
    if (target.name.startsWith('progress.') && !target.name.endsWith('.echo'))
      console.log(`http.${target.name}.events_per_call: ${median(events).toFixed(2)} events (of ${EVENTS} sent)`);
    await Promise.all(clients.map((c) => c.close()));
  }
} finally {
  agent.destroy();
  await Promise.all(servers.map((s) => s.stop()));
}
console.log(`http.loadavg1_end: ${loadavg()[0].toFixed(2)}`);

// With --only, a figure whose target did not run is NaN, and a ratio of it is not printed.
const NONE = { p50: NaN, p99: NaN, rps: NaN, client: NaN, server: NaN };
const got = (name: string): (typeof results)[string] => results[name] ?? NONE;
/** Prints ratio `v` (a number, or a median with its `rounds`) unless it is NaN. */
const show = (name: string, v: number | Paired): void => {
  if (typeof v === 'number') {
    if (Number.isFinite(v)) ratio(name, v);
  } else if (Number.isFinite(v.median)) ratio(name, v.median, v.rounds);
};
/** A median over rounds, and the value of each round. */
type Paired = { median: number; rounds: number[] };
/**
 * `f` of target `a` over `f` of target `b`, round by round, and the median of those ratios (NaN
 * when either did not run). The targets of a round run one after the other, so a slower phase of
 * the machine (this kind of machine has them, for seconds at a time) meets both sides of each
 * ratio, where a ratio of the two medians may take them from different rounds. With the ratio
 * of each round.
 */
const paired = (a: string, b: string, f: (r: Round) => number): Paired => acrossRounds(a, b, (x, y) => f(x) / f(y));
/** `each(round of a, same round of b)` for every round, and their median (NaN when either did not run). */
const acrossRounds = (a: string, b: string, each: (x: Round, y: Round) => number): Paired => {
  const x = rounds[a];
  const y = rounds[b];
  const all = x && y ? x.map((r, i) => each(r, y[i])) : [];
  return { median: all.length ? median(all) : NaN, rounds: all };
};
/** The median over the rounds of `each(round of a, same round of b)` (NaN when either did not run). */
const across = (a: string, b: string, each: (x: Round, y: Round) => number): number => acrossRounds(a, b, each).median;
const rps = (r: Round): number => r.rps;
const cpu = (r: Round): number => r.client + r.server;
const clientCpu = (r: Round): number => r.client;
const serverCpu = (r: Round): number => r.server;

// SSE replies against the limit (issue #19). Throughput: above 1 better; the `cost` ratios are
// CPU per call of ours over the bare one's (below 1 better; targets 1.5 for the pair, 1.3 per
// side). Each is the median of the round-by-round ratios (see `paired`).
show('http.sse.ours_vs_bare_limit.throughput', paired('sse.ours', 'sse.bare', rps));
show('http.sse.ours_vs_bare_limit.cpu_cost', paired('sse.ours', 'sse.bare', cpu));
show('http.sse.ours_client_vs_bare_client.cpu_cost', paired('sse.ours_client_bare_server', 'sse.bare', clientCpu));
const sseServerCost = paired('sse.bare_client_ours_server', 'sse.bare', serverCpu);
show('http.sse.ours_server_vs_bare_server.cpu_cost', sseServerCost);
show('http.json.ours_vs_bare_limit.throughput', paired('ours', 'bare', rps));
show('http.json.ours_vs_bare_limit.cpu_cost', paired('ours', 'bare', cpu));
show('http.json.ours_client_vs_bare_client.cpu_cost', paired('json.ours_client_bare_server', 'bare', clientCpu));
const jsonServerCost = paired('json.bare_client_ours_server', 'bare', serverCpu);
show('http.json.ours_server_vs_bare_server.cpu_cost', jsonServerCost);
// What an SSE reply costs a server beyond its own JSON reply, CPU µs per call (bare client on
// both; the median of the round-by-round differences): ours adds the event store, the priming
// event and event framing to its JSON path, bare writes one event instead of one body. Then how
// much farther from the bare server ours is with SSE replies than with JSON replies (1: as far).
for (const [k, sse, json] of [
  ['ours', 'sse.bare_client_ours_server', 'json.bare_client_ours_server'],
  ['bare', 'sse.bare', 'bare'],
]) {
  const v = across(sse, json, (x, y) => x.server - y.server);
  if (Number.isFinite(v)) console.log(`http.sse.${k}_server.sse_over_json: ${v.toFixed(1)} us`);
}
show('http.sse_vs_json.ours_server_vs_bare_server.cpu_cost', sseServerCost.median / jsonServerCost.median);
if (results.ours && results.sdk && results.bare) compare('http', results as Parameters<typeof compare>[1]);

// Against the SDKs in the same run (above 1 better): 2.4.0 in both reply modes; 1.32.2 with SSE
// replies is `progress.sdk.echo` (its --sse server, the echo tool).
const versus = (name: string, o: (typeof results)[string], k: (typeof results)[string]): void => {
  show(`${name}.throughput`, o.rps / k.rps);
  show(`${name}.cpu_per_call`, (k.client + k.server) / (o.client + o.server));
};
versus('http.json.ours_vs_sdk2', got('ours'), got('json.sdk2'));
versus('http.sse.ours_vs_sdk2', got('sse.ours'), got('sse.sdk2'));
versus('http.sse.ours_vs_sdk', got('sse.ours'), got('progress.sdk.echo'));

// The stateless era (2026-07-28), the same ratios against its bare limit, and against SDK 2.4.0
// (ours_vs_sdk2: above 1 better).
for (const mode of ['json', 'sse']) {
  const bare = `stateless.${mode}.bare`;
  show(`http.stateless.${mode}.ours_vs_bare_limit.throughput`, paired(`stateless.${mode}.ours`, bare, rps));
  show(`http.stateless.${mode}.ours_vs_bare_limit.cpu_cost`, paired(`stateless.${mode}.ours`, bare, cpu));
  show(
    `http.stateless.${mode}.ours_client_vs_bare_client.cpu_cost`,
    paired(`stateless.${mode}.ours_client_bare_server`, bare, clientCpu),
  );
  show(
    `http.stateless.${mode}.ours_server_vs_bare_server.cpu_cost`,
    paired(`stateless.${mode}.bare_client_ours_server`, bare, serverCpu),
  );
}
const so = got('stateless.json.ours');
const s2 = got('stateless.json.sdk2');
show('http.stateless.json.ours_vs_sdk2.throughput', so.rps / s2.rps);
show('http.stateless.json.ours_vs_sdk2.p50', s2.p50 / so.p50);
show('http.stateless.json.ours_vs_sdk2.cpu_per_call', (s2.client + s2.server) / (so.client + so.server));

// Progress: CPU per call above the same pair's echo, per event (client + server).
const perEvent = (k: string): number => {
  const [p, e] = [got(`progress.${k}`), got(`progress.${k}.echo`)];
  return (p.client + p.server - e.client - e.server) / EVENTS;
};
// A difference of two CPU figures: on a busy machine the echo's noise can exceed the events' cost, and
// the difference comes out at or below zero. Such a figure measures nothing: it is named, not divided.
for (const k of ['ours', 'sdk']) {
  const v = perEvent(k);
  if (Number.isFinite(v) && v > 0) console.log(`http.progress.${k}.cpu_per_event: ${v.toFixed(1)} us`);
  else if (Number.isFinite(v)) console.log(`http.progress.${k}.cpu_per_event: unmeasured (below the echo's noise)`);
}
if (perEvent('ours') > 0 && perEvent('sdk') > 0)
  show('http.progress.ours_vs_sdk.cpu_per_event', perEvent('sdk') / perEvent('ours'));

// Idle sessions: memory per idle session of each server process, ours vs SDK v1 (bench/http-idle.ts,
// also runnable alone).
if (process.platform === 'linux' && !process.argv.includes('--no-idle') && only === undefined)
  await (await import('./http-idle.js')).idleSessionFigures();
