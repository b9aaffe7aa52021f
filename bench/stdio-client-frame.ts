/**
 * The client side of stdio in one process, without pipes: 64 `tools/call` (echo) calls in
 * flight, the requests written into an in-memory stream that a trivial echo in this process reads
 * (newline JSON split, each call's id cut out of its text and its answer made from a template, in one write per chunk read, on
 * the next `setImmediate`, as a process on the other end of a pipe would), the answers pushed
 * into the client's input stream. A figure is then the client's own handling of a call (the
 * request made and written, the answer read, matched and checked), not the scheduling of two
 * processes on a loaded machine. Clients:
 * - bare: the bare client of bench/stdio.ts (one JSON.stringify per request, written once a turn
 *   or at 2 KiB; answers split, `JSON.parse`d and matched in a `Map` of resolvers);
 * - ours: the generated 2025-11-25 Client on the runtime's stdio channel (`LineChannel`, the
 *   duplex under `StdioClientTransport`, here over the in-memory streams instead of a child's pipes).
 * With `--base <folder>` (a compiled tree: `node --import tsx bench/build.ts <checkout>` prints
 * it) the client of that tree runs beside this one's (`base_ours`), so a change is read against
 * the tree before it within one process.
 *
 * Each round runs every client once, the order turning from round to round; a client's figure is
 * the median over the rounds of its CPU time per call (`process.cpuUsage`, user and system), each
 * ratio (`<a>_vs_<b>.cpu_cost`: a's CPU over b's, below 1 is better for a) the median of the ratios
 * made within each round. Bytes allocated per call: heap growth over {@link ALLOC_CALLS} calls with
 * no GC between the two readings (rounds where one ran are not counted), the median. Both include
 * the echo's and the flood loop's share, the same for every client.
 *
 * `npm run bench:stdio-client-frame [-- --quick] [-- --base <folder>]`.
 */
import { loadavg } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { PassThrough, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { bareStdioClient, type Call, flood, median, ratio, ROOT } from './measure.js';

const quick = process.argv.includes('--quick');
const at = process.argv.indexOf('--base');
const base = at > 0 ? process.argv[at + 1] : undefined;
const ROUNDS = quick ? 5 : 11;
const CALLS = quick ? 10_000 : 30_000;
const ALLOC_CALLS = 2000;
const IN_FLIGHT = 64;
const TEXT = 'hello, benchmark';
const exposed = (globalThis as { gc?: () => void }).gc;
if (!exposed) throw new Error('bench:stdio-client-frame: run with --expose-gc (npm run bench:stdio-client-frame does)');
const gc: () => void = exposed;

interface Subject {
  name: string;
  call: Call;
}

const INIT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: {} },
  serverInfo: { name: 'echo', version: '0' },
};
const TOOLS = { tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] };

const CALL = '"method":"tools/call"';
const ECHOED = JSON.stringify({ content: [{ type: 'text', text: TEXT }] });

/** The client's streams: `output` (what it writes) is read by the echo, whose answers go into `input`. */
function streams(): { input: PassThrough; output: Writable } {
  const input = new PassThrough();
  let rest = '';
  let out = '';
  const answer = () => {
    const text = out;
    out = '';
    input.write(text);
  };
  const output = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _enc, cb) {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop()!;
      if (out === '' && lines.length) setImmediate(answer);
      for (const line of lines) {
        // the calls: the id cut out of the text and the answer made from a template (the echo's
        // share of the figures, the same for every client, kept small)
        if (line.includes(CALL)) {
          const from = line.indexOf('"id":') + 5;
          out += `{"jsonrpc":"2.0","id":${line.slice(from, line.indexOf(',', from))},"result":${ECHOED}}\n`;
          continue;
        }
        const m = JSON.parse(line);
        if (m.id === undefined) continue;
        const result =
          m.method === 'tools/call'
            ? { content: [{ type: 'text', text: m.params?.arguments?.text }] }
            : m.method === 'initialize'
              ? INIT
              : m.method === 'tools/list'
                ? TOOLS
                : {};
        out += `${JSON.stringify({ jsonrpc: '2.0', id: m.id, result })}\n`;
      }
      cb();
    },
  });
  return { input, output };
}

function bare(): Subject {
  const { input, output } = streams();
  return { name: 'bare', call: bareStdioClient(input, output, TEXT) };
}

/** The generated Client of the compiled tree at `dir` on that tree's stdio channel. */
async function ours(dir: string, name: string): Promise<Subject> {
  const url = (p: string) => pathToFileURL(`${dir}/${p}`).href;
  const { LineChannel, DEFAULT_CLIENT_MAX_INVALID_LINES } = await import(url('runtime/transport/stdio-channel.js'));
  const { Client } = await import(url('generated/2025-11-25/index.js'));
  const { input, output } = streams();
  // StdioClientTransport's channel and send, on the in-memory streams (no child process)
  let channel: { write(m: unknown): Promise<void>; attach(e: unknown, end: () => void): void };
  const transport = {
    start(events: { onClose(e?: Error): void }) {
      channel = new LineChannel(
        input,
        output,
        false,
        { maxInvalidLines: DEFAULT_CLIENT_MAX_INVALID_LINES },
        'server',
        (e: Error) => events.onClose(e),
      );
      channel.attach(events, () => undefined);
      return Promise.resolve();
    },
    send: (m: unknown) => channel.write(m),
    close: () => Promise.resolve(),
  };
  const client = new Client({ clientInfo: { name: 'bench', version: '0' } });
  await client.connect(transport);
  return { name, call: () => client.callTool({ name: 'echo', arguments: { text: TEXT } }) };
}

async function main(): Promise<void> {
  console.log(`stdio_client_frame.loadavg1: ${loadavg()[0].toFixed(2)}`);
  const subjects = [bare(), await ours(ROOT.replace(/\/$/, ''), 'ours')];
  if (base) subjects.push(await ours(base.replace(/\/$/, ''), 'base_ours'));
  let gcs = 0;
  const observer = new PerformanceObserver((list) => {
    gcs += list.getEntries().length;
  });
  observer.observe({ entryTypes: ['gc'] });
  // warm-up: the first calls list the tools (the output check) and compile the code
  for (const x of subjects) await flood(x.call, CALLS, IN_FLIGHT);
  const cpu = new Map<string, number[]>(subjects.map((x) => [x.name, []]));
  const alloc = new Map<string, number[]>(subjects.map((x) => [x.name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const x of subjects.map((_, i) => subjects[(i + r) % subjects.length])) {
      gc();
      await new Promise((done) => setTimeout(done, 20)); // (the entry of that GC arrives meanwhile)
      const [gcsBefore, heapBefore] = [gcs, process.memoryUsage().heapUsed];
      await flood(x.call, ALLOC_CALLS, IN_FLIGHT);
      const heapAfter = process.memoryUsage().heapUsed;
      await new Promise((done) => setImmediate(done)); // (the GC entries of the flood arrive by then)
      if (gcs === gcsBefore) alloc.get(x.name)!.push((heapAfter - heapBefore) / ALLOC_CALLS);
      const from = process.cpuUsage();
      await flood(x.call, CALLS, IN_FLIGHT);
      const used = process.cpuUsage(from);
      cpu.get(x.name)!.push(((used.user + used.system) * 1000) / CALLS);
    }
  }
  observer.disconnect();
  for (const x of subjects) {
    const a = alloc.get(x.name)!;
    console.log(`stdio_client_frame.${x.name}.cpu_per_call: ${median(cpu.get(x.name)!).toFixed(0)} ns`);
    console.log(
      `stdio_client_frame.${x.name}.alloc_per_call: ${a.length ? median(a).toFixed(0) : 'NaN'} bytes (${a.length} rounds with no GC)`,
    );
  }
  const within = (a: string, b: string) => cpu.get(a)!.map((v, r) => v / cpu.get(b)![r]);
  const pairs: Array<[string, string]> = [['ours', 'bare']];
  if (base) pairs.push(['base_ours', 'bare'], ['ours', 'base_ours']);
  for (const [a, b] of pairs) {
    const rounds = within(a, b);
    ratio(`stdio_client_frame.${a}_vs_${b}.cpu_cost`, median(rounds), rounds);
  }
  process.exit(0);
}

await main();
