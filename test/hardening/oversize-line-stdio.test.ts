/**
 * A stdio line over the line limit (16 MiB by default) is answered, not only logged: a request
 * whose id can be read from the line's two ends gets -32000 "Payload Too Large" with that id (the
 * code of the HTTP transports' 413 refusal), one whose id cannot gets the same error with
 * no `id`, and a response whose id can be read fails the client's pending request at once
 * instead of leaving it to its timeout. The stream goes on at the next line, and the line's bytes
 * are never held (only its first and last 4 KiB).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_LINE_BYTES, NdjsonDecoder, PEEK_BYTES, type FrameError } from '../../runtime/codec/ndjson.js';
import { peekMessage } from '../../runtime/jsonrpc/peek.js';
import type { RpcError } from '../../runtime/jsonrpc/errors.js';
import { MessageTooLargeError } from '../../runtime/jsonrpc/peek.js';
import { StdioClientTransport } from '../../runtime/transport/stdio.js';
import { Peer } from '../../runtime/engine/peer.js';
import { table, type Msg } from '../runtime/support.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../bin/mcpgen.js', import.meta.url));
const scripted = fileURLToPath(new URL('../fixtures/stdio-scripted.mjs', import.meta.url));
const coldClient = fileURLToPath(new URL('../fixtures/stdio-cold-client.ts', import.meta.url));

const BIG = 17 * 1024 * 1024;

/** Writes `text` in 1 MiB pieces, waiting for drain. */
async function writeAll(w: NodeJS.WritableStream, text: string): Promise<void> {
  for (let i = 0; i < text.length; i += 1 << 20) {
    if (!w.write(text.slice(i, i + (1 << 20)))) await new Promise((r) => w.once('drain', r));
  }
}

test('serve --stdio: 17 MiB request lines get -32000 with their id (id first or last), or no id; the next ping is answered', async () => {
  const child = spawn(process.execPath, [bin, 'serve', '--stdio'], { cwd: root, stdio: ['pipe', 'pipe', 'ignore'] });
  const out: Msg[] = [];
  let waiter: (() => void) | undefined;
  const dec = new NdjsonDecoder({
    value: (v) => {
      out.push(v as Msg);
      waiter?.();
    },
    error: (e) => {
      throw e;
    },
  });
  child.stdout.on('data', (c: Buffer) => dec.push(c));
  const next = async (n: number) => {
    const until = Date.now() + 30_000;
    while (out.length < n && Date.now() < until)
      await new Promise<void>((r) => {
        waiter = r;
        setTimeout(r, 200);
      });
    return out[n - 1];
  };
  try {
    const pad = 'a'.repeat(BIG);
    const args = `{"name":"echo","arguments":{"text":"${pad}"}}`;
    // our own order: id before params
    const line = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":${args}}`;
    await writeAll(child.stdin, `${line}\n`);
    const first = await next(1);
    assert.is(first?.id, 7);
    assert.is(first.error.code, -32000);
    assert.match(
      first.error.message,
      /^Payload Too Large: a message \(\d+ bytes\) exceeds the line limit of 16777216 bytes/,
    );
    assert.equal(first.error.data, { limit: DEFAULT_MAX_LINE_BYTES, bytes: line.length });
    // the order of serializers that write the id last
    await writeAll(child.stdin, `{"method":"tools/call","params":${args},"jsonrpc":"2.0","id":"req-8"}\n`);
    const second = await next(2);
    assert.is(second?.id, 'req-8');
    assert.is(second.error.code, -32000);
    // the id sits between the huge params and an object member: it cannot be read cheaply
    await writeAll(child.stdin, `{"jsonrpc":"2.0","method":"tools/call","params":${args},"id":9,"_x":{}}\n`);
    const third = await next(3);
    assert.equal(Object.keys(third ?? {}), ['jsonrpc', 'error']);
    assert.is(third.error.code, -32000);
    child.stdin.write('{"jsonrpc":"2.0","id":10,"method":"ping"}\n');
    assert.equal(await next(4), { jsonrpc: '2.0', id: 10, result: {} });
    assert.is(out.length, 4);
  } finally {
    child.stdin.end();
    await new Promise((r) => child.once('close', r));
  }
});

/** A client Peer on the scripted server: `steps` run after `wait` request lines arrived. */
async function scriptedClient(script: object, maxLineBytes?: number) {
  const errors: Error[] = [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [scripted],
    env: { SCRIPT: JSON.stringify(script) },
    stderr: 'inherit',
    maxLineBytes,
    closeStdinTimeoutMs: 500,
    sigtermTimeoutMs: 500,
  });
  const peer = new Peer({ side: 'client', table, transport, onError: (e) => errors.push(e), timeout: 30_000 });
  await peer.start();
  return { peer, errors };
}

const b64 = (s: string) => ({ b64: Buffer.from(s).toString('base64') });

test('stdio client: a 17 MiB response fails its request at once with MessageTooLargeError; the next response is read', async () => {
  const c = await scriptedClient({
    wait: 2,
    steps: [{ big: { id: 0, size: BIG, chunk: 1 << 20 } }, b64('{"jsonrpc":"2.0","id":1,"result":{}}\n')],
    then: 'stay',
  });
  try {
    const big = c.peer.request('tools/call', { name: 'big' }).then(
      () => 'resolved',
      (e: unknown) => e,
    );
    const ping = c.peer.request('ping');
    const e = await big;
    assert.instance(e, MessageTooLargeError);
    assert.is((e as RpcError).code, -32000);
    assert.match(
      (e as Error).message,
      /^Payload Too Large: the response to request 0 \(\d+ bytes\) exceeds the line limit of 16777216 bytes/,
    );
    assert.equal(await ping, {});
    assert.equal(
      c.errors.map((x) => (x as FrameError).kind),
      ['line-too-long'],
    );
  } finally {
    await c.peer.close();
  }
});

test('stdio client: a response over the limit with its id last fails that request; one with no readable id is only reported', async () => {
  const text = 'z'.repeat(20_000);
  const c = await scriptedClient(
    {
      wait: 3,
      steps: [
        b64(`{"result":{"content":[{"type":"text","text":"${text}"}]},"jsonrpc":"2.0","id":1}\n`),
        b64(`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"${text}"}]},"id":0,"_x":[]}\n`),
        b64(
          '{"jsonrpc":"2.0","id":0,"result":{"content":[{"type":"text","text":"late"}]}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n',
        ),
      ],
      then: 'stay',
    },
    16 * 1024,
  );
  try {
    const a = c.peer.request('tools/call', { name: 'a' }).then(
      (r) => r,
      (e: unknown) => e,
    );
    const b = c.peer.request('tools/call', { name: 'b' }).then(
      () => 'resolved',
      (e: unknown) => e,
    );
    const ping = c.peer.request('ping');
    const eb = await b;
    assert.instance(eb, MessageTooLargeError);
    assert.match((eb as Error).message, /the response to request 1 /);
    assert.equal(await ping, {});
    // request 0's over-long response had no readable id: the one after it answers request 0
    assert.equal(await a, { content: [{ type: 'text', text: 'late' }] });
    assert.equal(
      c.errors.map((x) => (x as FrameError).kind),
      ['line-too-long', 'line-too-long'],
    );
  } finally {
    await c.peer.close();
  }
});

test('serve --stdio: an over-long line then the end of input: the refusal and the lines after it are answered before the exit', async () => {
  const child = spawn(process.execPath, [bin, 'serve', '--stdio'], { cwd: root, stdio: ['pipe', 'pipe', 'ignore'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  const exited = new Promise<number | null>((r) => child.once('close', (c) => r(c)));
  // not JSON at all (no id to read), then a ping and a request with an id, then stdin closes at once
  await writeAll(child.stdin, `${'a'.repeat(BIG)}\n`);
  child.stdin.end('{"jsonrpc":"2.0","id":2,"method":"ping"}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
  assert.is(await exited, 0);
  const out = Buffer.concat(chunks)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Msg);
  assert.is(out.length, 3, JSON.stringify(out));
  assert.equal(Object.keys(out[0]!), ['jsonrpc', 'error']);
  assert.is(out[0]!.error.code, -32000);
  assert.equal(out[0]!.error.data, { limit: DEFAULT_MAX_LINE_BYTES, bytes: BIG });
  assert.equal(out.slice(1), [
    { jsonrpc: '2.0', id: 2, result: {} },
    { jsonrpc: '2.0', id: 3, result: {} },
  ]);
});

/**
 * The client in a fresh process (test/fixtures/stdio-cold-client.ts), where the module answering
 * over-long lines loads on the first one: its evaluation waits until the transport has seen the
 * server's process close, so the answer to the over-long line and the line after it are still
 * queued at the exit (in this process the module is loaded already and the queue would be empty
 * by then). Without the wait for them at the close, both requests fail with ConnectionClosedError.
 * Bounded: the fixture stops waiting after 20 s (holdTimedOut), the process is killed after 45 s.
 */
test('stdio client: the server writes an over-long response and a response after it, then exits: both requests settle from what it wrote', async () => {
  const script = {
    wait: 2,
    steps: [{ big: { id: 0, size: 64 * 1024, chunk: 1 << 14 } }, b64('{"jsonrpc":"2.0","id":1,"result":{}}\n')],
    then: 'exit',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', coldClient], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SCRIPT: JSON.stringify(script), MAX_LINE_BYTES: String(16 * 1024), HOLD_MS: '20000' },
  });
  const chunks: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  let killed = false;
  const killer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, 45_000);
  const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
  clearTimeout(killer);
  const text = Buffer.concat(chunks).toString('utf8');
  assert.not.ok(killed, `the client process did not end within 45 s\n--- stdout\n${text}\n--- stderr\n${stderr}`);
  assert.is(code, 0, `${text}\n--- stderr\n${stderr}`);
  const out = JSON.parse(text) as {
    big: { result?: unknown; error?: { name: string; code?: number; message: string } };
    ping: { result?: unknown; error?: { name: string; message: string } };
    errors: string[];
    events: string[];
    holdTimedOut: boolean;
  };
  // the order the case is about: the transport saw the close before the over-long line was answered
  assert.is(out.holdTimedOut, false, text);
  assert.equal(out.events, ['server closed', 'tools/call settled', 'ping settled'], text);
  assert.is(out.big.error?.name, 'MessageTooLargeError', text);
  assert.is(out.big.error?.code, -32000, text);
  assert.match(
    out.big.error!.message,
    /^Payload Too Large: the response to request 0 \(\d+ bytes\) exceeds the line limit of 16384 bytes/,
  );
  assert.equal(out.ping, { result: {} }, text);
  assert.equal(out.errors, ['line-too-long'], text);
});

test('ndjson: an over-long line costs at most 2 x PEEK_BYTES beyond one chunk, and its error carries its exact size, head and tail', () => {
  const errors: FrameError[] = [];
  const max = 1 << 20;
  const d = new NdjsonDecoder({ value: () => undefined, error: (e) => void errors.push(e) }, { maxLineBytes: max });
  const line = `{"jsonrpc":"2.0","id":"h","method":"m","params":{"p":"${'q'.repeat(3 * max)}"},"id":"t"}`;
  const bytes = Buffer.from(`${line}\n`);
  for (let i = 0; i < bytes.length; i += 65536) {
    d.push(bytes.subarray(i, i + 65536));
    assert.ok(d.buffered <= max);
    if (i > max) assert.is(d.buffered, 0, 'nothing of the line is held once it is over the limit');
  }
  assert.is(errors.length, 1);
  assert.is(errors[0].bytes, line.length);
  assert.is(errors[0].head, line.slice(0, PEEK_BYTES));
  assert.is(errors[0].tail, line.slice(-PEEK_BYTES));
  assert.equal(peekMessage(errors[0].head, errors[0].tail), { method: true, response: false, id: 't' });
});

test("peekMessage: from any two ends of a message, a read id is the message's own (never one inside a value)", () => {
  const id = fc.oneof(
    fc.integer(),
    fc.string({ maxLength: 6 }),
    fc.constantFrom('"id":1', '\\', '","id":2,"', 9007199254740993n),
  );
  const decoy = fc.constantFrom('"id":3}', ',"id":4,', '\\"id\\":5', '{"id":6}', '"');
  const member = fc.oneof(
    fc.tuple(
      fc.constantFrom('params', 'result', 'error', 'x'),
      fc.dictionary(fc.constantFrom('id', 'a', 'b'), fc.oneof(decoy, fc.integer(), fc.jsonValue()), { maxKeys: 3 }),
    ),
    fc.tuple(fc.constantFrom('method', 'jsonrpc', 'y'), fc.oneof(decoy, fc.string({ maxLength: 8 }))),
  );
  fc.assert(
    fc.property(
      fc.option(id, { nil: undefined }),
      fc.array(member, { maxLength: 5 }),
      fc.nat(),
      fc.nat(),
      fc.nat(),
      (theId, members, at, h, t) => {
        const entries: Array<[string, unknown]> = [...members];
        if (theId !== undefined) entries.splice(at % (entries.length + 1), 0, ['id', theId]);
        const body = entries
          .map(([k, v]) => `${JSON.stringify(k)}:${typeof v === 'bigint' ? v.toString() : JSON.stringify(v)}`)
          .join(',');
        const text = `{${body}}`;
        const seen = new Map(entries);
        const head = text.slice(0, h % (text.length + 1));
        const tail = text.slice(text.length - (t % (text.length + 1)));
        const p = peekMessage(head, tail);
        if (p.id !== undefined) assert.equal(p.id, theId, text);
        if (p.method) assert.ok(seen.has('method'), text);
        if (p.response) assert.ok(seen.has('result') || seen.has('error'), text);
        // the whole text always gives the id when it is last, or when every member before it is whole
        const whole = peekMessage(text, text);
        if (theId !== undefined && entries[entries.length - 1][0] === 'id') assert.equal(whole.id, theId, text);
      },
    ),
    { numRuns: 2000 },
  );
});

test.run();
