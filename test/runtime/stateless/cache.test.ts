/**
 * Caching (draft server/utilities/caching): server hints from the `cache` policy, the client's
 * TTL cache (hit, miss, expiry, key without `_meta`), invalidation by list_changed and
 * resources/updated on a listen stream, and never caching multi round-trip results.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inputRequest, inputRequired, readInput } from '../../../runtime/stateless/mrtr.js';
import { ResultCache, applyCacheHints } from '../../../runtime/stateless/cache.js';
import { pair, tick } from './harness.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { roots: {} },
};

async function setup(clientCache: unknown = undefined) {
  let clock = 0;
  const count: Record<string, number> = {};
  const hit = (m: string) => void (count[m] = (count[m] ?? 0) + 1);
  const { client, server } = await pair(
    {
      serverInfo: { name: 's', version: '1' },
      capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } },
      cache: {
        default: { ttlMs: 1000, cacheScope: 'public' },
        methods: { 'server/discover': { ttlMs: 5000, cacheScope: 'public' } },
      },
      handlers: {
        'tools/list': (p: { cursor?: string }) => (hit(`tools/list ${p.cursor ?? ''}`), { tools: [] }),
        'resources/list': () => (hit('resources/list'), { resources: [], ttlMs: -5, cacheScope: 'nope' }),
        'resources/read': (p: { uri: string; requestState?: string }) => {
          hit(`read ${p.uri}`);
          if (p.uri === 'file:///ask' && !readInput(p as never).requestState) {
            return {
              ...inputRequired({ inputRequests: { r: inputRequest.roots() }, requestState: 's' }),
              ttlMs: 999,
              cacheScope: 'public',
            };
          }
          return { contents: [{ uri: p.uri, text: 'x' }], ...(p.uri === 'file:///nocache' ? { ttlMs: 0 } : {}) };
        },
      },
    } as never,
    {
      capabilities: { roots: {} },
      handlers: { 'roots/list': () => ({ roots: [] }) },
      cache: (clientCache ?? { now: () => clock }) as never,
    },
  );
  return { client, server, count, advance: (ms: number) => void (clock += ms) };
}

test('cache: hit within ttlMs, miss after it, key ignores _meta but not params', async () => {
  const { client, count, advance } = await setup();
  await client.listTools({});
  await client.listTools({ _meta: { progressToken: 'p1' } });
  assert.is(count['tools/list '], 1);
  await client.listTools({ cursor: 'c2' });
  assert.is(count['tools/list c2'], 1);
  advance(999);
  await client.listTools({});
  assert.is(count['tools/list '], 1);
  advance(1);
  await client.listTools({});
  assert.is(count['tools/list '], 2, 'stale at received + ttlMs');
  assert.ok(client.cache!.stats.hits >= 2);
  await client.close();
});

test('cache: server hints: policy default, per-method override, negative ttl and bad scope repaired, ttlMs 0 not cached', async () => {
  const { client, count } = await setup();
  const list = await client.listResources({});
  assert.is(list.ttlMs, 0);
  assert.is(list.cacheScope, 'public');
  await client.listResources({});
  assert.is(count['resources/list'], 2, 'ttlMs 0: immediately stale');
  const read = await client.readResource({ uri: 'file:///a' });
  assert.is(read.ttlMs, 1000);
  await client.readResource({ uri: 'file:///nocache' });
  await client.readResource({ uri: 'file:///nocache' });
  assert.is(count['read file:///nocache'], 2);
  const discover = await client.discover({});
  assert.is(discover.ttlMs, 5000);
  assert.ok(client.cache!.stats.hits >= 1, 'discover served from the result connect() stored');
  await client.close();
});

test('cache: input_required carries no hints and multi round-trip results are never cached', async () => {
  const { client, count } = await setup();
  const raw = await client.peer.request<Record<string, unknown>>('resources/read', { uri: 'file:///ask', _meta: META });
  assert.is(raw.resultType, 'input_required');
  assert.not.ok('ttlMs' in raw);
  assert.not.ok('cacheScope' in raw);
  await client.readResource({ uri: 'file:///ask' });
  await client.readResource({ uri: 'file:///ask' });
  assert.is(count['read file:///ask'], 5, 'raw + two calls of two rounds each');
  await client.close();
});

test('cache: list_changed and resources/updated on a listen stream invalidate the matching entries', async () => {
  const { client, server, count } = await setup();
  const sub = client.listen({ toolsListChanged: true, resourceSubscriptions: ['file:///a'] });
  await sub.acknowledged;
  await client.listTools({});
  await client.readResource({ uri: 'file:///a' });
  await client.readResource({ uri: 'file:///b' });
  await server.sendToolListChanged();
  await server.sendResourceUpdated({ uri: 'file:///a' });
  await tick(5);
  await client.listTools({});
  await client.readResource({ uri: 'file:///a' });
  await client.readResource({ uri: 'file:///b' });
  assert.is(count['tools/list '], 2);
  assert.is(count['read file:///a'], 2);
  assert.is(count['read file:///b'], 1, 'another URI stays cached');
  await client.close();
});

test('cache: false turns the client cache off', async () => {
  const { client, count } = await setup(false);
  assert.is(client.cache, undefined);
  await client.listTools({});
  await client.listTools({});
  assert.is(count['tools/list '], 2);
  await client.close();
});

test('cache units: keys, MRTR params refused, eviction, hints on non-cacheable methods', () => {
  let now = 0;
  const c = new ResultCache({ maxEntries: 2, now: () => now });
  assert.is(c.key('tools/call', {}), undefined);
  assert.is(c.key('resources/read', { uri: 'u', requestState: 's' }), undefined);
  assert.is(c.key('resources/read', { uri: 'u', inputResponses: {} }), undefined);
  assert.is(
    c.key('tools/list', { b: 1, a: { y: 2, x: 1 } }),
    c.key('tools/list', { a: { x: 1, y: 2 }, b: 1, _meta: { z: 1 } }),
  );
  for (const n of [1, 2, 3]) c.put(`k${n}`, 'tools/list', {}, { resultType: 'complete', ttlMs: 10 });
  assert.is(c.size, 2);
  assert.is(c.get('k1'), undefined);
  c.put('x', 'tools/list', {}, { resultType: 'input_required', ttlMs: 10 });
  assert.is(c.get('x'), undefined);
  now = 10;
  assert.is(c.get('k2'), undefined);
  assert.equal(applyCacheHints('tools/call', { resultType: 'complete', content: [] }, undefined), {
    resultType: 'complete',
    content: [],
  });
  assert.equal(applyCacheHints('tools/list', { resultType: 'complete', tools: [], ttlMs: 3.7 }, undefined), {
    resultType: 'complete',
    tools: [],
    ttlMs: 3,
    cacheScope: 'private',
  });
});

test.run();
