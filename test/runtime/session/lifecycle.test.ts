import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client as Client1125, Server as Server1125, table as table1125 } from '../../../generated/2025-11-25/index.js';
import { Client as Client0618, Server as Server0618, table as table0618 } from '../../../generated/2025-06-18/index.js';
import { Client as ClientDraft, Server as ServerDraft } from '../../../generated/draft/index.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { UnsupportedVersionError } from '../../../runtime/session/client.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';

const tool = { name: 'echo', inputSchema: { type: 'object' as const, properties: { text: { type: 'string' } } } };

function server1125(extra: Partial<ConstructorParameters<typeof Server1125>[0]> = {}) {
  return new Server1125({
    serverInfo: { name: 'test-server', version: '1.0.0' },
    capabilities: { tools: {}, logging: {} },
    handlers: {
      'tools/list': () => ({ tools: [tool] }),
      'tools/call': (p) => ({
        content: [{ type: 'text', text: String((p.arguments as { text?: string })?.text ?? '') }],
      }),
    },
    ...extra,
  });
}

test('handshake: initialize, negotiated version, typed calls', async () => {
  const [a, b] = createMemoryPair();
  const server = server1125({ instructions: 'be nice' });
  await server.connect(b);
  const client = new Client1125({ clientInfo: { name: 'c', version: '0' } });
  const info = await client.connect(a);
  assert.is(info.protocolVersion, '2025-11-25');
  assert.equal(info.serverInfo, { name: 'test-server', version: '1.0.0' });
  assert.is(info.instructions, 'be nice');
  const list = await client.listTools();
  assert.equal(
    list.tools.map((t) => t.name),
    ['echo'],
  );
  const res = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  assert.equal(res.content, [{ type: 'text', text: 'hi' }]);
  await client.close();
});

test('capabilities: a request the server did not declare is refused with -32601', async () => {
  const [a, b] = createMemoryPair();
  await server1125().connect(b);
  const client = new Client1125({ clientInfo: { name: 'c', version: '0' } });
  await client.connect(a);
  const err = await client.listPrompts().catch((e: unknown) => e);
  assert.instance(err, RpcError);
  assert.is((err as RpcError).code, -32601);
  // and the server refuses it too when a client sends it anyway
  const raw = await client.peer.request('prompts/list', {}).catch((e: unknown) => e);
  assert.is((raw as RpcError).code, -32601);
  await client.close();
});

test('version negotiation: a 2025-11-25 client accepts a 2025-06-18 server through its fallback table', async () => {
  const [a, b] = createMemoryPair();
  const server = new Server0618({
    serverInfo: { name: 'old', version: '1' },
    capabilities: { tools: {} },
    handlers: { 'tools/list': () => ({ tools: [tool] }) },
  });
  await server.connect(b);
  const client = new Client1125({ clientInfo: { name: 'c', version: '0' }, fallbackTables: [table0618] });
  const info = await client.connect(a);
  assert.is(info.protocolVersion, '2025-06-18');
  assert.is(client.table, table0618);
  assert.equal((await client.listTools()).tools.length, 1);
  await client.close();
});

test('version negotiation: a version the client does not speak is refused with a clear error', async () => {
  const [a, b] = createMemoryPair();
  await new Server0618({ serverInfo: { name: 'old', version: '1' }, capabilities: {} }).connect(b);
  const client = new Client1125({ clientInfo: { name: 'c', version: '0' } });
  const err = await client.connect(a).catch((e: unknown) => e);
  assert.instance(err, UnsupportedVersionError);
  assert.match((err as Error).message, /2025-06-18/);
  assert.match((err as Error).message, /2025-11-25/);
});

test('server answers an older client with the older version when it has that table', async () => {
  const [a, b] = createMemoryPair();
  await server1125({ fallbackTables: [table0618] }).connect(b);
  const client = new Client0618({ clientInfo: { name: 'c', version: '0' } });
  const info = await client.connect(a);
  assert.is(info.protocolVersion, '2025-06-18');
  await client.close();
});

test('requests before initialize are refused with -32600; ping is allowed', async () => {
  const [a, b] = createMemoryPair();
  await server1125().connect(b);
  const { Peer } = await import('../../../runtime/engine/peer.js');
  const peer = new Peer({ side: 'client', table: table1125, transport: a });
  await peer.start();
  assert.equal(await peer.request('ping'), {});
  const err = await peer.request('tools/list', {}).catch((e: unknown) => e);
  assert.is((err as RpcError).code, -32600);
  await peer.close();
});

test('logging: setLevel filters notifications/message by level', async () => {
  const [a, b] = createMemoryPair();
  const server = server1125();
  await server.connect(b);
  const got: unknown[] = [];
  const client = new Client1125({
    clientInfo: { name: 'c', version: '0' },
    notificationHandlers: { 'notifications/message': (p) => void got.push(p.level) },
  });
  await client.connect(a);
  await client.setLevel({ level: 'warning' });
  assert.is(await server.log('info', 'dropped'), false);
  assert.is(await server.log('error', 'kept'), true);
  await client.ping();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(got, ['error']);
  await client.close();
});

test('stateless (draft): discover, then requests carry _meta; a request without it gets -32602', async () => {
  const [a, b] = createMemoryPair();
  const server = new ServerDraft({
    serverInfo: { name: 'd', version: '1' },
    capabilities: { tools: {} },
    handlers: { 'tools/list': () => ({ resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: [tool] }) },
  });
  await server.connect(b);
  const client = new ClientDraft({ clientInfo: { name: 'c', version: '0' } });
  const info = await client.connect(a);
  assert.is(info.protocolVersion, '2026-07-28');
  assert.equal(info.serverInfo, { name: 'd', version: '1' });
  assert.equal(
    (await client.listTools({})).tools.map((t) => t.name),
    ['echo'],
  );
  // no argument: the session fills in the params and their _meta (listTools() as on 2025-11-25)
  assert.equal(
    (await client.listTools()).tools.map((t) => t.name),
    ['echo'],
  );
  assert.ok((await client.discover()).supportedVersions.includes('2026-07-28'));
  const err = await client.peer.request('tools/list', {}).catch((e: unknown) => e);
  assert.is((err as RpcError).code, -32602);
  await client.close();
});

test.run();
