/**
 * The options the engine gives a transport with each response (runtime/engine/answer.ts
 * `reply`): `{ relatedRequestId: <its id> }` (HTTP routes a response to its request's stream by
 * them), none where the transport says it routes no response by options (`routesResponses:
 * false`: stdio). A message the transport sorted itself (`onMessageOfKind`) is handled as the engine sorts it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Peer } from '../../../runtime/engine/peer.js';
import type { JSONRPCMessage, SendOptions, Transport, TransportEvents } from '../../../runtime/jsonrpc/transport.js';
import { settle, table, wire } from '../support.js';

/** The memory transport of `wire`, recording the options of each send. */
class Recording implements Transport {
  readonly sent: Array<{ message: JSONRPCMessage; options: SendOptions | undefined }> = [];
  constructor(
    private readonly inner: Transport,
    readonly routesResponses?: false,
  ) {}
  start(events: TransportEvents): Promise<void> {
    return this.inner.start(events);
  }
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    this.sent.push({ message, options });
    return this.inner.send(message, options);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

async function serve(routesResponses?: false) {
  const w = await wire();
  const transport = new Recording(w.transport, routesResponses);
  const peer = new Peer({ side: 'server', table, transport });
  peer.setRequestHandler('tools/list', () => ({ tools: [] }));
  await peer.start();
  await w.send({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} });
  await w.send({ jsonrpc: '2.0', id: 'b', method: 'no/such', params: {} });
  await settle();
  return { transport, w };
}

test('responses carry { relatedRequestId } when the transport does not say otherwise', async () => {
  const { transport, w } = await serve();
  assert.equal(
    transport.sent.map((s) => s.options),
    [{ relatedRequestId: 7 }, { relatedRequestId: 'b' }],
  );
  assert.equal(w.received[0], { jsonrpc: '2.0', id: 7, result: { tools: [] } });
  assert.is(w.received[1].error.code, -32601);
});

test('responses carry no options where the transport routes none by them (routesResponses: false)', async () => {
  const { transport, w } = await serve(false);
  assert.equal(
    transport.sent.map((s) => s.options),
    [undefined, undefined],
  );
  assert.equal(w.received[0], { jsonrpc: '2.0', id: 7, result: { tools: [] } });
  assert.is(w.received[1].error.code, -32601);
});

test('a message given with the kind the transport found (onMessageOfKind) is handled as one the engine sorts', async () => {
  const answers: unknown[] = [];
  for (const kind of [undefined, 'request'] as const) {
    const w = await wire();
    let events!: TransportEvents;
    const transport: Transport = {
      start: (e) => ((events = e), w.transport.start(e)),
      send: (m, o) => w.transport.send(m, o),
      close: () => w.transport.close(),
    };
    const peer = new Peer({ side: 'server', table, transport });
    peer.setRequestHandler('tools/list', () => ({ tools: [] }));
    await peer.start();
    const m = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} } as const;
    if (kind) events.onMessageOfKind?.(m, kind);
    else events.onMessage(m);
    await settle();
    answers.push(w.received);
  }
  assert.equal(answers[0], [{ jsonrpc: '2.0', id: 1, result: { tools: [] } }]);
  assert.equal(answers[1], answers[0]);
});

test.run();
