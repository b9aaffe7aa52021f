/**
 * Interop with the official SDK v2 (@modelcontextprotocol/client@2.4.0 and
 * @modelcontextprotocol/server@2.4.0, 2026-07-28), both directions, over HTTP and stdio.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client as Sdk2Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as Sdk2StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../../../generated/draft/index.js';
import * as v2025 from '../../../../../generated/2025-11-25/index.js';
import { StatelessHttpClientTransport } from '../../../../../runtime/transport/http/stateless/node-client.js';
import { StdioClientTransport } from '../../../../../runtime/transport/stdio.js';
import { startDualEra, startModern, V } from './helpers.js';
import { makeSdk2Server } from './fixtures/sdk2-server.js';

const root = fileURLToPath(new URL('../../../../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/sdk2-server.ts', import.meta.url));
const ourClient = () => new draft.Client({ clientInfo: { name: 'ours', version: '1' }, fallbackTables: [v2025.table] });
const sdkClient = (mode: 'auto' | { pin: string }) =>
  new Sdk2Client({ name: 'sdk2-client', version: '2.4.0' }, { versionNegotiation: { mode } });
const text = (r: { content?: unknown }) => (r.content as Array<{ text?: string }>)[0].text;

/** node:http in front of a WHATWG fetch handler. */
async function serveFetch(fetchHandler: (r: Request) => Promise<Response>) {
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const abort = new AbortController();
    res.on('close', () => abort.abort());
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const response = await fetchHandler(
      new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body, signal: abort.signal }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) break;
      res.write(value);
    }
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

test('SDK v2 client (pinned 2026-07-28) → our stateless endpoint: list, call with x-mcp-header, discover', async () => {
  const s = await startModern();
  const c = sdkClient({ pin: V });
  await c.connect(new StreamableHTTPClientTransport(new URL(s.url)));
  const tools = await c.listTools();
  assert.ok(tools.tools.some((t) => t.name === 'sql'));
  assert.is(text(await c.callTool({ name: 'echo', arguments: { text: 'from sdk2' } })), 'from sdk2');
  const r = await c.callTool({ name: 'sql', arguments: { region: 'us-west1', query: 'q' } });
  assert.is(r.isError, undefined, JSON.stringify(r));
  await c.close();
  await s.close();
});

test('SDK v2 client (auto) → our dual-era endpoint stays modern', async () => {
  const s = await startDualEra();
  const c = sdkClient('auto');
  await c.connect(new StreamableHTTPClientTransport(new URL(s.url)));
  assert.is(text(await c.callTool({ name: 'echo', arguments: { text: 'auto' } })), 'auto');
  assert.is(s.legacySessions(), 0);
  await c.close();
  await s.close();
});

test('our draft client → SDK v2 createMcpHandler over HTTP: discover, list, call', async () => {
  const handler = createMcpHandler(() => makeSdk2Server());
  const s = await serveFetch(handler.fetch);
  const c = ourClient();
  const t = new StatelessHttpClientTransport({ url: s.url });
  const d = await c.connect(t);
  assert.is(d.protocolVersion, V);
  assert.is(t.legacy, undefined);
  assert.ok((await c.listTools({})).tools.some((x) => x.name === 'add'));
  const r = await c.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  assert.is(text(r), '5');
  await c.close();
  await handler.close();
  await s.close();
});

test('our draft client → SDK v2 serveStdio (child process)', async () => {
  const c = ourClient();
  await c.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', fixture, 'stdio'],
      cwd: root,
      stderr: 'ignore',
    }),
  );
  assert.is(c.table.lifecycle, 'stateless');
  assert.is(text(await c.callTool({ name: 'add', arguments: { a: 20, b: 22 } })), '42');
  await c.close();
});

test('SDK v2 client (pinned) → mcpgen serve --rev draft --stdio', async () => {
  const c = sdkClient({ pin: V });
  await c.connect(
    new Sdk2StdioClientTransport({
      command: process.execPath,
      args: ['bin/mcpgen.js', 'serve', '--rev', 'draft', '--stdio'],
      cwd: root,
      stderr: 'ignore',
    }),
  );
  const r = await c.callTool({ name: 'test_simple_text', arguments: {} });
  assert.match(String(text(r)), /simple text/);
  await c.close();
});

test.run();
