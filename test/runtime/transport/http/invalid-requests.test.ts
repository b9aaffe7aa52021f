/**
 * Invalid requests answered alike over stdio (the engine over a wire) and over HTTP, both eras
 * (one dual-era endpoint: 2025-11-25 sessions, 2026-07-28 stateless; real Servers, real sockets),
 * as JSON-RPC 2.0 §4-5 decides:
 * - by-position `params` (`[1]`) is a valid JSON-RPC request whose params MCP cannot take:
 *   -32602 "Invalid params: params must be an object" with the request's id (HTTP 200 from the
 *   session engine, 400 from the stateless checks, as their other -32602s); the draft said
 *   "missing _meta", stdio and 2025 -32600;
 * - `params` neither object nor array (`"x"`, `null`): -32600 with the id, the same words over
 *   HTTP as over stdio ("params must be an object"; HTTP said "an object or array");
 * - a request reusing the id of a request still in flight on its session: HTTP 400 -32600 with
 *   that id and the engine's words (it had no id and other words);
 * - an id that is no id (`true`) and an object with an id but no method, result or error: -32600
 *   without id, the same words everywhere (stdio said "request id must be…", HTTP "not a request,
 *   notification or response").
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Peer } from '../../../../runtime/engine/peer.js';
import { ErrorCode } from '../../../../runtime/jsonrpc/errors.js';
import { recordingLogger, settle, table, wire } from '../../support.js';
import { headersFor, post, request, startDualEra, type Running } from './stateless/helpers.js';

type Json = Record<string, any>;
const V25 = '2025-11-25';

let srv: Running;
let session: Record<string, string>;
test.before(async () => {
  srv = await startDualEra();
  const plain = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const init = await post(srv.url, plain, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: V25, capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
  });
  session = {
    ...plain,
    'Mcp-Session-Id': init.headers.get('mcp-session-id')!,
    'MCP-Protocol-Version': V25,
  };
  await post(srv.url, session, { jsonrpc: '2.0', method: 'notifications/initialized' });
});
test.after(() => srv.close());

/** The engine's answer over a wire (what stdio sends) to `m`. */
async function overStdio(m: Json): Promise<Json> {
  const w = await wire();
  const peer = new Peer({ side: 'server', table, transport: w.transport, logger: recordingLogger() });
  await peer.start();
  await w.send(m as never);
  await settle();
  await peer.close();
  assert.is(w.received.length, 1, JSON.stringify(w.received));
  return w.received[0] as Json;
}

const PARAMS_ARRAY = {
  jsonrpc: '2.0',
  id: 11,
  error: { code: ErrorCode.InvalidParams, message: 'Invalid params: params must be an object' },
};

test('params [1]: -32602 with the id over stdio, HTTP 2025 (200) and HTTP draft (400)', async () => {
  const m = { jsonrpc: '2.0', id: 11, method: 'tools/list', params: [1] };
  assert.equal(await overStdio(m), PARAMS_ARRAY);
  const s = await post(srv.url, session, m);
  assert.is(s.status, 200);
  assert.equal(s.body, PARAMS_ARRAY);
  const d = await post(srv.url, headersFor('tools/list'), m);
  assert.is(d.status, 400);
  assert.equal(d.body, PARAMS_ARRAY);
});

for (const params of ['x', null]) {
  test(`params ${JSON.stringify(params)}: -32600 with the id, the same words over stdio and HTTP (both eras)`, async () => {
    const m = { jsonrpc: '2.0', id: 12, method: 'tools/list', params };
    const expected = {
      jsonrpc: '2.0',
      id: 12,
      error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: params must be an object' },
    };
    assert.equal(await overStdio(m), expected);
    for (const headers of [session, headersFor('tools/list')]) {
      const r = await post(srv.url, headers, m);
      assert.is(r.status, 400);
      assert.equal(r.body, expected);
    }
  });
}

const NO_ID_ROWS: Array<[string, Json, string]> = [
  ['id true', { jsonrpc: '2.0', id: true, method: 'tools/list' }, 'Invalid Request: id must be a string or an integer'],
  ['no method', { jsonrpc: '2.0', id: 15 }, 'Invalid Request: message has no method, result or error'],
];
for (const [what, m, message] of NO_ID_ROWS) {
  test(`${what}: -32600 without id, the same words over stdio and HTTP (both eras)`, async () => {
    const expected = { jsonrpc: '2.0', error: { code: ErrorCode.InvalidRequest, message } };
    assert.equal(await overStdio(m), expected);
    for (const headers of [session, headersFor('tools/list')]) {
      const r = await post(srv.url, headers, m);
      assert.is(r.status, 400);
      assert.equal(r.body, expected);
    }
  });
}

test('HTTP 2025: a request reusing an in-flight id gets 400 -32600 with that id, as stdio answers it; the first still completes', async () => {
  const call = { jsonrpc: '2.0', id: 21, method: 'tools/call', params: { name: 'slow', arguments: { ms: 600 } } };
  const first = post(srv.url, session, call);
  const started = Date.now();
  while (!srv.probe.started.length && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 10));
  const again = await post(srv.url, session, { jsonrpc: '2.0', id: 21, method: 'ping' });
  assert.is(again.status, 400);
  assert.equal(again.body, {
    jsonrpc: '2.0',
    id: 21,
    error: { code: ErrorCode.InvalidRequest, message: 'Invalid Request: request id 21 is already in use' },
  });
  const done = await first;
  assert.is(done.status, 200);
  assert.equal((done.body as Json).result.content, [{ type: 'text', text: 'done' }]);
  // the draft has no such refusal: each POST is its own request, ids unique per POST
  const d = await post(srv.url, headersFor('tools/list'), request(21, 'tools/list'));
  assert.is(d.status, 200);
});

test.run();
