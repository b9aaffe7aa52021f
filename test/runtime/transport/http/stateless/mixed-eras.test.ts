/**
 * Mixed eras with the SDK v1 (@modelcontextprotocol/sdk@1.32.2, 2025 era): our draft client
 * probes with server/discover and falls back to initialize against an SDK v1 server (HTTP
 * sessions and stdio); the SDK v1 client works with our dual-era server (HTTP and stdio).
 * Also the dual-era stdio router over the memory pair with both of our clients.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1HttpClient } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport as Sdk1StdioClient } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPServerTransport as Sdk1HttpServer } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../../../generated/draft/index.js';
import * as v2025 from '../../../../../generated/2025-11-25/index.js';
import { EraRouter } from '../../../../../runtime/stateless/dual-era.js';
import { StatelessHttpClientTransport } from '../../../../../runtime/transport/http/stateless/node-client.js';
import { createMemoryPair } from '../../../../../runtime/transport/memory.js';
import { createStreamableHttpHandler } from '../../../../../runtime/transport/http/session/server.js';
import { StdioClientTransport } from '../../../../../runtime/transport/stdio.js';
import { features, headersFor, post, request, startDualEra, V } from './helpers.js';
import { makeSdk1Server } from './fixtures/sdk1-server.js';
import { SESSION_TABLES } from '../tables.js';

const root = fileURLToPath(new URL('../../../../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/sdk1-server.ts', import.meta.url));
const ourClient = () => new draft.Client({ clientInfo: { name: 'ours', version: '1' }, fallbackTables: [v2025.table] });
const text = (r: { content?: unknown }) => (r.content as Array<{ text?: string }>)[0].text;

/** An SDK v1 server over its stateful Streamable HTTP transport (one transport per session). */
async function sdk1Http() {
  const sessions = new Map<string, Sdk1HttpServer>();
  const statuses: number[] = [];
  const http = createServer(async (req, res) => {
    res.on('finish', () => statuses.push(res.statusCode));
    const sid = req.headers['mcp-session-id'] as string | undefined;
    let t = sid ? sessions.get(sid) : undefined;
    if (!t) {
      t = new Sdk1HttpServer({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => void sessions.set(id, t!),
      });
      await makeSdk1Server().connect(t);
    }
    await t.handleRequest(req, res);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    statuses,
    close: async () => {
      for (const t of sessions.values()) await t.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

test('our draft client → SDK v1 server over HTTP: the discover POST gets a 4xx without a modern error, the client initializes a 2025-11-25 session', async () => {
  const s = await sdk1Http();
  const c = ourClient();
  const t = new StatelessHttpClientTransport({ url: s.url, standaloneStream: false });
  const d = await c.connect(t);
  assert.is(d.protocolVersion, '2025-11-25');
  assert.is(c.table.lifecycle, 'handshake');
  assert.ok(t.legacy, 'switched to the 2025 transport');
  assert.ok(t.sessionId);
  assert.ok(s.statuses[0] >= 400 && s.statuses[0] < 500, `probe status ${s.statuses[0]}`);
  assert.is(text(await c.callTool({ name: 'add', arguments: { a: 1, b: 2 } })), '3');
  await c.close();
  await s.close();
});

test('our draft client → SDK v1 server over stdio: server/discover fails with a non-modern error, fallback to initialize', async () => {
  const c = ourClient();
  await c.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', fixture, 'stdio'],
      cwd: root,
      stderr: 'ignore',
    }),
  );
  assert.is(c.server?.protocolVersion, '2025-11-25');
  assert.is(text(await c.callTool({ name: 'add', arguments: { a: 40, b: 2 } })), '42');
  await c.close();
});

test('our draft client → our 2025-11-25-only endpoint: 400 without a modern error body, fallback to a session', async () => {
  const legacy = createStreamableHttpHandler({
    tables: SESSION_TABLES,
    onSession: async (t) => {
      const f = features();
      await new v2025.Server({
        serverInfo: { name: 'old', version: '1' },
        capabilities: f.capabilities(),
        handlers: f.handlers({ table: v2025.table }) as never,
      }).connect(t);
    },
  });
  const http = createServer(legacy);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const c = ourClient();
  const t = new StatelessHttpClientTransport({
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    standaloneStream: false,
  });
  assert.is((await c.connect(t)).serverInfo?.name, 'old');
  assert.is(text((await c.callTool({ name: 'echo', arguments: { text: 'x' } })) as never), 'x');
  await c.close();
  await legacy.close();
  http.closeAllConnections();
  await new Promise<void>((r) => http.close(() => r()));
});

test("our draft client without a 2025 fallback table: the SDK v1 server's answer is an error, no initialize", async () => {
  const s = await sdk1Http();
  const c = new draft.Client({ clientInfo: { name: 'ours', version: '1' } });
  try {
    await c.connect(new StatelessHttpClientTransport({ url: s.url }));
    assert.unreachable('should reject');
  } catch (e) {
    assert.match((e as Error).message, /Bad Request|HTTP 4\d\d/);
  }
  await c.close();
  await s.close();
});

test('SDK v1 client → our dual-era endpoint (a 2025-11-25 session) while our draft client is served statelessly', async () => {
  const s = await startDualEra();
  const c = new Sdk1Client({ name: 'sdk1', version: '1.32.2' });
  const t = new Sdk1HttpClient(new URL(s.url));
  await c.connect(t);
  assert.ok(t.sessionId);
  assert.is(c.getServerVersion()?.name, 'dual');
  const r = await c.callTool({ name: 'echo', arguments: { text: 'v1' } });
  assert.is(text(r as never), 'v1');
  const modern = ourClient();
  await modern.connect(new StatelessHttpClientTransport({ url: s.url }));
  assert.is(modern.server?.protocolVersion, V);
  assert.is(text(await modern.callTool({ name: 'echo', arguments: { text: 'draft' } })), 'draft');
  await t.terminateSession();
  await c.close();
  await modern.close();
  await s.close();
});

test('SDK v1 client → mcpgen serve --rev draft --stdio (dual-era)', async () => {
  const c = new Sdk1Client({ name: 'sdk1', version: '1.32.2' });
  await c.connect(
    new Sdk1StdioClient({
      command: process.execPath,
      args: ['bin/mcpgen.js', 'serve', '--rev', 'draft', '--stdio'],
      cwd: root,
      stderr: 'ignore',
    }),
  );
  assert.match(String(text((await c.callTool({ name: 'test_simple_text', arguments: {} })) as never)), /simple text/);
  await c.close();
});

test('EraRouter: a 2025-11-25 client and a draft client on one memory connection each; cancellation routed to the side holding the request', async () => {
  for (const era of ['legacy', 'modern'] as const) {
    const [a, b] = createMemoryPair();
    const probe = { aborted: [] as string[], started: [] as string[] };
    const f = features(probe);
    const router = new EraRouter(b);
    const modern = new draft.Server({
      serverInfo: { name: 'm', version: '1' },
      capabilities: f.capabilities(),
      handlers: f.handlers({ table: draft.table }) as never,
    });
    const legacy = new v2025.Server({
      serverInfo: { name: 'l', version: '1' },
      capabilities: f.capabilities(),
      handlers: f.handlers({ table: v2025.table }) as never,
    });
    await modern.connect(router.modern);
    await legacy.connect(router.legacy);
    await router.start();
    const c = era === 'legacy' ? new v2025.Client({ clientInfo: { name: 'c', version: '1' } }) : ourClient();
    const d = await c.connect(a);
    assert.is(d.serverInfo?.name, era === 'legacy' ? 'l' : 'm');
    assert.is(text((await c.callTool({ name: 'echo', arguments: { text: era } })) as never), era);
    const abort = new AbortController();
    const p = c.callTool({ name: 'slow', arguments: { ms: 3000 } }, { signal: abort.signal }).catch((e: Error) => e);
    while (probe.started.length === 0) await new Promise((r) => setTimeout(r, 5));
    abort.abort();
    assert.instance(await p, Error);
    for (let i = 0; i < 100 && probe.aborted.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.is(probe.aborted.length, 1, era);
    await c.close();
  }
});

test('dual-era endpoint: a body read once serves either era; invalid UTF-8 → 400 -32700 from the modern side; oversize → 413', async () => {
  const s = await startDualEra();
  try {
    const modern = await post(
      s.url,
      headersFor('tools/call', 'echo'),
      request('m1', 'tools/call', { name: 'echo', arguments: { text: 'once' } }),
    );
    assert.equal([modern.status, modern.body.id, modern.body.result.content[0].text], [200, 'm1', 'once']);
    const init = await post(
      s.url,
      { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      },
    );
    assert.is(init.status, 200);
    assert.ok(init.headers.get('mcp-session-id'), 'a legacy session was opened');
    const bad = await fetch(s.url, {
      method: 'POST',
      headers: headersFor('tools/call', 'echo'),
      body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    });
    assert.is(bad.status, 400);
    assert.is((await bad.json()).error.code, -32700);
    const big = await post(
      s.url,
      headersFor('tools/call', 'echo'),
      request('b', 'tools/call', { name: 'echo', arguments: { text: 'x'.repeat(5 * 1024 * 1024) } }),
    );
    assert.is(big.status, 413);
  } finally {
    await s.close();
  }
});

test.run();
