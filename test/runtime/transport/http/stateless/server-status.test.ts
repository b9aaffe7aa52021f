/**
 * The stateless endpoint's statuses and errors over a real node:http server with real fetch
 * (draft basic/transports/streamable-http): POST only, metadata headers, `_meta`, unknown
 * methods, JSON and SSE replies, Mcp-Param-* validation, cancellation by closing the stream,
 * listen streams; case 011 input B and the draft half of case 006.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SseParser } from '../../../../../runtime/codec/sse.js';
import { ACCEPT, headersFor, META, post, request, startModern, tick, V } from './helpers.js';

const s = await startModern();
const discover = (p: string) => ({
  jsonrpc: '2.0',
  id: 'd1',
  method: 'server/discover',
  params: { _meta: { 'io.modelcontextprotocol/protocolVersion': p, 'io.modelcontextprotocol/clientCapabilities': {} } },
});
const base = { 'Content-Type': 'application/json', Accept: ACCEPT, 'Mcp-Method': 'server/discover' };

test('011 B g: no MCP-Protocol-Version header → 400 -32020 echoing id "d1", not dispatched', async () => {
  const r = await post(s.url, base, discover(V));
  assert.is(r.status, 400);
  assert.is(r.body.error.code, -32020);
  assert.is(r.body.id, 'd1');
});

test('011 B h: header 2026-07-28, body 2025-11-25 → 400 -32020', async () => {
  const r = await post(s.url, { ...base, 'MCP-Protocol-Version': V }, discover('2025-11-25'));
  assert.is(r.status, 400);
  assert.is(r.body.error.code, -32020);
});

test('011 B i: 1900-01-01 in both → 400 -32022 with supported and requested', async () => {
  const r = await post(s.url, { ...base, 'MCP-Protocol-Version': '1900-01-01' }, discover('1900-01-01'));
  assert.is(r.status, 400);
  assert.is(r.body.error.code, -32022);
  assert.equal(r.body.error.data, { supported: [V], requested: '1900-01-01' });
  assert.is(r.body.id, 'd1');
});

test('011 B j: matching header and body → 200 DiscoverResult', async () => {
  const r = await post(s.url, { ...base, 'MCP-Protocol-Version': V }, discover(V));
  assert.is(r.status, 200);
  assert.is(r.body.id, 'd1');
  assert.ok(r.body.result.supportedVersions.includes(V));
  assert.is(r.body.result.resultType, 'complete');
});

test('006 draft: GET and DELETE → 405 (Allow: POST); Mcp-Session-Id is ignored and never minted', async () => {
  for (const method of ['GET', 'DELETE']) {
    const r = await post(s.url, { Accept: 'text/event-stream', 'Mcp-Session-Id': 'S1' }, undefined, { method });
    assert.is(r.status, 405, method);
    assert.is(r.headers.get('allow'), 'POST');
  }
  const r = await post(
    s.url,
    { ...headersFor('tools/list'), 'Mcp-Session-Id': '00000000-never-issued' },
    request(3, 'tools/list'),
  );
  assert.is(r.status, 200);
  assert.ok(Array.isArray(r.body.result.tools));
  assert.is(r.headers.get('mcp-session-id'), null);
});

test('Mcp-Method missing or different from the body → 400 -32020', async () => {
  const h = headersFor('tools/list');
  delete h['Mcp-Method'];
  let r = await post(s.url, h, request(1, 'tools/list'));
  assert.equal([r.status, r.body.error.code, r.body.id], [400, -32020, 1]);
  r = await post(s.url, headersFor('prompts/list'), request(2, 'tools/list'));
  assert.equal([r.status, r.body.error.code], [400, -32020]);
  assert.match(r.body.error.message, /Mcp-Method/);
});

test('Mcp-Name: required for tools/call, resources/read, prompts/get; must match; Base64 sentinel decoded', async () => {
  let r = await post(
    s.url,
    headersFor('tools/call'),
    request(1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }),
  );
  assert.equal([r.status, r.body.error.code], [400, -32020]);
  r = await post(
    s.url,
    headersFor('tools/call', 'sql'),
    request(2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }),
  );
  assert.equal([r.status, r.body.error.code], [400, -32020]);
  r = await post(s.url, headersFor('resources/read'), request(3, 'resources/read', { uri: 'file:///x' }));
  assert.equal([r.status, r.body.error.code], [400, -32020]);
  r = await post(
    s.url,
    headersFor('tools/call', 'echo'),
    request(4, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }),
  );
  assert.equal([r.status, r.body.result.content[0].text], [200, 'hi']);
  r = await post(
    s.url,
    headersFor('tools/call', `=?base64?${Buffer.from('echo').toString('base64')}?=`),
    request(5, 'tools/call', { name: 'echo', arguments: { text: 'b64' } }),
  );
  assert.equal([r.status, r.body.result.content[0].text], [200, 'b64']);
});

test('missing _meta protocol version or client capabilities → 400 -32602', async () => {
  let r = await post(s.url, headersFor('tools/list'), { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  assert.equal([r.status, r.body.error.code, r.body.id], [400, -32602, 1]);
  r = await post(
    s.url,
    headersFor('tools/list'),
    request(2, 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': V }),
  );
  assert.equal([r.status, r.body.error.code], [400, -32602]);
});

test('an unsupported version (header and _meta 2099-01-01) without client capabilities → 400 -32022 naming the supported versions, not -32602', async () => {
  const r = await post(
    s.url,
    { ...headersFor('tools/list'), 'MCP-Protocol-Version': '2099-01-01' },
    request(3, 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }),
  );
  assert.equal([r.status, r.body.error.code, r.body.id], [400, -32022, 3]);
  assert.is(r.body.error.message, 'Unsupported protocol version');
  assert.equal(r.body.error.data, { supported: [V], requested: '2099-01-01' });
});

test('a legacy initialize on the modern-only endpoint → 400 -32022 naming the supported versions', async () => {
  const r = await post(
    s.url,
    { 'Content-Type': 'application/json', Accept: ACCEPT },
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
    },
  );
  assert.equal([r.status, r.body.error.code, r.body.id], [400, -32022, 1]);
  assert.equal(r.body.error.data, { supported: [V], requested: '2025-11-25' });
  assert.is(r.headers.get('mcp-session-id'), null);
});

test('methods the revision removed (initialize with the modern _meta, ping, logging/setLevel, resources/subscribe) → 404 -32601', async () => {
  for (const [i, method] of [
    'initialize',
    'ping',
    'logging/setLevel',
    'resources/subscribe',
    'resources/unsubscribe',
  ].entries()) {
    const r = await post(s.url, headersFor(method), request(i + 20, method, { uri: 'test://x', level: 'info' }));
    assert.equal([method, r.status, r.body.error?.code, r.body.id], [method, 404, -32601, i + 20]);
  }
});

test('unknown method → 404 with -32601', async () => {
  const r = await post(s.url, headersFor('nope/nothing'), request(9, 'nope/nothing'));
  assert.is(r.status, 404);
  assert.equal([r.body.id, r.body.error.code], [9, -32601]);
});

test('transport checks: 406 Accept, 415 Content-Type, 400 -32700 not JSON, 400 -32600 response body, 202 notification', async () => {
  let r = await post(s.url, { ...headersFor('tools/list'), Accept: 'application/json' }, request(1, 'tools/list'));
  assert.is(r.status, 406);
  r = await post(s.url, { ...headersFor('tools/list'), 'Content-Type': 'text/plain' }, request(1, 'tools/list'));
  assert.is(r.status, 415);
  r = await post(
    s.url,
    { ...headersFor('tools/list'), 'Content-Type': 'application/json; charset=utf-16' },
    request(1, 'tools/list'),
  );
  assert.is(r.status, 415);
  r = await post(s.url, { ...headersFor('tools/list'), 'Content-Encoding': 'gzip' }, request(1, 'tools/list'));
  assert.is(r.status, 415);
  r = await post(s.url, headersFor('tools/list'), '{nope');
  assert.equal([r.status, r.body.error.code], [400, -32700]);
  r = await post(s.url, headersFor('tools/list'), { jsonrpc: '2.0', id: 1, result: {} });
  assert.equal([r.status, r.body.error.code], [400, -32600]);
  r = await post(s.url, headersFor('notifications/progress'), {
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: 1, progress: 1 },
  });
  assert.is(r.status, 202);
});

test('Origin not allowed → 403', async () => {
  const r = await post(s.url, { ...headersFor('tools/list'), Origin: 'http://evil.example' }, request(1, 'tools/list'));
  assert.is(r.status, 403);
});

test('Mcp-Param-*: present and matching → served; missing, different, or extra → 400 -32020; integers compare numerically; nested path', async () => {
  const call = (id: number, args: Record<string, unknown>) =>
    request(id, 'tools/call', { name: 'sql', arguments: args });
  const h = headersFor('tools/call', 'sql');
  let r = await post(
    s.url,
    { ...h, 'Mcp-Param-Region': 'us-west1', 'mcp-param-limit': '42.0', 'Mcp-Param-Tenant': 'acme' },
    call(1, { region: 'us-west1', limit: 42, opts: { tenant: 'acme' }, query: 'q' }),
  );
  assert.is(r.status, 200, JSON.stringify(r.body));
  r = await post(s.url, h, call(2, { region: 'us-west1', query: 'q' }));
  assert.equal([r.status, r.body.error.code], [400, -32020]);
  assert.match(r.body.error.message, /Mcp-Param-Region/);
  r = await post(s.url, { ...h, 'Mcp-Param-Region': 'eu' }, call(3, { region: 'us-west1', query: 'q' }));
  assert.equal([r.status, r.body.error.code], [400, -32020]);
  r = await post(s.url, { ...h, 'Mcp-Param-Region': 'eu' }, call(4, { query: 'q' }));
  assert.equal([r.status, r.body.error.code], [400, -32020]);
  // null and absent values: no header expected
  r = await post(s.url, h, call(5, { region: null, query: 'q' }));
  assert.is.not(r.body.error?.code, -32020); // the headers agree; the tool's input schema answers the null
  r = await post(s.url, h, call(6, { query: 'q' }));
  assert.is(r.status, 200);
  // a non-ASCII value travels Base64-encoded
  r = await post(
    s.url,
    { ...h, 'Mcp-Param-Region': `=?base64?${Buffer.from('Hello, 世界').toString('base64')}?=` },
    call(7, { region: 'Hello, 世界', query: 'q' }),
  );
  assert.is(r.status, 200);
  r = await post(s.url, { ...h, 'Mcp-Param-Region': '=?base64?!!!?=' }, call(8, { region: 'x', query: 'q' }));
  assert.equal([r.status, r.body.error.code], [400, -32020]);
});

test('SSE reply: related progress first, then the response; JSON when nothing goes first', async () => {
  const r = await post(
    s.url,
    headersFor('tools/call', 'slow'),
    request(
      1,
      'tools/call',
      { name: 'slow', arguments: { ms: 60 }, _meta: { ...META, progressToken: 'p1' } },
      { ...META, progressToken: 'p1' },
    ),
  );
  assert.is(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /text\/event-stream/);
  assert.is(r.headers.get('x-accel-buffering'), 'no');
  assert.ok(r.messages.length >= 2);
  assert.is(r.messages[0].method, 'notifications/progress');
  assert.is(r.messages[0].params.progressToken, 'p1');
  assert.equal([r.body.id, r.body.result.content[0].text], [1, 'done']);
  const j = await post(
    s.url,
    headersFor('tools/call', 'slow'),
    request(2, 'tools/call', { name: 'slow', arguments: { ms: 30 } }),
  );
  assert.match(j.headers.get('content-type') ?? '', /application\/json/);
  assert.is(j.body.result.content[0].text, 'done');
});

test('the same request id from two POSTs at once: each gets its own answer', async () => {
  const [a, b] = await Promise.all([
    post(s.url, headersFor('tools/call', 'echo'), request(7, 'tools/call', { name: 'echo', arguments: { text: 'a' } })),
    post(s.url, headersFor('tools/call', 'echo'), request(7, 'tools/call', { name: 'echo', arguments: { text: 'b' } })),
  ]);
  assert.equal([a.body.id, a.body.result.content[0].text, b.body.id, b.body.result.content[0].text], [7, 'a', 7, 'b']);
});

test('cancellation: closing the response stream aborts the handler and nothing more is sent', async () => {
  const abort = new AbortController();
  const before = s.probe.aborted.length;
  const res = await fetch(s.url, {
    method: 'POST',
    headers: headersFor('tools/call', 'slow'),
    body: JSON.stringify(
      request(1, 'tools/call', { name: 'slow', arguments: { ms: 5000 } }, { ...META, progressToken: 't' }),
    ),
    signal: abort.signal,
  });
  const reader = res.body!.getReader();
  await reader.read(); // the first progress event
  abort.abort();
  for (let i = 0; i < 50 && s.probe.aborted.length === before; i++) await tick(10);
  assert.is(s.probe.aborted.length, before + 1);
  assert.is(s.handler.transport.inFlight, 0);
});

test('subscriptions/listen: a long-lived SSE stream, acknowledged first, then list_changed; closing it ends the subscription', async () => {
  const abort = new AbortController();
  const res = await fetch(s.url, {
    method: 'POST',
    headers: headersFor('subscriptions/listen'),
    body: JSON.stringify(request('L1', 'subscriptions/listen', { notifications: { toolsListChanged: true } })),
    signal: abort.signal,
  });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const reader = res.body!.getReader();
  const parser = new SseParser();
  const got: any[] = [];
  const next = async () => {
    while (got.length === 0) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended');
      got.push(
        ...parser
          .push(value)
          .filter((e) => e.data !== '')
          .map((e) => JSON.parse(e.data)),
      );
    }
    return got.shift();
  };
  const ack = await next();
  assert.is(ack.method, 'notifications/subscriptions/acknowledged');
  assert.is(ack.params._meta['io.modelcontextprotocol/subscriptionId'], 'L1');
  s.features.tool({ name: 'added', handler: () => 'x' });
  const changed = await next();
  assert.is(changed.method, 'notifications/tools/list_changed');
  assert.is(changed.params._meta['io.modelcontextprotocol/subscriptionId'], 'L1');
  abort.abort();
  for (let i = 0; i < 50 && s.server.subscriptions!.size > 0; i++) await tick(10);
  assert.is(s.server.subscriptions!.size, 0);
  s.features.removeTool('added');
});

test.after(() => s.close());
test.run();
