/**
 * JSON Schema `default`: a tool's arguments and a prompt's arguments get the defaults of their
 * schema before the check and the handler (as ajv's useDefaults fills them), with either schema
 * engine (compiled by ajv, interpreted by @cfworker/json-schema); typed so: present for the
 * handler, optional in what a handler returns as structuredContent. `typeChecks` is compiled by
 * `tsc --noEmit` (npm test runs it first): each `@ts-expect-error` line must fail to compile.
 * withDefaults itself: nested members, local $refs, allOf, array items, no branch of
 * anyOf/oneOf, the value given never changed, `__proto__` as data.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as z from 'zod';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import { withDefaults } from '../../../runtime/protocol/json-defaults.js';
import { type SchemaEngine, useSchemaEngine } from '../../../runtime/protocol/json-schema.js';

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

const resize = {
  type: 'object',
  properties: {
    url: { type: 'string' },
    width: { type: 'integer', default: 640, minimum: 1 },
    fit: { type: 'string', enum: ['cover', 'contain'], default: 'cover' },
    crop: {
      type: 'object',
      properties: { x: { type: 'integer', default: 0 }, y: { type: 'integer', default: 0 } },
      default: {},
    },
  },
  required: ['url'],
  additionalProperties: false,
} as const;

/** Compile-time checks only: never called. */
export function typeChecks(): void {
  const f = new ServerFeatures<v2025.Protocol>();
  f.tool({
    name: 'resize',
    inputSchema: resize,
    handler: (args) => {
      // defaulted arguments are there for the handler
      const width: number = args.width;
      const fit: 'cover' | 'contain' = args.fit;
      const x: number = args.crop.x;
      // @ts-expect-error a defaulted argument keeps its type (fit is 'cover' | 'contain')
      const n: number = args.fit;
      return text(`${width}${fit}${x}${n}`);
    },
  });
  // a result need not carry what the outputSchema defaults: nothing fills it in on the way out
  const out = {
    type: 'object',
    properties: { width: { type: 'integer', default: 640 }, url: { type: 'string' } },
    required: ['url'],
    additionalProperties: false,
  } as const;
  f.tool({ name: 'o1', outputSchema: out, handler: () => ({ content: [], structuredContent: { url: 'u' } }) });
  f.tool({
    name: 'o2',
    outputSchema: out,
    // @ts-expect-error the defaulted member, when given, has its type
    handler: () => ({ content: [], structuredContent: { url: 'u', width: 'wide' } }),
  });
  f.prompt({
    name: 'p',
    argsSchema: {
      type: 'object',
      properties: { code: { type: 'string' }, language: { type: 'string', default: 'ts' } },
      required: ['code'],
    },
    get: (a) => {
      const language: string = a.language;
      return [{ role: 'user', content: { type: 'text', text: a.code + language } }];
    },
  });
}

/** Connects 2025-11-25's generated Client to `f` over the memory pair. */
async function connect(f: ServerFeatures<v2025.Protocol>) {
  const [a, b] = createMemoryPair();
  const server = new v2025.Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: f.capabilities(),
    handlers: f.handlers(),
    logger: {},
  });
  await server.connect(b);
  const client = new v2025.Client({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  return client;
}

for (const engine of ['compiled', 'interpreted'] as SchemaEngine[]) {
  test(`${engine}: a tool's handler gets the defaults of its inputSchema; given values are kept and checked`, async () => {
    useSchemaEngine(engine);
    try {
      const seen: unknown[] = [];
      const f = new ServerFeatures<v2025.Protocol>({ logger: {} });
      f.tool({
        name: 'resize',
        inputSchema: resize,
        handler: (args) => {
          seen.push(args);
          return text(`${args.url} ${args.width} ${args.fit} ${args.crop.x},${args.crop.y}`);
        },
      });
      const client = await connect(f);
      const listed = (await client.listTools()).tools[0].inputSchema;
      assert.equal(listed.required, ['url'], 'listed as it was given: the defaulted members stay optional for callers');

      const r = await client.callTool({ name: 'resize', arguments: { url: 'a.png' } });
      assert.equal(r.content, [{ type: 'text', text: 'a.png 640 cover 0,0' }]);
      assert.equal(seen.at(-1), { url: 'a.png', width: 640, fit: 'cover', crop: { x: 0, y: 0 } });

      // given members kept; a given object gets its own members' defaults
      const given = await client.callTool({
        name: 'resize',
        arguments: { url: 'b.png', width: 10, fit: 'contain', crop: { y: 5 } },
      });
      assert.equal(given.content, [{ type: 'text', text: 'b.png 10 contain 0,5' }]);

      // a given value is still checked (a default does not excuse a wrong one)
      const wrong = await client.callTool({ name: 'resize', arguments: { url: 'c.png', width: 0 } });
      assert.is(wrong.isError, true);
      assert.match((wrong.content[0] as { text: string }).text, /^Invalid arguments for tool resize: width: /);
      // no arguments at all: the required one is still missing
      const none = await client.callTool({ name: 'resize' });
      assert.is(none.isError, true);
      assert.match((none.content[0] as { text: string }).text, /url/);
      assert.is(seen.length, 2);
      await client.close();
    } finally {
      useSchemaEngine(undefined);
    }
  });
}

test('a default the schema refuses is refused like a wrong argument (the handler is not called)', async () => {
  let calls = 0;
  const f = new ServerFeatures<v2025.Protocol>({ logger: {} });
  f.tool({
    name: 'odd',
    inputSchema: { type: 'object', properties: { n: { type: 'integer', default: 'none' } } },
    handler: () => {
      calls++;
      return 'x';
    },
  });
  const client = await connect(f);
  const r = await client.callTool({ name: 'odd', arguments: {} });
  assert.is(r.isError, true);
  assert.match((r.content[0] as { text: string }).text, /n: /);
  assert.is(calls, 0);
  await client.close();
});

test('each call gets its own copy of an object default; the request params are not changed', async () => {
  const seen: Array<{ tags: string[] }> = [];
  const f = new ServerFeatures<v2025.Protocol>({ logger: {} });
  f.tool({
    name: 'tag',
    inputSchema: {
      type: 'object',
      properties: { tags: { type: 'array', items: { type: 'string' }, default: ['new'] } },
    },
    handler: (args) => {
      seen.push(args as { tags: string[] });
      (args as { tags: string[] }).tags.push('seen');
      return 'ok';
    },
  });
  const client = await connect(f);
  await client.callTool({ name: 'tag', arguments: {} });
  await client.callTool({ name: 'tag', arguments: {} });
  assert.equal(seen, [{ tags: ['new', 'seen'] }, { tags: ['new', 'seen'] }]);
  await client.close();

  const args = { url: 'x' };
  const filled = withDefaults(resize, args);
  assert.equal(args, { url: 'x' }, 'the value given is not changed');
  assert.equal(filled, { url: 'x', width: 640, fit: 'cover', crop: { x: 0, y: 0 } });
  const full = { url: 'x', width: 1, fit: 'contain', crop: { x: 1, y: 2 } };
  assert.is(withDefaults(resize, full), full, 'nothing to fill: the same value');
});

test('a prompt whose argsSchema has defaults: get receives them (JSON Schema and zod)', async () => {
  const seen: unknown[] = [];
  const f = new ServerFeatures<v2025.Protocol>({ logger: {} });
  f.prompt({
    name: 'review',
    argsSchema: {
      type: 'object',
      properties: { code: { type: 'string' }, language: { type: 'string', default: 'ts' } },
      required: ['code'],
    },
    get: (a) => {
      seen.push(a);
      return [{ role: 'user', content: { type: 'text', text: `${a.language}: ${a.code}` } }];
    },
  });
  f.prompt({
    name: 'zod',
    argsSchema: z.object({ code: z.string(), language: z.string().default('py') }),
    get: (a) => [{ role: 'user', content: { type: 'text', text: `${a.language}: ${a.code}` } }],
  });
  const client = await connect(f);
  const listed = (await client.listPrompts()).prompts.find((p) => p.name === 'review');
  assert.equal(listed?.arguments, [{ name: 'code', required: true }, { name: 'language' }]);
  const r = await client.getPrompt({ name: 'review', arguments: { code: 'x()' } });
  assert.equal(r.messages[0].content, { type: 'text', text: 'ts: x()' });
  assert.equal(seen, [{ code: 'x()', language: 'ts' }]);
  const zr = await client.getPrompt({ name: 'zod', arguments: { code: 'y()' } });
  assert.equal(zr.messages[0].content, { type: 'text', text: 'py: y()' });
  const e = await client.getPrompt({ name: 'review', arguments: {} }).then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, RpcError);
  assert.is((e as RpcError).code, -32602);
  await client.close();
});

test('withDefaults: through $ref, allOf and array items; not into anyOf/oneOf; __proto__ as data', () => {
  const schema = {
    $defs: { point: { type: 'object', properties: { x: { default: 0 }, y: { default: 0 } } } },
    type: 'object',
    allOf: [{ properties: { unit: { default: 'px' } } }],
    properties: {
      origin: { $ref: '#/$defs/point' },
      path: { type: 'array', items: { $ref: '#/$defs/point' } },
      pair: { type: 'array', prefixItems: [{ properties: { a: { default: 1 } } }], items: false },
      either: { anyOf: [{ properties: { b: { default: 1 } } }], oneOf: [{ properties: { c: { default: 1 } } }] },
      map: { type: 'object', additionalProperties: { properties: { on: { default: true } } } },
      ['__proto__']: { default: { polluted: true } },
    },
  };
  const value = JSON.parse('{"origin":{"x":3},"path":[{},{"y":2}],"pair":[{},{}],"either":{},"map":{"k":{}}}');
  const out = withDefaults(schema, value) as Record<string, unknown>;
  assert.equal(out.origin, { x: 3, y: 0 });
  assert.equal(out.path, [
    { x: 0, y: 0 },
    { x: 0, y: 2 },
  ]);
  assert.equal(out.pair, [{ a: 1 }, {}], 'prefixItems by position; no items added');
  assert.equal(out.either, {}, 'no branch of anyOf/oneOf');
  assert.equal(out.map, { k: { on: true } });
  assert.is(out.unit, 'px');
  assert.ok(Object.hasOwn(out, '__proto__'), '__proto__ set as an own member');
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  // a schema that refers to itself with nothing to consume ends
  assert.equal(withDefaults({ $ref: '#' }, {}), {});
});

test.run();
