// Guide: caching (docs/guide/caching.md). Draft caching hints: the server puts ttlMs and
// cacheScope on cacheable results, the client serves fresh ones from its cache and drops them
// on list_changed / resources/updated.
import assert from 'node:assert/strict';
import { ServerFeatures, createMemoryPair } from '@mcpgen/runtime';
import { Client, Server, table, type Protocol } from '../../generated/draft/index.js';

// ---- the server ----
let reads = 0;
let price = 100;
const features = new ServerFeatures<Protocol>();
features.tool({ name: 'quote', inputSchema: { type: 'object' }, handler: () => `price ${price}` });
features.resource({ uri: 'shop://price', name: 'price', read: (uri) => (reads++, [{ uri, text: String(price) }]) });
const server = new Server({
  serverInfo: { name: 'shop', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers({ table }),
  // hints of cacheable results the handlers left without: ttlMs in ms, cacheScope public | private
  cache: {
    default: { ttlMs: 60_000, cacheScope: 'public' },
    methods: { 'resources/read': { ttlMs: 5_000, cacheScope: 'private' } },
  },
});
features.attach(server);

// ---- the client: its cache is on by default; the clock is injectable ----
let now = 0;
const client = new Client({
  clientInfo: { name: 'storefront', version: '1.0.0' },
  cache: { maxEntries: 100, now: () => now },
});
const [a, b] = createMemoryPair();
await server.connect(b);
await client.connect(a);

// Results carry the hints:
const tools = await client.listTools({});
assert.equal(tools.ttlMs, 60_000);
assert.equal(tools.cacheScope, 'public');
const first = await client.readResource({ uri: 'shop://price' });
assert.deepEqual([first.ttlMs, first.cacheScope], [5_000, 'private']);

// Fresh while now < received + ttlMs: served from the cache, no request sent.
now += 4_999;
assert.deepEqual((await client.readResource({ uri: 'shop://price' })).contents, [{ uri: 'shop://price', text: '100' }]);
assert.equal(reads, 1);
now += 1;
price = 120;
assert.deepEqual((await client.readResource({ uri: 'shop://price' })).contents, [{ uri: 'shop://price', text: '120' }]);
assert.equal(reads, 2, 'stale at received + ttlMs: fetched again');

// _meta is not part of the key; other params are.
await client.listTools({ _meta: { progressToken: 'p1' } });
assert.equal(client.cache?.stats.hits, 2);

// Notifications invalidate at once. In the stateless revisions they travel on a listen stream:
let updated!: () => void;
const arrived = new Promise<void>((resolve) => (updated = resolve));
const sub = client.listen(
  { toolsListChanged: true, resourceSubscriptions: ['shop://price'] },
  { onNotification: () => updated() },
);
await sub.acknowledged;
price = 130;
await features.notifyResourceUpdated('shop://price'); // drops the cached resources/read of this URI
await arrived; // the cache dropped the entry before the callback ran
assert.deepEqual((await client.readResource({ uri: 'shop://price' })).contents, [{ uri: 'shop://price', text: '130' }]);
assert.equal(reads, 3);
await sub.close();

// A client that must see every change turns its cache off:
const live = new Client({ clientInfo: { name: 'admin', version: '1.0.0' }, cache: false });
const liveServer = new Server({
  serverInfo: { name: 'shop', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers({ table }),
});
const [c, d] = createMemoryPair();
await liveServer.connect(d);
await live.connect(c);
await live.readResource({ uri: 'shop://price' });
await live.readResource({ uri: 'shop://price' });
assert.equal(reads, 5);
assert.equal(live.cache, undefined);
// without a cache policy the server's hints are ttlMs 0, private: immediately stale
assert.deepEqual([(await live.listTools({})).ttlMs, (await live.listTools({})).cacheScope], [0, 'private']);

await client.close();
await live.close();
console.log('ok caching');
