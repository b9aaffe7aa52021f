// Guide: roots (docs/guide/roots.md). A 2025-11-25 client exposes its workspace folders; the
// server lists them with roots/list and lists again after notifications/roots/list_changed.
import assert from 'node:assert/strict';
import { CapabilityNotDeclaredError, ServerFeatures, createMemoryPair } from '@mcpgen/runtime';
import {
  Client,
  Server,
  table,
  type ListRootsResult,
  type Protocol,
  type Root,
} from '../../generated/2025-11-25/index.js';

// ---- the client: its roots, and the notification when they change ----
let workspace: Root[] = [{ uri: 'file:///home/ada/project', name: 'project' }];
let listed = 0;
const client = new Client({
  clientInfo: { name: 'editor', version: '1.0.0' },
  capabilities: { roots: { listChanged: true } },
  handlers: { 'roots/list': () => (listed++, { roots: workspace }) },
});

// ---- the server: asks once, caches, forgets on list_changed ----
let cached: Root[] | undefined;
const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'workspace',
  inputSchema: { type: 'object' },
  handler: async (_args, ctx) => {
    cached ??= (await ctx.sendRequest<ListRootsResult>('roots/list')).roots;
    return { content: [{ type: 'text', text: cached.map((r) => r.uri).join('\n') }] };
  },
});
let changes = 0;
const server = new Server({
  serverInfo: { name: 'indexer', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers({ table }),
  notificationHandlers: {
    'notifications/roots/list_changed': () => {
      changes++;
      cached = undefined; // the next use lists again
    },
  },
});
const [a, b] = createMemoryPair();
await server.connect(b);
await client.connect(a);

const text = async () => {
  const r = await client.callTool({ name: 'workspace', arguments: {} });
  return r.content[0].type === 'text' ? r.content[0].text : '';
};
assert.equal(await text(), 'file:///home/ada/project');
assert.equal(await text(), 'file:///home/ada/project');
assert.equal(listed, 1, 'the second call used the cached list');

// The user adds a folder: the client tells the server, which lists again on its next use.
workspace = [...workspace, { uri: 'file:///home/ada/lib', name: 'lib' }];
await client.sendRootsListChanged();
await client.ping(); // the notification was handled before this answer
assert.equal(changes, 1);
assert.equal(await text(), 'file:///home/ada/project\nfile:///home/ada/lib');
assert.equal(listed, 2);

// The server may also ask directly, typed by the revision:
const { roots } = await server.listRoots();
assert.deepEqual(
  roots.map((r) => r.name),
  ['project', 'lib'],
);

// A client that did not declare `roots` is never asked: -32601, nothing sent.
const bare = new Client({ clientInfo: { name: 'cli', version: '1.0.0' } });
const other = new Server({ serverInfo: { name: 'indexer', version: '1.0.0' }, capabilities: {} });
const [c, d] = createMemoryPair();
await other.connect(d);
await bare.connect(c);
const refused = await other.listRoots().catch((e: unknown) => e);
assert.ok(refused instanceof CapabilityNotDeclaredError);
assert.equal(refused.code, -32601);
assert.equal(refused.message, 'roots/list: the client did not declare capability roots');

await client.close();
await bare.close();
console.log('ok roots');
