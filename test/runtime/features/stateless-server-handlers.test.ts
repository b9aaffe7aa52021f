/**
 * A stateless revision's generated `Server` given `features.handlers()` without `{ table }`
 * swaps each of them for its stateless form (runtime/features/server-features.ts
 * `statelessHandlers`): over a memory pair with the draft revision, results carry
 * `resultType: "complete"` (and list results their caching fields), a failing tool is still
 * a tool error, handlers of other origin are kept as given, and the handshake revisions'
 * `Server` passes handlers through untouched.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Server } from '../../../generated/draft/index.js';
import { Server as Server2025 } from '../../../generated/2025-11-25/index.js';
import { ServerFeatures, statelessHandlers } from '../../../runtime/features/server-features.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { rawClient } from '../tasks/extension/support.js';

function features(): ServerFeatures {
  const f = new ServerFeatures();
  f.tool({
    name: 'echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: (a) => ({ content: [{ type: 'text', text: String((a as { text: string }).text) }] }),
  });
  f.tool({
    name: 'fails',
    handler: () => {
      throw new Error('disk full');
    },
  });
  return f;
}

test('draft Server with features.handlers(): results are complete, list results cacheable', async () => {
  const f = features();
  const server = new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: f.capabilities(),
    handlers: f.handlers() as never,
  });
  const [a, b] = createMemoryPair();
  await server.connect(b);
  const c = await rawClient(a);
  assert.equal(await c.call('tools/call', { name: 'echo', arguments: { text: 'hi' } }), {
    resultType: 'complete',
    content: [{ type: 'text', text: 'hi' }],
  });
  const listed = await c.call('tools/list');
  assert.is(listed.resultType, 'complete');
  assert.equal(
    (listed.tools as Array<{ name: string }>).map((t) => t.name),
    ['echo', 'fails'],
  );
  assert.is(listed.ttlMs, 0);
  assert.is(listed.cacheScope, 'private');
  const failed = await c.call('tools/call', { name: 'fails', arguments: {} });
  assert.equal(failed, { resultType: 'complete', content: [{ type: 'text', text: 'disk full' }], isError: true });
  await server.close();
});

test('statelessHandlers: swaps only what features made, keeps the rest, the same object when nothing changes', () => {
  const f = features();
  const own = async () => ({ resultType: 'complete', content: [] });
  const mixed: Record<string, unknown> = { ...f.handlers(), 'tools/call': own };
  const swapped = statelessHandlers(mixed);
  assert.is(swapped['tools/call'], own, 'a handler of other origin is kept');
  assert.is(swapped['tools/list'], f.handlers({ table: { lifecycle: 'stateless' } })['tools/list']);
  assert.is.not(swapped['tools/list'], f.handlers()['tools/list']);
  const already = f.handlers({ table: { lifecycle: 'stateless' } });
  assert.is(statelessHandlers(already), already);
  assert.is(statelessHandlers(undefined), undefined);
});

test("a handshake revision's Server keeps features.handlers() as they are", async () => {
  const f = features();
  const server = new Server2025({
    serverInfo: { name: 's', version: '1' },
    capabilities: f.capabilities(),
    handlers: f.handlers() as never,
  });
  assert.is(server.options.handlers?.['tools/list' as never], f.handlers()['tools/list'] as never);
  await server.close();
});

test.run();
