/**
 * The client side of Streamable HTTP alone, tree against tree in one process: the generated
 * 2025-11-25 Client on HttpClientTransport (node:http) of this tree and of other compiled trees,
 * and the bare node:http client of bench/http.ts, each with 16 clients (16 sessions) calling
 * `tools/call` → echo against one bare server (bench/bare-http-echo.mjs, its own process) with
 * SSE replies and one with JSON replies, 16 calls in flight (groups `sse`, `json`). The same
 * for the stateless era (2026-07-28, groups `stateless.sse`, `stateless.json`): the generated
 * draft Client on StatelessHttpClientTransport, its node:http form (`stateless.<mode>`) and its
 * fetch form (`stateless.<mode>.fetch`: the transport of fetch-client.ts on the global fetch),
 * 16 clients, against the same two bare servers, beside bench/http.ts's bare stateless client
 * (node:http POSTs with the revision's `_meta` and headers, no handshake). Figures per target:
 * the client's CPU per call (this process, `process.cpuUsage`, µs) and its heap allocation per
 * call (KB: 1,000 calls with no GC between two readings of the used heap; a round in which a GC
 * ran is not counted), each the median over the rounds; per tree, the median of its
 * round-by-round ratios against the bare client of its group and, for another tree, against
 * this one (`cpu_vs_head`).
 *
 * Why one process: bench:compare runs each tree's bench:http in a process of its own, one after
 * the other, and the client's CPU per call moves ±10 % between those processes on a busy
 * machine, more than what a change of the client costs; here the targets of a group take turns
 * within each round (the order rotating), so that load and the server's speed meet all alike.
 * The noise of a comparison is seen by giving the same tree twice (an A/A: two compiled copies,
 * `node --import tsx bench/build.ts` into two folders; one folder given twice is one module
 * instance, which shares its JIT state and understates the noise).
 *
 * `npm run bench:http-client -- [--rounds N (default 7)] [--calls N (default 4000)] [--base <folder>…]
 * [--only <regex>]`: `--base` a compiled tree, the folder `node --import tsx bench/build.ts
 * <checkout>` prints (a checkout with its node_modules and generated/), named `base`, `base2`,
 * …; this tree is `head`. `--only`: the targets whose name without the tree (`sse`, `json`,
 * `stateless.json`, `stateless.json.fetch`, …) matches the regular expression, with the bare
 * client of each group that has one (e.g. `--only '^stateless\.'`).
 */
import { Agent, request } from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';
import { type Call, median, pinCpus, ROOT, startServer, stopChild } from './measure.js';

const argv = process.argv.slice(2);
const option = (name: string, otherwise: number): number => {
  const i = argv.indexOf(name);
  const v = i < 0 ? otherwise : Number(argv[i + 1]);
  if (!(Number.isInteger(v) && v > 0)) throw new Error(`bench:http-client: ${name} must be a positive integer`);
  return v;
};
const ROUNDS = option('--rounds', 7);
const CALLS = option('--calls', 4000);
const ONLY = argv.includes('--only') ? new RegExp(argv[argv.indexOf('--only') + 1] ?? '') : undefined;
const ALLOC_CALLS = 1000;
const CLIENTS = 16;
const TEXT = 'hello, benchmark';
const MODES = ['sse', 'json'] as const;
type Mode = (typeof MODES)[number];
/** A group's targets take turns against one server: the 2025 era's (`sse`, `json`), the stateless era's. */
const GROUPS = [...MODES, ...MODES.map((m) => `stateless.${m}`)];
/** This tree (`head`), then each `--base <folder>` (`base`, `base2`, …), as folders with a trailing slash. */
const trees: [string, string][] = [
  ['head', ROOT],
  ...argv.flatMap((a, i) => (a === '--base' ? [argv[i + 1]] : [])).map((dir, i) => [i ? `base${i + 1}` : 'base', dir]),
].map(([name, dir]) => {
  if (!dir) throw new Error('bench:http-client: --base needs a folder');
  return [name, dir.endsWith('/') ? dir : `${dir}/`];
});
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('bench:http-client: run with --expose-gc (npm run bench:http-client does)');

interface Target {
  tree: string;
  /** The target's name without the tree: its group, `.fetch` for the stateless fetch form. */
  name: string;
  group: string;
  calls: Call[];
}

const pin = pinCpus();
const servers = await Promise.all(
  MODES.map((mode) =>
    startServer([`${ROOT}bench/bare-http-echo.mjs`, ...(mode === 'sse' ? ['--sse'] : [])], ROOT, pin?.server),
  ),
);
const url = (mode: Mode): string => servers[MODES.indexOf(mode)].url;

let gcs = 0;
const observer = new PerformanceObserver((list) => void (gcs += list.getEntries().length));
observer.observe({ entryTypes: ['gc'] });

async function ours(tree: string, dir: string, mode: Mode): Promise<Target> {
  const { Client } = await import(`${dir}generated/2025-11-25/index.js`);
  const { HttpClientTransport } = await import(`${dir}runtime/transport/http/session/node-client.js`);
  const calls: Call[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const c = new Client({ clientInfo: { name: 'bench', version: '0' } });
    await c.connect(new HttpClientTransport({ url: url(mode) }));
    calls.push(() => c.callTool({ name: 'echo', arguments: { text: TEXT } }));
  }
  return { tree, name: mode, group: mode, calls };
}

/** The draft Client on StatelessHttpClientTransport: node:http (node-client.js) or the global fetch (fetch-client.js). */
async function oursStateless(tree: string, dir: string, mode: Mode, form: 'node' | 'fetch'): Promise<Target> {
  const { Client } = await import(`${dir}generated/draft/index.js`);
  const { StatelessHttpClientTransport } = await import(
    `${dir}runtime/transport/http/stateless/${form === 'node' ? 'node' : 'fetch'}-client.js`
  );
  const calls: Call[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const c = new Client({ clientInfo: { name: 'bench', version: '0' } });
    await c.connect(new StatelessHttpClientTransport({ url: url(mode) }));
    calls.push(() => c.callTool({ name: 'echo', arguments: { text: TEXT } }));
  }
  const group = `stateless.${mode}`;
  return { tree, name: form === 'node' ? group : `${group}.fetch`, group, calls };
}

const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
const DRAFT_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bare', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const DRAFT_HEADERS = { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo' };
/**
 * bench/http.ts's bare client after its handshake: POSTs, the body read whole, the answer
 * parsed; `stateless`: its stateless form (no handshake, each call with the 2026-07-28 `_meta`
 * and headers).
 */
function bare(group: string): Target {
  const stateless = group.startsWith('stateless.');
  const { hostname, port, pathname } = new URL(url((stateless ? group.slice(10) : group) as Mode));
  let id = 1;
  const call = (): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const params = { name: 'echo', arguments: { text: TEXT }, ...(stateless ? { _meta: DRAFT_META } : {}) };
      const body = JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params });
      const headers = {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Content-Length': String(Buffer.byteLength(body)),
        ...(stateless ? DRAFT_HEADERS : { 'MCP-Protocol-Version': '2025-11-25' }),
      };
      const req = request({ agent, hostname, port, path: pathname, method: 'POST', headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          try {
            let answer: { result?: unknown } | undefined;
            if (!res.headers['content-type']?.startsWith('text/event-stream')) answer = JSON.parse(text);
            else
              for (const line of text.split('\n'))
                if (line.startsWith('data: ') && line.length > 6) answer = JSON.parse(line.slice(6));
            if (!answer?.result) throw new Error(`no result: ${text}`);
            resolve(answer);
          } catch (e) {
            reject(e);
          }
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return { tree: 'bare', name: group, group, calls: Array.from({ length: CLIENTS }, () => call) };
}

async function flood(calls: Call[], total: number): Promise<void> {
  let started = 0;
  await Promise.all(
    calls.map(async (call) => {
      while (started < total) {
        started++;
        await call();
      }
    }),
  );
}

const settle = async (): Promise<void> => {
  gc();
  await new Promise((r) => setTimeout(r, 20));
};

const wanted = (name: string): boolean => !ONLY || ONLY.test(name);
const targets: Target[] = [];
for (const group of GROUPS) {
  const mode = group.replace('stateless.', '') as Mode;
  const mine: Target[] = [];
  for (const [tree, dir] of trees) {
    if (group === mode) {
      if (wanted(mode)) mine.push(await ours(tree, dir, mode));
      continue;
    }
    for (const form of ['node', 'fetch'] as const)
      if (wanted(form === 'node' ? group : `${group}.fetch`)) mine.push(await oursStateless(tree, dir, mode, form));
  }
  if (mine.length) targets.push(bare(group), ...mine);
}
if (!targets.length) throw new Error(`bench:http-client: no target matches --only ${ONLY}`);
for (const t of targets) await flood(t.calls, 2000);
const key = (t: Target): string => `${t.tree}.${t.name}`;
const cpu: Record<string, number[]> = {};
const alloc: Record<string, number[]> = {};
for (const t of targets) [cpu[key(t)], alloc[key(t)]] = [[], []];
try {
  for (const name of GROUPS) {
    const group = targets.filter((t) => t.group === name);
    for (let r = 0; r < ROUNDS && group.length; r++) {
      for (const t of group.map((_, i) => group[(i + r) % group.length])) {
        await flood(t.calls, 300);
        await settle();
        const [gcsBefore, heapBefore] = [gcs, process.memoryUsage().heapUsed];
        await flood(t.calls, ALLOC_CALLS);
        const heapAfter = process.memoryUsage().heapUsed;
        await new Promise((r) => setImmediate(r)); // (the GC entries of the batch arrive by then)
        if (gcs === gcsBefore) alloc[key(t)].push((heapAfter - heapBefore) / ALLOC_CALLS / 1024);
        await settle();
        const before = process.cpuUsage();
        await flood(t.calls, CALLS);
        const used = process.cpuUsage(before);
        cpu[key(t)].push((used.user + used.system) / CALLS);
      }
    }
  }
} finally {
  observer.disconnect();
  agent.destroy();
  await Promise.all(servers.map((s) => stopChild(s.child)));
}

const against = (k: string, other: string): string => {
  const ratios = cpu[k].map((c, i) => c / cpu[other][i]);
  return `${median(ratios).toFixed(3)}x (rounds ${ratios.map((x) => x.toFixed(2)).join(' ')})`;
};
console.log(`http-client: ${ROUNDS} rounds of ${CALLS} calls, ${CLIENTS} in flight, trees ${trees.map((t) => t[0])}`);
for (const t of targets) {
  const k = key(t);
  console.log(`http-client.${k}.cpu_per_call: ${median(cpu[k]).toFixed(1)} us`);
  const a = alloc[k];
  console.log(
    `http-client.${k}.alloc_per_call: ${a.length ? median(a).toFixed(2) : 'NaN'} KB (${a.length} rounds with no GC)`,
  );
  if (t.tree === 'bare') continue;
  console.log(`http-client.${k}.cpu_vs_bare: ${against(k, `bare.${t.group}`)}`);
  if (t.tree !== 'head') console.log(`http-client.${k}.cpu_vs_head: ${against(k, `head.${t.name}`)}`);
}
process.exit(0);
