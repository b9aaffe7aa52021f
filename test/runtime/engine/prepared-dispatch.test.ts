/**
 * The engine looks up a method's table row and handler once (runtime/engine/dispatch.ts
 * `prepare`): a handler set or removed on the engine, another table, or an option table that can
 * still change must be seen by the next request, as when every request looked them up.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Peer, type PeerOptions, type RequestHandler } from '../../../runtime/engine/peer.js';
import { ErrorCode } from '../../../runtime/jsonrpc/errors.js';
import type { ProtocolTable } from '../../../runtime/protocol/table.js';
import { settle, table, wire } from '../support.js';

async function serve(options: Partial<PeerOptions>) {
  const w = await wire();
  const peer = new Peer({ side: 'server', table, transport: w.transport, ...options });
  await peer.start();
  let id = 0;
  /** The answer to one tools/list request. */
  const ask = async () => {
    const n = w.received.length;
    await w.send({ jsonrpc: '2.0', id: ++id, method: 'tools/list', params: {} });
    await settle();
    assert.is(w.received.length, n + 1);
    return w.received[n];
  };
  return { peer, ask };
}

const listing =
  (name: string): RequestHandler =>
  () => ({ tools: [{ name, inputSchema: { type: 'object' } }] });

test('a handler set or removed on the engine answers the next request (after one was served)', async () => {
  const { peer, ask } = await serve({ requestHandlers: Object.freeze({ 'tools/list': listing('first') }) });
  assert.is((await ask()).result.tools[0].name, 'first');
  assert.is((await ask()).result.tools[0].name, 'first');
  peer.setRequestHandler('tools/list', listing('second'));
  assert.is((await ask()).result.tools[0].name, 'second');
  peer.setRequestHandler('tools/list', undefined);
  const removed = await ask();
  assert.is(removed.error.code, ErrorCode.MethodNotFound);
  assert.is(removed.error.message, 'Method not found: tools/list');
});

test('a table without the method, switched to after a request was served: -32601', async () => {
  const { peer, ask } = await serve({ requestHandlers: Object.freeze({ 'tools/list': listing('first') }) });
  assert.is((await ask()).result.tools[0].name, 'first');
  const { 'tools/list': _, ...rest } = table.requests.clientToServer;
  peer.setTable({ ...table, requests: { ...table.requests, clientToServer: rest } } as ProtocolTable);
  assert.is((await ask()).error.code, ErrorCode.MethodNotFound);
  peer.setTable(table);
  assert.is((await ask()).result.tools[0].name, 'first');
});

test('an option table that is not frozen is read on every request (a handler replaced in it answers)', async () => {
  const handlers: Record<string, RequestHandler> = { 'tools/list': listing('first') };
  const { ask } = await serve({ requestHandlers: handlers });
  assert.is((await ask()).result.tools[0].name, 'first');
  handlers['tools/list'] = listing('second');
  assert.is((await ask()).result.tools[0].name, 'second');
  delete handlers['tools/list'];
  assert.is((await ask()).error.code, ErrorCode.MethodNotFound);
});

test.run();
