// Guide: subscriptions (docs/guide/subscriptions.md). Draft subscriptions/listen over stateless
// HTTP: one long-lived request whose response streams list_changed and resources/updated.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RpcError, ServerFeatures, createMemoryPair } from '@mcpgen/runtime';
import { StatelessHttpClientTransport, createStatelessHttpHandler } from '@mcpgen/runtime/http/stateless';
import { Client, Server, table, type Protocol } from '../../generated/draft/index.js';
import * as v2025 from '../../generated/2025-11-25/index.js';

// ---- the server: a note resource that changes, and a tool that adds tools ----
let note = 'buy milk';
const features = new ServerFeatures<Protocol>();
features.resource({
  uri: 'notes://today',
  name: 'today',
  mimeType: 'text/plain',
  read: (uri) => [{ uri, mimeType: 'text/plain', text: note }],
});
features.tool({
  name: 'append',
  inputSchema: { type: 'object', properties: { line: { type: 'string' } }, required: ['line'] },
  handler: async ({ line }) => {
    note = `${note}\n${line}`;
    await features.notifyResourceUpdated('notes://today'); // to the streams subscribed to this URI
    return `appended: ${line}`;
  },
});
const server = new Server({
  serverInfo: { name: 'notes', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers({ table }),
});
features.attach(server); // registrations and notify* calls now reach its listen streams
const endpoint = createStatelessHttpHandler({ tables: [table], toolSchema: (name) => features.inputSchema(name) });
await server.connect(endpoint.transport);
const http = createServer(endpoint);
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

// ---- the client ----
const client = new Client({ clientInfo: { name: 'notes-app', version: '1.0.0' } });
await client.connect(new StatelessHttpClientTransport({ url }));

const received: string[] = [];
let arrived = () => {};
const sub = client.listen(
  { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['notes://today', 'notes://archive'] },
  { onNotification: (method, params) => (received.push(`${method} ${params?.uri ?? ''}`.trim()), arrived()) },
);
const next = (count: number) => new Promise<void>((resolve) => (arrived = () => received.length >= count && resolve()));
// the acknowledgement comes first and says what the server granted: no prompts here (it has none)
assert.deepEqual(await sub.acknowledged, {
  toolsListChanged: true,
  resourceSubscriptions: ['notes://today', 'notes://archive'],
});

// A resource update, caused by another request of the same client:
const updated = next(1);
await client.callTool({ name: 'append', arguments: { line: 'call Bob' } });
await updated;
assert.deepEqual(received, ['notifications/resources/updated notes://today']);
const read = await client.readResource({ uri: 'notes://today' });
assert.deepEqual(read.contents, [{ uri: 'notes://today', mimeType: 'text/plain', text: 'buy milk\ncall Bob' }]);

// A new tool: list_changed (registration batches changes in one notification)
const changed = next(2);
features.tool({ name: 'clear', inputSchema: { type: 'object' }, handler: () => ((note = ''), 'cleared') });
await changed;
assert.equal(received[1], 'notifications/tools/list_changed');
assert.deepEqual(
  (await client.listTools({})).tools.map((t) => t.name),
  ['append', 'clear'],
);

// The client ends its stream (notifications/cancelled); nothing more reaches it.
assert.deepEqual(await sub.close(), { by: 'client', graceful: true });
await features.notifyResourceUpdated('notes://today');
assert.equal(received.length, 2);

// The server ending gracefully answers every open listen request first.
const other = client.listen({ toolsListChanged: true });
await other.acknowledged;
await server.close();
assert.deepEqual(await other.closed, { by: 'server', graceful: true });

// 2025-11-25 has no subscriptions/listen (it has resources/subscribe and session-wide notifications):
const old = new v2025.Client({ clientInfo: { name: 'notes-app', version: '1.0.0' } });
const [a, b] = createMemoryPair();
await new v2025.Server({ serverInfo: { name: 'notes', version: '1.0.0' }, capabilities: {} }).connect(b);
await old.connect(a);
assert.throws(
  () => old.listen({ toolsListChanged: true }),
  (e: unknown) => e instanceof RpcError && e.code === -32601,
);

await old.close();
await client.close();
http.closeAllConnections();
await new Promise<void>((resolve) => http.close(() => resolve()));
console.log('ok subscriptions');
