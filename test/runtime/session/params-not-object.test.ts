/**
 * A JavaScript caller (no tsc) of a generated Client passing params that are not an object, or
 * none to a method that needs them: refused before anything is sent, with a TypeError naming the
 * method (ClientSession's dispatch, which every request passes). It was a raw TypeError ("'in'
 * operator …") for `listTools('x')` on the stateless revisions, and a request posted without its
 * params for `callTool()`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import * as draft from '../../../generated/draft/index.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';

const info = { name: 't', version: '1' };
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

test('2025-11-25: params not an object, or none where required, are refused unsent; absent where optional is sent', async () => {
  const [a, b] = createMemoryPair();
  const seen: string[] = [];
  await new v2025.Server({
    serverInfo: info,
    capabilities: { tools: {} },
    handlers: {
      'tools/list': () => (seen.push('tools/list'), { tools: [] }),
      'tools/call': () => (seen.push('tools/call'), { content: [] }),
    },
  }).connect(b);
  const client = new v2025.Client({ clientInfo: info });
  await client.connect(a);
  const js = client as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const [name, method, params, got] of [
    ['listTools', 'tools/list', 'x', 'x'],
    ['listTools', 'tools/list', 5, '5'],
    ['listTools', 'tools/list', null, 'null'],
    ['listTools', 'tools/list', Symbol('s'), 'Symbol(s)'],
    ['listTools', 'tools/list', [], 'an array'],
    ['callTool', 'tools/call', [1], 'an array'],
    ['callTool', 'tools/call', undefined, 'undefined'],
    ['callTool', 'tools/call', 'echo', 'echo'],
  ] as const) {
    const e = await refusal(js[name]!.call(client, params));
    assert.instance(e, TypeError, `${name}(${String(params)})`);
    assert.is((e as Error).message, `${method}: params must be an object, got ${got}`);
  }
  assert.equal(seen, []);
  assert.equal(await client.listTools(), { tools: [] });
  assert.equal(seen, ['tools/list']);
  await client.close();
});

test('draft: params not an object are refused before the session is even used', async () => {
  const client = new draft.Client({ clientInfo: info }) as unknown as Record<string, (p: unknown) => Promise<unknown>>;
  const e = await refusal(client.listTools!('x'));
  assert.instance(e, TypeError);
  assert.is((e as Error).message, 'tools/list: params must be an object, got x');
});

test.run();
