import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { ConnectionClosedError } from '../../../runtime/jsonrpc/errors.js';
import type { JSONRPCMessage, TransportEvents } from '../../../runtime/jsonrpc/transport.js';
import { settle } from '../support.js';

function recorder() {
  const log: unknown[] = [];
  const events: TransportEvents = {
    onMessage: (m) => log.push(m),
    onClose: (e) => log.push({ closed: e?.message ?? true }),
  };
  return { log, events };
}

test('memory: delivery is asynchronous, ordered, and copies through JSON', async () => {
  const [a, b] = createMemoryPair();
  const rb = recorder();
  await a.start(recorder().events);
  await b.start(rb.events);
  const m = { jsonrpc: '2.0', id: 1, method: 'x', params: { u: undefined, n: 1 } } as JSONRPCMessage;
  const sent = [a.send(m), a.send({ jsonrpc: '2.0', method: 'y' })];
  assert.equal(rb.log, [], 'nothing delivered synchronously');
  await Promise.all(sent);
  await settle();
  assert.equal(rb.log, [
    { jsonrpc: '2.0', id: 1, method: 'x', params: { n: 1 } },
    { jsonrpc: '2.0', method: 'y' },
  ]);
  assert.is.not(rb.log[0], m);
});

test('memory: messages sent before start wait; close reaches both ends once, after queued messages', async () => {
  const [a, b] = createMemoryPair();
  const ra = recorder();
  const rb = recorder();
  await a.start(ra.events);
  await a.send({ jsonrpc: '2.0', method: 'early' });
  await a.close();
  await a.close();
  await b.start(rb.events);
  await settle();
  assert.equal(rb.log, [{ jsonrpc: '2.0', method: 'early' }, { closed: true }]);
  assert.equal(ra.log, [{ closed: true }]);
  try {
    await b.send({ jsonrpc: '2.0', method: 'late' });
    assert.unreachable();
  } catch (e) {
    assert.instance(e, ConnectionClosedError);
  }
});

test('memory: closeWith passes the reason to both ends', async () => {
  const [a, b] = createMemoryPair();
  const ra = recorder();
  const rb = recorder();
  await a.start(ra.events);
  await b.start(rb.events);
  b.closeWith(new Error('wire cut'));
  await settle();
  assert.equal(ra.log, [{ closed: 'wire cut' }]);
  assert.equal(rb.log, [{ closed: 'wire cut' }]);
});

test.run();
