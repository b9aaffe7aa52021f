// docs/guide/dual-era.md: one endpoint answering 2025-11-25 clients (sessions) and draft clients (stateless).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as v2025 from '../../generated/2025-11-25/index.js';
import * as draft from '../../generated/draft/index.js';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { HttpClientTransport, createStreamableHttpHandler } from '@mcpgen/runtime/http';
import { StatelessHttpClientTransport, createStatelessHttpHandler } from '@mcpgen/runtime/http/stateless';
import { createMemoryPair } from '@mcpgen/runtime/memory';
import { EraRouter, createDualEraHttpHandler } from '@mcpgen/runtime/stateless';

// the same tool, registered once per revision's types
const echo = {
  name: 'echo',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
} as const;
function modernServer(): draft.Server {
  const features = new ServerFeatures<draft.Protocol>();
  features.tool({ ...echo, handler: ({ text }) => ({ content: [{ type: 'text', text: `draft: ${text}` }] }) });
  return new draft.Server({
    serverInfo: { name: 'echo', version: '1.0.0' },
    capabilities: features.capabilities(),
    handlers: features.handlers({ table: draft.table }),
  });
}
function legacyServer(): v2025.Server {
  const features = new ServerFeatures<v2025.Protocol>();
  features.tool({ ...echo, handler: ({ text }) => ({ content: [{ type: 'text', text: `2025-11-25: ${text}` }] }) });
  return new v2025.Server({
    serverInfo: { name: 'echo', version: '1.0.0' },
    capabilities: features.capabilities(),
    handlers: features.handlers(),
  });
}

// modern side: one stateless server; legacy side: a server per session
const modern = createStatelessHttpHandler({ tables: [draft.table] });
const modernSide = modernServer();
await modernSide.connect(modern.transport);
const legacy = createStreamableHttpHandler({
  tables: [v2025.table],
  onSession: (transport) => legacyServer().connect(transport),
});
const handler = createDualEraHttpHandler({ modern, legacy });
const http = createServer(handler);
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

const oldClient = new v2025.Client({ clientInfo: { name: 'old', version: '1.0.0' } });
const oldServer = await oldClient.connect(new HttpClientTransport({ url })); // initialize: the legacy side
const newClient = new draft.Client({ clientInfo: { name: 'new', version: '1.0.0' } });
const newServer = await newClient.connect(new StatelessHttpClientTransport({ url })); // server/discover: the modern side
const said = async (client: { callTool: v2025.Client['callTool'] | draft.Client['callTool'] }) => {
  const first = (await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content[0];
  return first?.type === 'text' ? first.text : undefined;
};
console.log(oldServer.protocolVersion, await said(oldClient)); // 2025-11-25 2025-11-25: hi
console.log(newServer.protocolVersion, await said(newClient)); // 2026-07-28 draft: hi

assert.equal(oldServer.protocolVersion, '2025-11-25');
assert.equal(newServer.protocolVersion, draft.protocolVersion);
assert.equal(await said(oldClient), '2025-11-25: hi');
assert.equal(await said(newClient), 'draft: hi');
assert.equal(legacy.sessions.size, 1); // only the 2025-11-25 client opened a session

await Promise.all([oldClient.close(), newClient.close()]);
await handler.close();
await modernSide.close();
http.closeAllConnections();
await new Promise<void>((resolve) => http.close(() => resolve()));

// one connection (stdio, memory): an EraRouter gives each era's server its side
async function serveBothEras(connection: ReturnType<typeof createMemoryPair>[1]): Promise<void> {
  const router = new EraRouter(connection);
  await modernServer().connect(router.modern);
  await legacyServer().connect(router.legacy);
  await router.start();
}
for (const Client of [v2025.Client, draft.Client]) {
  const [clientSide, serverSide] = createMemoryPair();
  await serveBothEras(serverSide);
  const client = new Client({ clientInfo: { name: 'app', version: '1.0.0' } });
  const { protocolVersion } = await client.connect(clientSide);
  assert.equal(await said(client), Client === v2025.Client ? '2025-11-25: hi' : 'draft: hi');
  assert.equal(protocolVersion, Client === v2025.Client ? '2025-11-25' : draft.protocolVersion);
  await client.close();
}

// a client for either kind of server: a draft Client that falls back to 2025-11-25
const [toLegacy, legacyEnd] = createMemoryPair();
await legacyServer().connect(legacyEnd); // a server that knows only 2025-11-25
const either = new draft.Client({ clientInfo: { name: 'app', version: '1.0.0' }, fallbackTables: [v2025.table] });
const found = await either.connect(toLegacy); // server/discover fails with -32600: initialize instead
console.log(found.protocolVersion); // 2025-11-25
assert.equal(found.protocolVersion, '2025-11-25');
assert.equal(await said(either), '2025-11-25: hi');
await either.close();

console.log('ok dual-era');
