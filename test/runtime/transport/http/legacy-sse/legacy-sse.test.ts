/**
 * The deprecated HTTP+SSE transport (2024-11-05), both ways, with @modelcontextprotocol/sdk
 * 1.32.2: the SDK's SSEClientTransport against `serve --http` (GET /sse, POST /messages),
 * including log notifications and a sampling request from the server on the stream; our
 * fallback client (connectHttp) against an SDK SSEServerTransport server that only speaks the
 * old transport, against `serve --http`'s Streamable endpoint, and where it must not fall back
 * (no SSE stream, a first event that is not `endpoint`); status codes of the old endpoints.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CreateMessageRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { Client } from '../../../../../generated/2025-11-25/index.js';
import { loadRevision } from '../../../../../cli/revisions.js';
import { serveHttp, type HttpServe } from '../../../../../cli/serve/http.js';
import { connectHttp } from '../../../../../runtime/transport/http/legacy-sse/fallback.js';
import { LegacySseClientTransport } from '../../../../../runtime/transport/http/legacy-sse/legacy-sse.js';
import { HttpStatusError } from '../../../../../runtime/transport/http/io/request.js';
import { raw, sleep, waitFor } from '../session/helpers.js';

let served: HttpServe;

test.before(async () => {
  served = await serveHttp(await loadRevision('2025-11-25'), { port: 0 });
});
test.after(async () => {
  await served.close();
});

/** An SDK server on the old transport only: GET /sse, POST /messages; anything else 404. */
async function sdkLegacyServer(): Promise<{
  url: string;
  server: Server;
  transports: Map<string, SSEServerTransport>;
}> {
  const transports = new Map<string, SSEServerTransport>();
  const server = createServer(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'GET' && u.pathname === '/sse') {
      const t = new SSEServerTransport('/messages', res);
      transports.set(t.sessionId, t);
      t.onclose = () => transports.delete(t.sessionId);
      const mcp = new McpServer({ name: 'sdk-legacy', version: '1.0.0' });
      mcp.registerTool('echo', { description: 'Echoes text', inputSchema: { text: z.string() } }, async ({ text }) => ({
        content: [{ type: 'text', text }],
      }));
      await mcp.connect(t);
      return;
    }
    if (req.method === 'POST' && u.pathname === '/messages') {
      const t = transports.get(u.searchParams.get('sessionId') ?? '');
      if (!t) return void res.writeHead(404).end('Session not found');
      await t.handlePostMessage(req, res);
      return;
    }
    res.writeHead(404).end('Not Found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sse`, server, transports };
}

test('SDK SSEClientTransport against serve --http: initialize, tools/list, tools/call', async () => {
  const client = new SdkClient({ name: 'sdk-legacy-client', version: '0' });
  await client.connect(new SSEClientTransport(new URL(served.sseUrl)));
  assert.is(served.legacy.sessions.size, 1, 'one old-transport session');
  assert.ok(client.getServerVersion()?.name, 'server info from initialize');
  const tools = await client.listTools();
  assert.ok(
    tools.tools.some((t) => t.name === 'echo'),
    'tools/list names echo',
  );
  const r = await client.callTool({ name: 'echo', arguments: { text: 'old client' } });
  assert.equal((r.content as Array<{ text?: string }>)[0].text, 'old client');
  await client.close();
  await waitFor('the legacy session to end', () => served.legacy.sessions.size === 0).catch(() => undefined);
  assert.is(served.legacy.sessions.size, 0, 'closing the stream ends the session');
});

test('SDK SSEClientTransport: server notifications and a server-to-client request (sampling) on the old stream', async () => {
  const client = new SdkClient({ name: 'sdk-legacy-client', version: '0' }, { capabilities: { sampling: {} } });
  const logs: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(String(n.params.data)));
  client.setRequestHandler(CreateMessageRequestSchema, async (r) => ({
    model: 'm',
    role: 'assistant' as const,
    content: { type: 'text' as const, text: `echo ${(r.params.messages[0].content as { text?: string }).text}` },
  }));
  await client.connect(new SSEClientTransport(new URL(served.sseUrl)));
  try {
    const logged = await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    assert.equal((logged.content as Array<{ text?: string }>)[0].text, 'Logging completed');
    assert.equal(logs, ['Tool execution started', 'Tool processing data', 'Tool execution completed']);
    const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } });
    assert.equal((sampled.content as Array<{ text?: string }>)[0].text, 'LLM response: echo hi');
  } finally {
    await client.close();
  }
});

test('connectHttp against an SDK server that speaks only HTTP+SSE: falls back to the old transport', async () => {
  const sdk = await sdkLegacyServer();
  try {
    const transport = connectHttp(sdk.url);
    const client = new Client({ clientInfo: { name: 'fallback', version: '0' } });
    await client.connect(transport);
    assert.is(transport.kind, 'legacy');
    assert.is(sdk.transports.size, 1);
    assert.ok(transport.sessionId && sdk.transports.has(transport.sessionId), 'session id from the endpoint event');
    const tools = await client.listTools();
    assert.equal(
      tools.tools.map((t) => t.name),
      ['echo'],
    );
    const r = await client.callTool({ name: 'echo', arguments: { text: 'new client, old server' } });
    assert.equal((r.content[0] as { text?: string }).text, 'new client, old server');
    await client.close();
  } finally {
    sdk.server.closeAllConnections();
    await new Promise<void>((r) => sdk.server.close(() => r()));
  }
});

test('connectHttp against a Streamable HTTP endpoint stays on Streamable HTTP', async () => {
  const transport = connectHttp(served.url, { standaloneStream: false });
  const client = new Client({ clientInfo: { name: 'fallback', version: '0' } });
  await client.connect(transport);
  assert.is(transport.kind, 'streamable');
  assert.ok(served.handler.sessions.has(transport.sessionId!));
  const r = await client.callTool({ name: 'echo', arguments: { text: 'modern' } });
  assert.equal((r.content[0] as { text?: string }).text, 'modern');
  await client.close();
});

test('connectHttp to serve --http /sse: POST gets 405, the GET finds endpoint, old transport used', async () => {
  const transport = connectHttp(served.sseUrl);
  const client = new Client({ clientInfo: { name: 'fallback', version: '0' } });
  await client.connect(transport);
  assert.is(transport.kind, 'legacy');
  const r = await client.callTool({ name: 'echo', arguments: { text: 'ours both sides' } });
  assert.equal((r.content[0] as { text?: string }).text, 'ours both sides');
  await client.close();
});

test('connectHttp: a 404 URL that serves no SSE stream keeps the POST error', async () => {
  const transport = connectHttp(served.url.replace('/mcp', '/nowhere'));
  const client = new Client({ clientInfo: { name: 'fallback', version: '0' } });
  try {
    await client.connect(transport);
    assert.unreachable('connect should fail');
  } catch (e) {
    assert.match(String((e as Error).message), /404/);
  }
  await transport.close();
});

test('connectHttp: POST 405 and a GET whose first event is not endpoint keeps the POST error', async () => {
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('event: message\ndata: {}\n\n');
      return;
    }
    res.writeHead(405, { Allow: 'GET' }).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const transport = connectHttp(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  const client = new Client({ clientInfo: { name: 'fallback', version: '0' } });
  try {
    await client.connect(transport);
    assert.unreachable('connect should fail');
  } catch (e) {
    assert.match(String((e as Error).message), /405/);
    assert.is(transport.kind, undefined, 'neither transport chosen');
  } finally {
    await transport.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test('old endpoints: status codes', async () => {
  const port = served.port;
  const host = `127.0.0.1:${port}`;
  const json = { 'Content-Type': 'application/json', Host: host };
  // a live session for the POST checks
  const t = new LegacySseClientTransport({ url: served.sseUrl });
  await t.start({ onMessage() {}, onClose() {} });
  const sid = t.sessionId!;
  assert.ok(served.legacy.sessions.has(sid));

  const ok = await raw(port, {
    path: `/messages?sessionId=${sid}`,
    headers: json,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/x' }),
  });
  assert.is(ok.status, 202);
  const unknown = await raw(port, { path: '/messages?sessionId=nope', headers: json, body: '{}' });
  assert.is(unknown.status, 404);
  const none = await raw(port, { path: '/messages', headers: json, body: '{}' });
  assert.is(none.status, 400);
  const bad = await raw(port, { path: `/messages?sessionId=${sid}`, headers: json, body: '{not json' });
  assert.is(bad.status, 400);
  assert.is(JSON.parse(bad.body).error.code, -32700);
  const shape = await raw(port, { path: `/messages?sessionId=${sid}`, headers: json, body: '[1]' });
  assert.is(shape.status, 400);
  assert.is(JSON.parse(shape.body).error.code, -32600);
  const type = await raw(port, {
    path: `/messages?sessionId=${sid}`,
    headers: { 'Content-Type': 'text/plain', Host: host },
    body: '{}',
  });
  assert.is(type.status, 415);
  assert.is((await raw(port, { method: 'GET', path: '/messages', headers: { Host: host } })).status, 405);
  assert.is((await raw(port, { method: 'POST', path: '/sse', headers: json, body: '{}' })).status, 405);
  assert.is((await raw(port, { method: 'GET', path: '/sse', headers: { Host: 'evil.example' } })).status, 403);
  assert.is(
    (await raw(port, { method: 'GET', path: '/sse', headers: { Host: host, Origin: 'http://evil.example' } })).status,
    403,
  );

  await t.close();
  for (let i = 0; i < 50 && served.legacy.sessions.has(sid); i++) await sleep(10);
  assert.not.ok(served.legacy.sessions.has(sid), 'session gone with its stream');
  const gone = await raw(port, { path: `/messages?sessionId=${sid}`, headers: json, body: '{}' });
  assert.is(gone.status, 404);
});

test('LegacySseClientTransport: messages after endpoint, a POST error with its JSON body', async () => {
  const messages: unknown[] = [];
  // every POST names a session the endpoint does not hold: its 404 carries a JSON-RPC error body
  const t = new LegacySseClientTransport({
    url: served.sseUrl,
    fetch: (url, init) =>
      fetch(init?.method === 'POST' ? String(url).replace(/sessionId=[^&]*/, 'sessionId=nope') : url, init),
  });
  await t.start({ onMessage: (m) => void messages.push(m), onClose() {} });
  const e = await t.send({ jsonrpc: '2.0', id: 1, method: 'ping' }).then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, HttpStatusError);
  assert.is((e as HttpStatusError).status, 404);
  assert.equal((e as HttpStatusError).body, { jsonrpc: '2.0', error: { code: -32000, message: 'Session not found' } });
  assert.is((e as Error).message, 'POST ping: HTTP 404 (Session not found)');
  // the real endpoint: the answer comes as a `message` event on the stream
  const live = new LegacySseClientTransport({ url: served.sseUrl });
  await live.start({ onMessage: (m) => void messages.push(m), onClose() {} });
  await live.send({
    jsonrpc: '2.0',
    id: 7,
    method: 'initialize',
    params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await waitFor('the initialize answer', () => messages.length === 1);
  assert.is((messages[0] as { id: number }).id, 7);
  await live.close();
  await t.close();
});

test.run();
