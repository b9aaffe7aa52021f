import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { spawn } from 'node:child_process';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { NdjsonDecoder, FrameError } from '../../../runtime/codec/ndjson.js';
import { StdioClientTransport, StdioServerTransport } from '../../../runtime/transport/stdio.js';
import { Peer } from '../../../runtime/engine/peer.js';
import { ConnectionClosedError, RequestAbortedError, RpcError } from '../../../runtime/jsonrpc/errors.js';
import type { JSONRPCMessage, TransportEvents } from '../../../runtime/jsonrpc/transport.js';
import { settle, sleep, table, type Msg } from '../support.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url));

const M1 = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"warming up"}}\n';
const M2 =
  '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"demo-server","version":"1.0.0"}}}\n';
const M3 = '{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}\n';
const ALL = Buffer.from(M1 + M2 + M3);
const initParams = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0.0.1' } };

type Step = { b64: string } | { delay: number } | { big: { id: number; size: number; chunk: number } };
const bytes = (b: Buffer): Step => ({ b64: b.toString('base64') });

/** A client Peer on a scripted server process. */
async function scriptedClient(script: { wait: number; steps: Step[]; then?: 'exit' | 'stay' }) {
  const errors: Error[] = [];
  const notes: unknown[] = [];
  let closeError: Error | undefined | 'open' = 'open';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fixture('stdio-scripted.mjs')],
    env: { SCRIPT: JSON.stringify(script) },
    stderr: 'inherit',
    closeStdinTimeoutMs: 500,
    sigtermTimeoutMs: 500,
  });
  const peer = new Peer({
    side: 'client',
    table,
    transport,
    notificationHandlers: { 'notifications/message': (p) => void notes.push(p) },
    onError: (e) => errors.push(e),
    onClose: (e) => (closeError = e),
  });
  await peer.start();
  return { peer, transport, errors, notes, closeError: () => closeError };
}

function chunksOf(buf: Buffer, at: number[]): Buffer[] {
  const out: Buffer[] = [];
  let prev = 0;
  for (const i of [...at, buf.length]) {
    out.push(buf.subarray(prev, i));
    prev = i;
  }
  return out;
}

test('001 stdio: a client reading a real pipe gets M1, M2, M3 for split, coalesced and trickled writes', async () => {
  const zero = Buffer.from('{"jsonrpc":"2.0","id":0,"result":{}}\n');
  const variants: Record<string, Buffer[]> = {
    A: chunksOf(ALL, [50, 117]),
    B: [ALL],
    C: Array.from({ length: ALL.length }, (_, i) => ALL.subarray(i, i + 1)),
  };
  for (const [name, chunks] of Object.entries(variants)) {
    const steps: Step[] = [bytes(zero)];
    for (const c of chunks) steps.push(bytes(c), { delay: name === 'C' ? 0 : 5 });
    const c = await scriptedClient({ wait: 3, steps, then: 'stay' });
    const ping = c.peer.request('ping');
    const init = c.peer.request('initialize', initParams);
    const list = c.peer.request('tools/list');
    assert.equal(await ping, {}, name);
    assert.equal(await init, JSON.parse(M2).result, name);
    assert.equal(await list, { tools: [] }, name);
    assert.equal(c.notes, [{ level: 'info', data: 'warming up' }], name);
    assert.equal(c.errors, [], name);
    await c.peer.close();
    assert.is(c.closeError(), undefined, name);
  }
});

test('001 stdio: a frame truncated by the server exiting closes with a FrameError and fails pending requests', async () => {
  const c = await scriptedClient({ wait: 2, steps: [bytes(ALL.subarray(0, 127))], then: 'exit' });
  const init = c.peer.request('initialize', initParams).catch((e: unknown) => e);
  const list = c.peer.request('tools/list').catch((e: unknown) => e);
  const [a, b] = await Promise.all([init, list]);
  for (const e of [a, b]) {
    assert.instance(e, ConnectionClosedError);
    assert.instance((e as Error).cause, FrameError);
    assert.is(((e as Error).cause as FrameError).kind, 'truncated');
  }
  assert.equal(c.notes, [{ level: 'info', data: 'warming up' }]);
  assert.instance(c.closeError(), FrameError);
  assert.equal(c.errors, [], 'no JSON SyntaxError reported');
});

test('001 stdio: a 5 MiB result over a real pipe, written in 64 KiB and in one write', async () => {
  for (const chunk of [65536, 6 * 1024 * 1024]) {
    const c = await scriptedClient({
      wait: 1,
      steps: [{ big: { id: 0, size: 5 * 1024 * 1024, chunk } }],
      then: 'stay',
    });
    const r = (await c.peer.request('tools/call', { name: 'big' })) as { content: Array<{ text: string }> };
    assert.is(r.content[0].text.length, 5 * 1024 * 1024);
    await c.peer.close();
  }
});

/** Spawns the real stdio server fixture and drives its stdin with raw bytes. */
function rawServer() {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture('stdio-server.ts')], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Msg[] = [];
  const raw: Buffer[] = [];
  let stderr = '';
  const decoder = new NdjsonDecoder({
    value: (v) => void out.push(v as Msg),
    error: (e) => {
      throw e;
    },
  });
  child.stdout.on('data', (c: Buffer) => {
    raw.push(c);
    decoder.push(c);
  });
  child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  return {
    child,
    out,
    exited,
    rawBytes: () => Buffer.concat(raw),
    stderr: () => stderr,
    async write(chunks: Array<string | Buffer>, gap = 2) {
      for (const c of chunks) {
        child.stdin.write(c);
        if (gap) await sleep(gap);
      }
    },
    async waitFor(n: number, ms = 10_000) {
      const end = Date.now() + ms;
      while (out.length < n) {
        if (Date.now() > end) throw new Error(`got ${out.length} of ${n} lines; stderr: ${stderr}`);
        await sleep(5);
      }
    },
  };
}

const line = (m: unknown) => `${JSON.stringify(m)}\n`;

test('001 stdio: the server reading its stdin frames by newline only, whatever the chunking, and reports a truncated tail', async () => {
  const input = Buffer.from(
    line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initParams }) +
      line({ jsonrpc: '2.0', method: 'notifications/initialized' }) +
      line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  );
  const variants = [
    chunksOf(input, [50, 117]),
    [input],
    Array.from({ length: input.length }, (_, i) => input.subarray(i, i + 1)),
  ];
  const server = rawServer();
  for (const [i, chunks] of variants.entries()) {
    await server.write(chunks, chunks.length > 10 ? 0 : 5);
    await server.waitFor(2 * (i + 1));
    assert.equal(
      server.out.slice(2 * i).map((m) => m.id),
      [1, 2],
    );
    assert.equal(server.out[2 * i + 1].result, { tools: [] });
  }
  server.child.stdin.end();
  assert.is(await server.exited, 0);
  assert.not.match(server.stderr(), /closed: /, 'a clean end of stdin is no error');
  const s = rawServer();
  await s.write([input.subarray(0, input.indexOf(10) + 1 + 30)]);
  await s.waitFor(1);
  s.child.stdin.end();
  await s.exited;
  assert.equal(
    s.out.map((m) => m.id),
    [1],
  );
  assert.match(s.stderr(), /closed: stream ended inside a frame/);
});

test('002 stdio: the server echoes ids exactly and answers unreadable ids with one -32600 line each', async () => {
  const s = rawServer();
  const ids = [0, '0', 73, 'probe-7f', -1];
  await s.write(
    [
      line({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      ...ids.map((id) => line({ jsonrpc: '2.0', id, method: 'ping' })),
      ...[null, 1.5, true, { n: 1 }].map((id) => line({ jsonrpc: '2.0', id, method: 'tools/list', params: {} })),
    ],
    0,
  );
  await s.waitFor(9);
  await sleep(30);
  s.child.stdin.end();
  await s.exited;
  assert.is(s.out.length, 9);
  // answers may come in any order: invalid ones are answered by the transport at once
  const answered = s.out.filter((m) => 'id' in m);
  assert.equal(
    answered.map((m) => m.id),
    ids,
  );
  assert.ok(answered.every((m) => JSON.stringify(m.result) === '{}'));
  const refused = s.out.filter((m) => !('id' in m));
  assert.is(refused.length, 4);
  for (const m of refused) assert.is(m.error.code, -32600);
});

test('005 stdio: UTF-8 split anywhere reaches the server intact; a bad byte gets -32700 and the next line is served', async () => {
  const s = rawServer();
  const text = 'café — 中文 😀';
  const req = Buffer.from(
    line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text } } }),
  );
  const e = req.indexOf(Buffer.from('é'));
  const bad = Buffer.concat([
    Buffer.from('{"jsonrpc":"2.0","id":4,"method":"ping","x":"'),
    Buffer.from([0xff]),
    Buffer.from('"}\n'),
  ]);
  await s.write(
    [
      req.subarray(0, e + 1),
      req.subarray(e + 1, e + 5),
      req.subarray(e + 5),
      bad,
      line({ jsonrpc: '2.0', id: 5, method: 'ping' }),
    ],
    5,
  );
  await s.write([
    line({
      jsonrpc: '2.0',
      id: 6,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'first\nsecond\r\nthird\u2028fourth' } },
    }),
  ]);
  await s.waitFor(4);
  s.child.stdin.end();
  await s.exited;
  const byId = new Map(s.out.map((m) => [m.id, m]));
  assert.is(byId.get(3)!.result.content[0].text, text);
  assert.equal(byId.get(undefined), {
    jsonrpc: '2.0',
    error: { code: -32700, message: 'Parse error: line is not valid UTF-8' },
  });
  assert.equal(byId.get(5), { jsonrpc: '2.0', id: 5, result: {} });
  assert.not.ok(byId.has(4));
  assert.is(byId.get(6)!.result.content[0].text, 'first\nsecond\r\nthird\u2028fourth');
  const rawOut = s.rawBytes();
  assert.is(rawOut.indexOf(0x0d), -1, 'no CR byte on stdout');
  assert.ok(!rawOut.toString('utf8').includes('\uFFFD'));
  assert.is(rawOut.toString().split('\n').length, 5, 'four frames, each ending in one LF');
});

test('013 stdio: CRLF lines, a whitespace line and a CR|LF split are served; the writer never emits CR', async () => {
  const s = rawServer();
  const a = line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: initParams }).replace('\n', '\r\n');
  await s.write(
    [
      a.slice(0, -1),
      '\n',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}\r\n',
      '   \t\r\n',
      '{"jsonrpc":"2.0","id":2,"method":"ping"}\r',
      '\n',
    ],
    5,
  );
  await s.waitFor(2);
  await sleep(30);
  s.child.stdin.end();
  await s.exited;
  assert.equal(
    s.out.map((m) => m.id),
    [1, 2],
  );
  assert.ok(!('error' in s.out[0]) && !('error' in s.out[1]));
  assert.is(s.rawBytes().indexOf(0x0d), -1);
});

test('007 stdio: a client abort over real pipes cancels the server handler; the session stays usable', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', fixture('stdio-server.ts')],
    cwd: root,
    stderr: 'ignore',
  });
  const peer = new Peer({ side: 'client', table, transport });
  await peer.start();
  const ac = new AbortController();
  const progress: number[] = [];
  const call = peer.request(
    'tools/call',
    { name: 'slow_echo', arguments: { text: 'hi' } },
    {
      signal: ac.signal,
      onProgress: (p) => (progress.push(p.progress), p.progress === 3 && ac.abort('user aborted')),
    },
  );
  const e = await call.catch((x: unknown) => x);
  assert.instance(e, RequestAbortedError);
  assert.equal(progress, [1, 2, 3]);
  await sleep(50);
  const stats = (await peer.request('tools/call', { name: 'stats' })) as { content: Array<{ text: string }> };
  assert.equal(JSON.parse(stats.content[0].text), { cancelled: 1 });
  assert.equal(await peer.request('ping'), {});
  await peer.close();
  assert.is(transport.process?.exitCode, 0, 'the server exits when its stdin closes, before any signal');
  assert.is(transport.process?.signalCode, null);
});

test('stdio client: shutdown closes stdin, then SIGTERM, then SIGKILL, with configurable waits', async () => {
  for (const [mode, expected] of [
    ['polite', null],
    ['term', 'SIGTERM'],
    ['stubborn', 'SIGKILL'],
  ] as const) {
    const t = new StdioClientTransport({
      command: process.execPath,
      args: [fixture('stdio-lingering.mjs'), mode],
      stderr: 'ignore',
      closeStdinTimeoutMs: mode === 'polite' ? 5000 : 100,
      sigtermTimeoutMs: 100,
    });
    await new Promise<void>((resolve) => {
      const events: TransportEvents = { onMessage: () => resolve(), onClose: () => undefined };
      void t.start(events);
    });
    const started = Date.now();
    await t.close();
    const took = Date.now() - started;
    assert.is(t.process?.signalCode ?? null, expected, mode);
    // polite exits once stdin closes (else it would show SIGTERM); the others wait the waits out
    if (mode === 'term') assert.ok(took >= 90 && took < 3000, `${mode} took ${took} ms`);
    if (mode === 'stubborn') assert.ok(took >= 190 && took < 3000, `${mode} took ${took} ms`);
    await assert.not.throws(() => t.close());
  }
});

test('stdio client: stderr pipe callback, env and cwd reach the child; a missing command rejects start', async () => {
  let err = '';
  const closes: Array<Error | undefined> = [];
  const t = new StdioClientTransport({
    command: process.execPath,
    args: [fixture('stdio-lingering.mjs'), 'polite'],
    stderr: 'pipe',
    onStderr: (c) => void (err += c.toString()),
  });
  await new Promise<void>(
    (resolve) => void t.start({ onMessage: () => resolve(), onClose: (e) => void closes.push(e) }),
  );
  await t.close();
  assert.match(err, /lingering polite on stderr/);
  assert.equal(closes, [undefined]);

  const envCheck = new StdioClientTransport({
    command: process.execPath,
    args: [
      '-e',
      'process.stdout.write(JSON.stringify({jsonrpc:"2.0",method:"m",params:{v:process.env.MCP_T,cwd:process.cwd()}})+"\\n")',
    ],
    env: { MCP_T: 'yes' },
    cwd: '/tmp',
  });
  const got = await new Promise<JSONRPCMessage>(
    (resolve) => void envCheck.start({ onMessage: resolve, onClose: () => undefined }),
  );
  assert.equal(got.params, { v: 'yes', cwd: '/tmp' });
  await envCheck.close();

  const missing = new StdioClientTransport({ command: '/nonexistent/mcp-server' });
  try {
    await missing.start({ onMessage: () => undefined, onClose: () => undefined });
    assert.unreachable();
  } catch (e) {
    assert.is((e as NodeJS.ErrnoException).code, 'ENOENT');
  }
  try {
    await missing.send({ jsonrpc: '2.0', method: 'x' });
    assert.unreachable();
  } catch (e) {
    assert.instance(e, ConnectionClosedError);
  }
});

test('stdio client: a server that dies reports its exit code; pending requests fail with ConnectionClosedError', async () => {
  const c = await scriptedClient({ wait: 1, steps: [], then: 'exit' });
  const e = await c.peer.request('ping').catch((x: unknown) => x);
  assert.instance(e, ConnectionClosedError);
  assert.is(c.closeError(), undefined, 'exit code 0 is a clean server-initiated shutdown');
  const t = new StdioClientTransport({ command: process.execPath, args: ['-e', 'process.exit(3)'] });
  const closed = new Promise<Error | undefined>(
    (resolve) => void t.start({ onMessage: () => undefined, onClose: resolve }),
  );
  assert.match((await closed)?.message ?? '', /exited with code 3/);
});

test('stdio server: send() respects backpressure and resolves after drain', async () => {
  const written: string[] = [];
  let release: (() => void) | undefined;
  const out = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _enc, cb) {
      written.push(chunk.toString());
      release = cb;
    },
  });
  const t = new StdioServerTransport({ stdin: new PassThrough(), stdout: out });
  await t.start({ onMessage: () => undefined, onClose: () => undefined });
  let done = false;
  const big = {
    jsonrpc: '2.0' as const,
    method: 'notifications/message',
    params: { level: 'info', data: 'x'.repeat(200) },
  };
  const p = t.send(big).then(() => (done = true));
  await settle();
  assert.not.ok(done, 'waits while the buffer is over its high-water mark');
  release!();
  await p;
  assert.ok(done);
  assert.equal(JSON.parse(written[0]), big);
  await t.close();
  assert.ok(out.writableEnded);
});

/** A started stdio server transport whose stdout records each write it gets. */
async function recordingServer(): Promise<{ writes: string[]; t: StdioServerTransport }> {
  const writes: string[] = [];
  const out = new Writable({
    write(chunk: Buffer, _enc, cb) {
      writes.push(chunk.toString());
      cb();
    },
  });
  const t = new StdioServerTransport({ stdin: new PassThrough(), stdout: out });
  await t.start({ onMessage: () => undefined, onClose: () => undefined });
  return { writes, t };
}

test('stdio server: messages sent in one turn leave as one write, in send order; close() flushes what is queued', async () => {
  const { writes, t } = await recordingServer();
  const sent = [0, 1, 2].map((id) => ({ jsonrpc: '2.0' as const, id, result: { n: id } }));
  for (const m of sent) void t.send(m);
  await Promise.resolve().then(() => t.send({ jsonrpc: '2.0', method: 'notifications/x' }));
  await settle();
  assert.equal(writes.length, 1);
  assert.equal(
    writes[0]
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
    [...sent, { jsonrpc: '2.0', method: 'notifications/x' }],
  );
  void t.send({ jsonrpc: '2.0', method: 'notifications/last' });
  await t.close();
  assert.equal(writes.length, 2);
  assert.equal(JSON.parse(writes[1]), { jsonrpc: '2.0', method: 'notifications/last' });
  await rejectsClosed(t.send({ jsonrpc: '2.0', method: 'notifications/late' }));
});

test('stdio server: a turn that queues over 2 KiB writes early, in pieces of at least 2 KiB, all in send order', async () => {
  const { writes, t } = await recordingServer();
  const sent = Array.from({ length: 100 }, (_, id) => ({
    jsonrpc: '2.0' as const,
    id,
    result: { text: 'x'.repeat(100) },
  }));
  for (const m of sent) void t.send(m);
  await settle();
  assert.ok(writes.length > 1 && writes.length < sent.length, `${writes.length} writes`);
  for (const w of writes.slice(0, -1)) assert.ok(w.length >= 2048, `an early write of ${w.length} characters`);
  assert.equal(
    writes
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
    sent,
  );
  await t.close();
});

async function rejectsClosed(p: Promise<unknown>): Promise<void> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, ConnectionClosedError);
}

test('stdio server: random bytes on stdin never crash it; parse errors are answered and the next ping is served', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 48 }), { maxLength: 8 }), async (chunks) => {
      const input = new PassThrough();
      const output = new PassThrough();
      const out: Msg[] = [];
      const dec = new NdjsonDecoder({
        value: (v) => void out.push(v as Msg),
        error: (e) => {
          throw e;
        },
      });
      output.on('data', (c: Buffer) => dec.push(c));
      const peer = new Peer({
        side: 'server',
        table,
        transport: new StdioServerTransport({ stdin: input, stdout: output, maxLineBytes: 64 }),
      });
      await peer.start();
      for (const c of chunks) input.write(c);
      input.write('\n{"jsonrpc":"2.0","id":"last","method":"ping"}\n');
      // the answer to an over-long line (over 64 bytes here) loads its module on the first such
      // line, and the ping's answer follows it: wait for that (at most 10 s)
      for (let waited = 0; !out.some((m) => m.id === 'last') && waited < 10_000; waited += 10) await sleep(10);
      await settle();
      assert.equal(
        out.filter((m) => m.id === 'last').map((m) => m.result),
        [{}],
      );
      for (const m of out) assert.ok('result' in m || typeof m.error?.code === 'number', JSON.stringify(m));
      input.end();
      await settle();
      assert.ok(peer.closed);
    }),
    { numRuns: 300 },
  );
});

test('stdio server: an over-long line without a readable id gets one -32000 with no id and the server recovers at the next newline', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  const out: Msg[] = [];
  const errors: Error[] = [];
  const dec = new NdjsonDecoder({
    value: (v) => void out.push(v as Msg),
    error: (e) => {
      throw e;
    },
  });
  output.on('data', (c: Buffer) => dec.push(c));
  const t = new StdioServerTransport({ stdin: input, stdout: output, maxLineBytes: 100 });
  const peer = new Peer({ side: 'server', table, transport: t, onError: (e) => errors.push(e) });
  await peer.start();
  for (let i = 0; i < 50; i++) input.write('x'.repeat(50));
  input.write('\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  // the answer's module loads on the first over-long line: wait for both answers (at most 10 s)
  for (let waited = 0; out.length < 2 && waited < 10_000; waited += 10) await sleep(10);
  await settle();
  assert.is(out.length, 2);
  assert.is(out[0].error.code, -32000);
  assert.match(
    out[0].error.message,
    /^Payload Too Large: a message \(2500 bytes\) exceeds the line limit of 100 bytes/,
  );
  assert.not.ok('id' in out[0], 'no id member');
  assert.equal(out[1], { jsonrpc: '2.0', id: 1, result: {} });
  assert.equal(
    errors.map((e) => (e as FrameError).kind),
    ['line-too-long'],
  );
  await peer.close();
  assert.instance(await peer.request('ping').catch((e: unknown) => e), RpcError);
});

test('stdio: write errors on a dead pipe never escape (no unhandled rejection, no uncaught error event)', async () => {
  const escaped: unknown[] = [];
  const onEscape = (e: unknown) => void escaped.push(e);
  process.on('unhandledRejection', onEscape);
  process.on('uncaughtException', onEscape);
  try {
    // server side: an output whose reader is gone, written past its high-water mark
    const dead = new Writable({
      highWaterMark: 64,
      write: (_c, _e, cb) => setTimeout(() => cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })), 1),
    });
    const errors: Error[] = [];
    const t = new StdioServerTransport({ stdin: new PassThrough(), stdout: dead });
    await t.start({ onMessage: () => undefined, onClose: () => undefined, onError: (e) => errors.push(e) });
    const big = {
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { data: 'x'.repeat(1000) },
    } as JSONRPCMessage;
    const sends = [t.send(big), t.send(big)];
    await settle();
    await sleep(20);
    const later = await t.send(big).then(
      () => 'sent',
      (e: unknown) => e,
    );
    assert.instance(later, ConnectionClosedError);
    for (const p of sends) await p.catch(() => undefined);
    assert.equal(errors, [], 'a closed pipe is not a transport error');
    // client side: a server that exits at once, sent to past the pipe's buffer
    for (let i = 0; i < 5; i++) {
      const c = new StdioClientTransport({
        command: process.execPath,
        args: ['-e', 'process.exit(1)'],
        stderr: 'ignore',
      });
      const closed = new Promise<Error | undefined>((r) => void c.start({ onMessage: () => undefined, onClose: r }));
      const huge = {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { data: 'y'.repeat(200_000) },
      } as JSONRPCMessage;
      for (let j = 0; j < 3; j++) void c.send(huge).catch(() => undefined);
      assert.match(String((await closed)?.message), /exited with code 1/);
      await c.close();
    }
    await sleep(20);
    assert.equal(escaped, []);
  } finally {
    process.off('unhandledRejection', onEscape);
    process.off('uncaughtException', onEscape);
  }
});

test.run();
