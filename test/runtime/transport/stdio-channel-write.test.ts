/**
 * What the stdio channel (runtime/transport/stdio-channel.ts `LineChannel`) writes: the frames
 * sent in one turn leave as one write, each byte for byte what ../../../runtime/codec/ndjson.ts
 * `encodeFrame` makes of its message (U+2028 and U+2029 escaped wherever they sit in the batch).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Writable, PassThrough } from 'node:stream';
import { encodeFrame } from '../../../runtime/codec/ndjson.js';
import { LineChannel } from '../../../runtime/transport/stdio-channel.js';
import { UnserializableMessageError } from '../../../runtime/jsonrpc/errors.js';

function channel() {
  const writes: string[] = [];
  const output = new Writable({
    write(chunk: Buffer, _enc, cb) {
      writes.push(chunk.toString('utf8'));
      cb();
    },
  });
  return { writes, channel: new LineChannel(new PassThrough(), output, false, {}, 'server', () => undefined) };
}

const tick = () => new Promise((done) => setImmediate(done));

test('stdio channel: one turn of frames is one write of their encodeFrame bytes, line separators escaped anywhere in it', async () => {
  const { writes, channel: c } = channel();
  const messages = [
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 2, result: { text: 'a\u2028b\u2029c\u2028' } },
    { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'plain é ✓' } },
    { jsonrpc: '2.0', id: 3, result: { text: '\u2029' } },
  ];
  await Promise.all(messages.map((m) => c.write(m)));
  await tick();
  assert.equal(writes, [messages.map(encodeFrame).join('')]);
  assert.not.ok(/[\u2028\u2029]/.test(writes[0]));
  assert.is(writes[0].split('\n').length, 5);
  // a later turn: its own write
  await c.write(messages[1]);
  await tick();
  assert.equal(writes.slice(1), [encodeFrame(messages[1])]);
});

test('stdio channel: a message JSON cannot write rejects as encodeFrame throws, and the others still leave', async () => {
  const { writes, channel: c } = channel();
  const cycle: Record<string, unknown> = { jsonrpc: '2.0', id: 1, result: {} };
  (cycle.result as Record<string, unknown>).self = cycle;
  const errors = await Promise.all(
    [undefined, cycle].map((m) =>
      c.write(m).then(
        () => undefined,
        (e: unknown) => e,
      ),
    ),
  );
  for (const [i, m] of [undefined, cycle].entries()) {
    assert.instance(errors[i], UnserializableMessageError);
    assert.throws(
      () => encodeFrame(m),
      (e: Error) => e.message === (errors[i] as Error).message,
    );
  }
  await c.write({ jsonrpc: '2.0', id: 2, result: {} });
  await tick();
  assert.equal(writes, ['{"jsonrpc":"2.0","id":2,"result":{}}\n']);
});

test.run();
