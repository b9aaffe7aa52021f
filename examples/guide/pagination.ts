// docs/guide/pagination.md: list results in pages (nextCursor), served by ServerFeatures and followed by paginate().
import assert from 'node:assert/strict';
import { Client, Server, type Protocol } from '../../generated/2025-11-25/index.js';
import { RpcError } from '@mcpgen/runtime';
import { ServerFeatures, paginate } from '@mcpgen/runtime/features';
import { createMemoryPair } from '@mcpgen/runtime/memory';

const features = new ServerFeatures<Protocol>({ pageSize: 2 }); // default 100
for (const name of ['alpha', 'beta', 'gamma', 'delta', 'epsilon'])
  features.tool({ name, inputSchema: { type: 'object' }, handler: () => name });

const server = new Server({
  serverInfo: { name: 'many-tools', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers(),
});
const client = new Client({ clientInfo: { name: 'app', version: '1.0.0' } });
const [clientSide, serverSide] = createMemoryPair();
await server.connect(serverSide);
await client.connect(clientSide);

const first = await client.listTools({});
console.log(
  first.tools.map((t) => t.name),
  typeof first.nextCursor,
); // [ 'alpha', 'beta' ] string
const second = await client.listTools({ cursor: first.nextCursor });
console.log(second.tools.map((t) => t.name)); // [ 'gamma', 'delta' ]

const names: string[] = [];
for await (const page of paginate(client, 'tools/list', {})) names.push(...page.tools.map((t) => t.name));
console.log(names); // [ 'alpha', 'beta', 'gamma', 'delta', 'epsilon' ]

// a cursor the server did not issue: -32602
const bad = await client.listTools({ cursor: 'not-a-cursor' }).catch((e: unknown) => e);
console.log(bad instanceof RpcError && bad.code); // -32602

assert.deepEqual(
  first.tools.map((t) => t.name),
  ['alpha', 'beta'],
);
assert.deepEqual(
  second.tools.map((t) => t.name),
  ['gamma', 'delta'],
);
assert.equal(typeof second.nextCursor, 'string');
const last = await client.listTools({ cursor: second.nextCursor });
assert.deepEqual(
  last.tools.map((t) => t.name),
  ['epsilon'],
);
assert.equal(last.nextCursor, undefined, 'the last page has no nextCursor');
assert.deepEqual(names, ['alpha', 'beta', 'gamma', 'delta', 'epsilon']);
assert.ok(bad instanceof RpcError && bad.code === -32602, String(bad));

await client.close();
console.log('ok pagination');
