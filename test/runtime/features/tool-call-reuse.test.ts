/**
 * What tools/call reuses from call to call instead of making it anew (runtime/features/tools.ts):
 * the context its tool validators are called with, and the result object a handler returned.
 * Neither shows: a schema with `$dynamicAnchor` is judged on each call as on a first call (the
 * anchors one call entered do not decide the next), and a result is answered as its copy was
 * (a plain object as it is; an instance of a class by its own members, content `[]` when absent).
 * Over the memory pair with the generated 2025-11-25 Client, on the direct path (a handler of one
 * parameter) and the general one (a handler that takes its context).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../../generated/2025-11-25/index.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import type { RequestContext, RequestHandler } from '../../../runtime/engine/peer.js';
import { ServerFeatures, type ToolDefinition } from '../../../runtime/features/server-features.js';

/**
 * A tree of `loose` nodes takes any member; a `strict` one none but `data` and `children`, down
 * to its children: `$dynamicRef: '#node'` resolves to the outermost `node` anchor the call
 * entered (JSON Schema 2020-12 core §8.2.3.2).
 */
const TREES = {
  type: 'object',
  properties: { strict: { $ref: 'urn:tool-call-reuse:strict-tree' }, loose: { $ref: 'urn:tool-call-reuse:tree' } },
  $defs: {
    strict: {
      $id: 'urn:tool-call-reuse:strict-tree',
      $dynamicAnchor: 'node',
      $ref: 'urn:tool-call-reuse:tree',
      unevaluatedProperties: false,
    },
    tree: {
      $id: 'urn:tool-call-reuse:tree',
      $dynamicAnchor: 'node',
      type: 'object',
      properties: { data: true, children: { type: 'array', items: { $dynamicRef: '#node' } } },
    },
  },
};

class Answer {
  content = [{ type: 'text', text: 'own member' }];
  toJSON() {
    return { content: [{ type: 'text', text: 'from toJSON' }] };
  }
}
class Bare {
  note = 'kept';
}

const SHARED = { content: [{ type: 'text', text: 'shared' }] };

async function serve(withCtx: boolean) {
  const f = new ServerFeatures({ logger: {} });
  const tool = (name: string, body: () => unknown, inputSchema?: object) =>
    f.tool({
      name,
      inputSchema,
      handler: withCtx ? (_a: unknown, _ctx: RequestContext) => body() : (_a: unknown) => body(),
    } as ToolDefinition as never);
  tool('trees', () => 'valid', TREES);
  tool('instance', () => new Answer());
  tool('no_content', () => new Bare());
  tool('null_content', () => ({ content: null, note: 'n' }));
  tool('shared', () => SHARED);
  const [a, b] = createMemoryPair();
  await new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: f.capabilities(),
    handlers: f.handlers() as Record<string, RequestHandler>,
    logger: {},
  }).connect(b);
  const client = new Client({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  return client;
}

for (const withCtx of [false, true]) {
  const path = withCtx ? 'with its context' : 'direct';
  test(`a $dynamicAnchor schema judges each call as a first call (${path})`, async () => {
    const client = await serve(withCtx);
    const call = async (args: Record<string, unknown>) =>
      (await client.callTool({ name: 'trees', arguments: args })).isError === true ? 'refused' : 'valid';
    const looseExtra = { loose: { children: [{ extra: 1 }] } };
    const strictExtra = { strict: { children: [{ extra: 1 }] } };
    // each outcome, alone on a fresh server and after the other trees were called
    assert.is(await call(strictExtra), 'refused');
    for (let i = 0; i < 3; i++) {
      assert.is(await call(looseExtra), 'valid', `loose, round ${i + 1}`);
      assert.is(await call(strictExtra), 'refused', `strict after loose, round ${i + 1}`);
      assert.is(await call({ strict: { children: [{ data: 1 }] } }), 'valid', `strict without extra, round ${i + 1}`);
    }
    const refused = await client.callTool({ name: 'trees', arguments: strictExtra });
    assert.match(String((refused.content as Array<{ text: string }>)[0].text), /^Invalid arguments for tool trees: /);
    await client.close();
  });

  test(`results are answered by their own members, content [] when absent (${path})`, async () => {
    const client = await serve(withCtx);
    for (let i = 0; i < 2; i++) {
      assert.equal(await client.callTool({ name: 'instance', arguments: {} }), {
        content: [{ type: 'text', text: 'own member' }],
      });
      assert.equal(await client.callTool({ name: 'no_content', arguments: {} }), { note: 'kept', content: [] });
      assert.equal(await client.callTool({ name: 'null_content', arguments: {} }), { content: [], note: 'n' });
      assert.equal(await client.callTool({ name: 'shared', arguments: {} }), SHARED);
    }
    assert.equal(SHARED, { content: [{ type: 'text', text: 'shared' }] }, 'the returned object is left as it was');
    await client.close();
  });
}

test.run();
