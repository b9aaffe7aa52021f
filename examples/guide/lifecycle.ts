// docs/guide/lifecycle.md: the initialize handshake, capability and protocol version negotiation, ping; the stateless revision's server/discover.
import assert from 'node:assert/strict';
import * as v2025 from '../../generated/2025-11-25/index.js';
import * as v2025_06 from '../../generated/2025-06-18/index.js';
import * as draft from '../../generated/draft/index.js';
import { RpcError, UnsupportedVersionError } from '@mcpgen/runtime';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { createMemoryPair } from '@mcpgen/runtime/memory';

const features = new ServerFeatures<v2025.Protocol>();
features.tool({ name: 'hello', inputSchema: { type: 'object' }, handler: () => 'hello' });
// a 2025-11-25 server that also answers clients of 2025-06-18
const newServer = () =>
  new v2025.Server({
    serverInfo: { name: 'greeter', version: '1.0.0' },
    capabilities: features.capabilities(), // { tools: { listChanged: true } }
    handlers: features.handlers(),
    fallbackTables: [v2025_06.table],
  });

const client = new v2025.Client({
  clientInfo: { name: 'app', version: '1.0.0' },
  capabilities: { roots: { listChanged: true } },
});
const [clientSide, serverSide] = createMemoryPair();
await newServer().connect(serverSide);
const description = await client.connect(clientSide); // initialize, then notifications/initialized
console.log(description.protocolVersion, description.serverInfo?.name, description.capabilities);
// 2025-11-25 greeter { tools: { listChanged: true } }

await client.ping(); // either side may ping the other at any time: an empty result

// the server declared no prompts capability: the client does not send prompts/list
const refused = await client.listPrompts({}).catch((e: unknown) => e);
console.log(refused instanceof RpcError, (refused as Error).message);

const oldClient = new v2025_06.Client({ clientInfo: { name: 'old-app', version: '0.9.0' } });
const [oldClientSide, oldServerSide] = createMemoryPair();
await newServer().connect(oldServerSide);
const negotiated = await oldClient.connect(oldClientSide);
console.log(negotiated.protocolVersion); // 2025-06-18: the server answered the version the client asked for

const strict = new v2025.Server({ serverInfo: { name: 'new-only', version: '1.0.0' }, handlers: {} });
const [c3, s3] = createMemoryPair();
await strict.connect(s3);
const mismatch = await new v2025_06.Client({ clientInfo: { name: 'old-app', version: '0.9.0' } })
  .connect(c3)
  .catch((e: unknown) => e);
console.log(mismatch instanceof UnsupportedVersionError, (mismatch as Error).message);
// true server answered protocol version "2025-11-25"; this client supports 2025-06-18 (requested 2025-06-18)

const statelessFeatures = new ServerFeatures<draft.Protocol>();
statelessFeatures.tool({ name: 'hello', inputSchema: { type: 'object' }, handler: () => 'hello' });
const statelessServer = new draft.Server({
  serverInfo: { name: 'greeter', version: '1.0.0' },
  capabilities: statelessFeatures.capabilities(),
  handlers: statelessFeatures.handlers({ table: draft.table }),
});
const statelessClient = new draft.Client({ clientInfo: { name: 'app', version: '1.0.0' } });
const [modernClientSide, modernServerSide] = createMemoryPair();
await statelessServer.connect(modernServerSide);
const discovered = await statelessClient.connect(modernClientSide); // server/discover
console.log(discovered.protocolVersion, discovered.result.supportedVersions); // 2026-07-28 [ '2026-07-28' ]

assert.equal(description.protocolVersion, '2025-11-25');
assert.deepEqual(description.serverInfo, { name: 'greeter', version: '1.0.0' });
assert.deepEqual(description.capabilities, { tools: { listChanged: true } });
assert.ok(refused instanceof RpcError && /prompts/.test(refused.message), String(refused));
assert.equal(negotiated.protocolVersion, '2025-06-18');
assert.deepEqual((await oldClient.callTool({ name: 'hello', arguments: {} })).content, [
  { type: 'text', text: 'hello' },
]);
assert.ok(mismatch instanceof UnsupportedVersionError && mismatch.answered === '2025-11-25', String(mismatch));
assert.equal(discovered.protocolVersion, '2026-07-28');
assert.deepEqual(discovered.result.supportedVersions, ['2026-07-28']);
assert.deepEqual((await statelessClient.callTool({ name: 'hello', arguments: {} })).content, [
  { type: 'text', text: 'hello' },
]);
// the stateless revision has no ping: it is not a method of the generated client
assert.equal('ping' in draft.table.requests.clientToServer, false);

await Promise.all([client.close(), oldClient.close(), statelessClient.close()]);
console.log('ok lifecycle');
