/**
 * The server side of stdio in one process, without pipes: chunks of 64 `tools/call` frames
 * (echo) written into the server's stdin stream, the answers counted on its stdout stream, so
 * that a figure is the server's own handling of a frame (bytes in, bytes out) and not the
 * scheduling of two processes on a loaded machine. Three servers, over the same streams:
 * - bare: newline JSON split, `JSON.parse`d and answered by `JSON.stringify` in the stream's
 *   data handler, written once 2 KiB are ready and at the end of each chunk (bench/bare-echo.mjs);
 * - channel: the runtime's `StdioServerTransport` whose `onMessage` answers the same object (the
 *   transport without the engine);
 * - ours: the reference server (`mcpgen serve --stdio`: reference/server.ts, generated
 *   2025-11-25) on `StdioServerTransport`.
 * With `--base <folder>` (a compiled tree: `node --import tsx bench/build.ts <checkout>` prints
 * it) the channel and the server of that tree run beside this one's (`base_channel`, `base_ours`),
 * so a change is read against the tree before it within one process.
 *
 * Each round runs every server once, the order turning from round to round; a server's figure is
 * the median over the rounds of its CPU time per call (`process.cpuUsage`, user and system: less
 * moved by other processes' load than wall time), each ratio (`<a>_vs_<b>.cpu_cost`: a's CPU over
 * b's, below 1 is better for a) the median of the ratios made within each round. Bytes allocated per call: new-space growth over one chunk, the median over the
 * chunks no scavenge fell into. Both include the harness's share (the chunk written, the answers
 * counted), the same for every server.
 *
 * `npm run bench:stdio-frame [-- --quick] [-- --base <folder>]`.
 */
import { loadavg } from 'node:os';
import { PassThrough, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { median, ratio, ROOT } from './measure.js';

const quick = process.argv.includes('--quick');
const at = process.argv.indexOf('--base');
const base = at > 0 ? process.argv[at + 1] : undefined;
const ROUNDS = quick ? 5 : 11;
const CHUNKS = quick ? 150 : 400;
const FRAMES = 64;
const TEXT = 'hello, benchmark';

interface Subject {
  name: string;
  /** Writes one chunk of {@link FRAMES} requests and resolves when every answer was written. */
  chunk(): Promise<void>;
  /** The same, with the chunk made before `before` is called (for the allocation reading). */
  measured(before: () => void): Promise<void>;
}

/** The streams of one server, a request chunk maker and `send` (resolves once `n` more lines came out). */
function streams() {
  const stdin = new PassThrough();
  let lines = 0;
  let want = 0;
  let waiter: (() => void) | undefined;
  const stdout = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      if (waiter && lines >= want) {
        const w = waiter;
        waiter = undefined;
        w();
      }
      cb();
    },
  });
  const send = (text: string, n: number) =>
    new Promise<void>((resolve) => {
      want = lines + n;
      waiter = resolve;
      stdin.write(text);
    });
  let id = 1;
  const make = () => {
    let s = '';
    for (let i = 0; i < FRAMES; i++)
      s += `${JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'echo', arguments: { text: TEXT } } })}\n`;
    return s;
  };
  return { stdin, stdout, send, make };
}

function subject(name: string, s: ReturnType<typeof streams>): Subject {
  return {
    name,
    chunk: () => s.send(s.make(), FRAMES),
    measured: (before) => {
      const text = s.make();
      before();
      return s.send(text, FRAMES);
    },
  };
}

function bare(): Subject {
  const s = streams();
  let rest = '';
  s.stdin.setEncoding('utf8');
  s.stdin.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    let out = '';
    for (const line of lines) {
      if (!line) continue;
      const m = JSON.parse(line);
      if (m.id === undefined) continue;
      out += `${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: m.params?.arguments?.text }] } })}\n`;
      if (out.length >= 2048) {
        s.stdout.write(out);
        out = '';
      }
    }
    if (out) s.stdout.write(out);
  });
  return subject('bare', s);
}

type Message = { id?: unknown; params?: { arguments?: { text?: unknown } } };

/** The channel and the server of the compiled tree at `dir` (this one's: {@link ROOT}). */
async function tree(dir: string, prefix: string): Promise<Subject[]> {
  const url = (p: string) => pathToFileURL(`${dir}/${p}`).href;
  const { StdioServerTransport } = await import(url('runtime/transport/stdio.js'));
  const mod = await import(url('generated/2025-11-25/index.js'));
  const { createReferenceServer } = await import(url('reference/server.js'));
  const c = streams();
  const t = new StdioServerTransport({ stdin: c.stdin, stdout: c.stdout });
  await t.start({
    onMessage: (m: Message) => {
      if (m.id !== undefined)
        void t.send({
          jsonrpc: '2.0',
          id: m.id,
          result: { content: [{ type: 'text', text: m.params?.arguments?.text }] },
        });
    },
    onClose() {},
  });
  const s = streams();
  const logger = {
    warn: (m: string) => process.stderr.write(`warn: ${m}\n`),
    error: (m: string, d?: unknown) => process.stderr.write(`error: ${m} ${JSON.stringify(d)}\n`),
  };
  await createReferenceServer(mod.Server, { logger, table: mod.table }).server.connect(
    new StdioServerTransport({ stdin: s.stdin, stdout: s.stdout }),
  );
  const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } };
  await s.send(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init })}\n`, 1);
  s.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  return [subject(`${prefix}channel`, c), subject(`${prefix}ours`, s)];
}

const newSpace = () => v8.getHeapSpaceStatistics().find((x) => x.space_name === 'new_space')!.space_used_size;

/** New-space bytes per call over `n` chunks of `x`: the median of the chunks no scavenge fell into. */
async function allocated(x: Subject, n: number): Promise<number> {
  const per: number[] = [];
  let from = 0;
  for (let k = 0; k < n; k++) {
    await x.measured(() => {
      from = newSpace();
    });
    const grew = newSpace() - from;
    if (grew > 0) per.push(grew / FRAMES);
  }
  return median(per);
}

async function main(): Promise<void> {
  console.log(`stdio_frame.loadavg1: ${loadavg()[0].toFixed(2)}`);
  const subjects = [bare(), ...(await tree(ROOT.replace(/\/$/, ''), ''))];
  if (base) subjects.push(...(await tree(base.replace(/\/$/, ''), 'base_')));
  // warm-up: the first calls compile the tool's schemas and the code
  for (const x of subjects) for (let k = 0; k < CHUNKS; k++) await x.chunk();
  const cpu = new Map<string, number[]>(subjects.map((x) => [x.name, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = subjects.map((_, i) => subjects[(i + r) % subjects.length]);
    for (const x of order) {
      const from = process.cpuUsage();
      for (let k = 0; k < CHUNKS; k++) await x.chunk();
      const used = process.cpuUsage(from);
      cpu.get(x.name)!.push(((used.user + used.system) * 1000) / (CHUNKS * FRAMES));
    }
  }
  for (const x of subjects) {
    console.log(`stdio_frame.${x.name}.cpu_per_call: ${median(cpu.get(x.name)!).toFixed(0)} ns`);
    console.log(`stdio_frame.${x.name}.alloc_per_call: ${(await allocated(x, CHUNKS)).toFixed(0)} bytes`);
  }
  const within = (a: string, b: string) => cpu.get(a)!.map((v, r) => v / cpu.get(b)![r]);
  const pairs: Array<[string, string]> = [
    ['ours', 'bare'],
    ['channel', 'bare'],
    ['ours', 'channel'],
  ];
  if (base) pairs.push(['ours', 'base_ours'], ['channel', 'base_channel']);
  for (const [a, b] of pairs) {
    const rounds = within(a, b);
    ratio(`stdio_frame.${a}_vs_${b}.cpu_cost`, median(rounds), rounds);
  }
}

await main();
