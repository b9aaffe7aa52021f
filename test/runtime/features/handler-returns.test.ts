/**
 * A feature handler that returns what its method cannot answer with (undefined, null, a number,
 * the wrong container) gets -32603 naming the tool, prompt, resource or completer and the type of
 * what it returned (never the value), and the server log names it too.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../../generated/2025-11-25/index.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';
import { recordingLogger } from '../support.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const bad = (v: unknown) => (() => v) as any;

async function serve() {
  const logger = recordingLogger();
  const f = new ServerFeatures({ logger });
  for (const [name, v] of [
    ['undef', undefined],
    ['nul', null],
    ['num', 42],
    ['arr', [{ type: 'text', text: 'secret-in-array' }]],
  ] as const) {
    f.tool({ name: `tool_${name}`, handler: bad(v) });
    f.prompt({ name: `prompt_${name}`, get: bad(name === 'arr' ? 'secret-string' : v) });
    f.resource({ uri: `test://r/${name}`, name, read: bad(name === 'arr' ? { contents: [] } : v) });
  }
  f.resourceTemplate({
    uriTemplate: 'test://t/{id}',
    name: 't',
    read: bad(undefined),
    complete: { id: bad(undefined) },
  });
  f.prompt({ name: 'p', arguments: [{ name: 'a', complete: bad({ values: 'secret-values' }) }], get: () => [] });
  const [a, b] = createMemoryPair();
  await new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: f.capabilities(),
    handlers: f.handlers(),
  }).connect(b);
  const client = new Client({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  return { client, logger };
}

async function failure(p: Promise<unknown>): Promise<RpcError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof RpcError)) throw new Error(`expected an RpcError, got ${String(e)}`);
  return e;
}

test('tools, prompts, resources, templates and completers that return the wrong thing are named with what they returned', async () => {
  const { client, logger } = await serve();
  const shapes = { undef: 'undefined', nul: 'null', num: 'a number', arr: 'an array' } as const;
  const seen: string[] = [];
  for (const [name, shape] of Object.entries(shapes)) {
    const t = await failure(client.callTool({ name: `tool_${name}`, arguments: {} }));
    assert.equal(
      [t.code, t.message, t.data],
      [
        -32603,
        `Tool tool_${name} returned ${shape}; a tool handler returns a string or a CallToolResult object`,
        { returned: shape },
      ],
    );
    const p = await failure(client.getPrompt({ name: `prompt_${name}` }));
    const pShape = name === 'arr' ? 'a string' : shape;
    assert.equal(
      [p.code, p.message],
      [
        -32603,
        `Prompt prompt_${name} returned ${pShape}; a prompt's get returns an array of PromptMessage or a GetPromptResult object`,
      ],
    );
    const r = await failure(client.readResource({ uri: `test://r/${name}` }));
    const rShape = name === 'arr' ? 'an object' : shape;
    assert.equal(
      [r.code, r.message],
      [-32603, `Resource test://r/${name} returned ${rShape}; a resource read returns an array of ResourceContents`],
    );
    seen.push(t.message, p.message, r.message);
  }
  const tr = await failure(client.readResource({ uri: 'test://t/7' }));
  assert.is(
    tr.message,
    'Resource test://t/7 (template test://t/{id}) returned undefined; a resource read returns an array of ResourceContents',
  );
  const c1 = await failure(
    client.complete({ ref: { type: 'ref/resource', uri: 'test://t/{id}' }, argument: { name: 'id', value: '' } }),
  );
  assert.equal(
    [c1.code, c1.message],
    [
      -32603,
      'The completer of variable id of resource template test://t/{id} returned undefined; a completer returns an array of strings or { values, total?, hasMore? }',
    ],
  );
  const c2 = await failure(
    client.complete({ ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } }),
  );
  assert.is(
    c2.message,
    'The completer of argument a of prompt p returned an object; a completer returns an array of strings or { values, total?, hasMore? }',
  );
  // what the handlers returned never reaches the client
  assert.not.match([...seen, c2.message].join('\n'), /secret/);
  // the server log names each one
  const logged = logger.entries.filter((e) => e.level === 'error' && e.message.includes('handler returned'));
  assert.is(logged.length, 4 * 3 + 3);
  assert.equal(logged[0].data, { tool: 'tool_undef', method: 'tools/call', returned: 'undefined', error: seen[0] });
  assert.ok(logged.some((e) => e.data?.prompt === 'prompt_num' && e.data.returned === 'a number'));
  assert.ok(logged.some((e) => e.data?.resource === 'test://t/7' && e.data.returned === 'undefined'));
  assert.ok(logged.some((e) => e.data?.completion === 'p' && e.data.method === 'completion/complete'));
  await client.close();
});

test.run();
