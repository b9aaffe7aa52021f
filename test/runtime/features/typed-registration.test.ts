/**
 * Tool, prompt and resource-template registration typed from their schemas. `typeChecks` is
 * compiled by `npx tsc -p tsconfig.json --noEmit` (this file is in the project, and `npm test`
 * runs tsc first): every `@ts-expect-error` line must fail to compile, else tsc reports the
 * unused directive; the lines without one must compile. Each rule is checked with a JSON Schema
 * literal, a zod 4 schema and a valibot schema (wrapped by `toStandardJsonSchema`). The run-time
 * tests talk to the typed definitions over the memory pair with 2025-11-25's generated Client.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as z from 'zod';
import * as v from 'valibot';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

/** Compile-time checks only: never called. */
export function typeChecks(): void {
  const f = new ServerFeatures<v2025.Protocol>();

  // ---- tool arguments ----
  f.tool({
    name: 'json',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city'],
      additionalProperties: false,
    },
    handler: (args) => {
      const city: string = args.city;
      const days: number | undefined = args.days;
      // @ts-expect-error wrong argument type: city is a string
      const n: number = args.city;
      // @ts-expect-error unknown argument (additionalProperties: false)
      void args.country;
      return text(`${city} ${days ?? 1} ${n}`);
    },
  });
  const schema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } as const;
  f.tool({ name: 'as-const', inputSchema: schema, handler: ({ q }) => text(q.toUpperCase()) });
  f.tool({
    name: 'zod',
    inputSchema: z.object({ city: z.string(), days: z.number().int().default(1) }),
    handler: (args) => {
      const days: number = args.days; // the parsed output: the default applied
      // @ts-expect-error wrong argument type
      const n: number = args.city;
      // @ts-expect-error unknown argument
      void args.country;
      return text(`${args.city} ${days} ${n}`);
    },
  });
  f.tool({
    name: 'valibot',
    inputSchema: toStandardJsonSchema(v.object({ city: v.string() })),
    handler: (args) => {
      // @ts-expect-error wrong argument type
      const n: number = args.city;
      // @ts-expect-error unknown argument
      void args.country;
      return text(args.city + n);
    },
  });
  // @ts-expect-error a valibot schema without its Standard JSON Schema (nothing to list)
  f.tool({ name: 'valibot-bare', inputSchema: v.object({ city: v.string() }), handler: () => 'x' });
  // stating the arguments' type instead of inferring it (the schema then types nothing)
  f.tool<{ a?: number }>({
    name: 'explicit',
    inputSchema: { type: 'object' },
    handler: (args) => text(String(args.a)),
  });

  // ---- content blocks ----
  // @ts-expect-error wrong content block (JSON Schema tool)
  f.tool({ name: 'b1', inputSchema: schema, handler: () => ({ content: [{ type: 'txt', text: 'a' }] }) });
  // @ts-expect-error wrong content block (zod tool)
  f.tool({ name: 'b2', inputSchema: z.object({}), handler: () => ({ content: [{ type: 'text', text: 1 }] }) });
  f.tool({
    name: 'b3',
    inputSchema: toStandardJsonSchema(v.object({})),
    // @ts-expect-error wrong content block (valibot tool)
    handler: () => ({ content: [{ type: 'image', data: 'AA==' }] }),
  });

  // ---- structuredContent from outputSchema ----
  const weather = {
    type: 'object',
    properties: { celsius: { type: 'number' } },
    required: ['celsius'],
    additionalProperties: false,
  } as const;
  f.tool({ name: 's1', outputSchema: weather, handler: () => ({ content: [], structuredContent: { celsius: 21 } }) });
  f.tool({
    name: 's2',
    outputSchema: weather,
    // @ts-expect-error structuredContent not matching outputSchema (JSON Schema)
    handler: () => ({ content: [], structuredContent: { celsius: 'warm' } }),
  });
  // @ts-expect-error outputSchema declared, structuredContent missing
  f.tool({ name: 's3', outputSchema: weather, handler: () => ({ content: [] }) });
  // a tool execution error need not carry structuredContent
  f.tool({
    name: 's4',
    outputSchema: weather,
    handler: () => ({ content: [{ type: 'text', text: 'no sensor' }], isError: true }),
  });
  f.tool({
    name: 's5',
    outputSchema: z.object({ celsius: z.number() }),
    handler: async () => ({ content: [], structuredContent: { celsius: 3 } }),
  });
  f.tool({
    name: 's6',
    outputSchema: z.object({ celsius: z.number() }),
    // @ts-expect-error structuredContent not matching outputSchema (zod)
    handler: async () => ({ content: [], structuredContent: { celsius: '3' } }),
  });
  f.tool({
    name: 's7',
    outputSchema: toStandardJsonSchema(v.object({ celsius: v.number() })),
    // @ts-expect-error structuredContent not matching outputSchema (valibot)
    handler: () => ({ content: [], structuredContent: { kelvin: 3 } }),
  });

  // ---- prompt arguments ----
  f.prompt({
    name: 'p-list',
    arguments: [{ name: 'code', required: true }, { name: 'language' }],
    get: (a) => {
      const code: string = a.code;
      const lang: string | undefined = a.language;
      // @ts-expect-error a prompt argument that is optional is not always there
      const l: string = a.language;
      // @ts-expect-error wrong prompt argument
      void a.style;
      return [{ role: 'user', content: { type: 'text', text: code + lang + l } }];
    },
  });
  f.prompt({
    name: 'p-json',
    argsSchema: {
      type: 'object',
      properties: { code: { type: 'string' } },
      required: ['code'],
      additionalProperties: false,
    },
    complete: { code: () => ['x'] },
    get: (a) => {
      // @ts-expect-error wrong prompt argument
      void a.style;
      return [{ role: 'user', content: { type: 'text', text: a.code } }];
    },
  });
  f.prompt({
    name: 'p-zod',
    argsSchema: z.object({ code: z.string(), language: z.string().optional() }),
    // @ts-expect-error completion of an argument the prompt does not have
    complete: { style: () => ['x'] },
    get: (a) => {
      // @ts-expect-error wrong prompt argument
      void a.style;
      return [{ role: 'user', content: { type: 'text', text: a.code } }];
    },
  });
  f.prompt({
    name: 'p-valibot',
    argsSchema: toStandardJsonSchema(v.object({ code: v.string() })),
    get: (a) => {
      // @ts-expect-error wrong prompt argument
      void a.style;
      return [{ role: 'user', content: { type: 'text', text: a.code } }];
    },
  });

  // ---- resource template variables ----
  f.resourceTemplate({
    name: 't',
    uriTemplate: 'mem://users/{id}/files/{+path}{?rev}',
    read: (uri, vars) => {
      const id: string = vars.id;
      const rev: string | undefined = vars.rev;
      // @ts-expect-error a query variable may be absent
      const r: string = vars.rev;
      // @ts-expect-error wrong template variable name
      void vars.user;
      return [{ uri, text: id + vars.path + rev + r }];
    },
    complete: { id: () => ['alice'], path: () => [] },
  });
  f.resourceTemplate({
    name: 't2',
    uriTemplate: 'mem://{a}',
    read: (uri) => [{ uri, text: '' }],
    // @ts-expect-error completion of a variable the template does not have
    complete: { b: () => [] },
  });
}

/** Connects 2025-11-25's generated Client to `f` over the memory pair. */
async function connect(f: ServerFeatures<v2025.Protocol>) {
  const [a, b] = createMemoryPair();
  const server = new v2025.Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: f.capabilities(),
    handlers: f.handlers(),
  });
  await server.connect(b);
  const client = new v2025.Client({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  return client;
}

const rpcError = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, RpcError, 'expected an RpcError');
  return e as RpcError;
};

test('zod and valibot tools: tools/list shows their JSON Schema, the handler gets the parsed arguments, refused arguments are an isError result', async () => {
  const f = new ServerFeatures<v2025.Protocol>({ logger: {} });
  const forecast = z.object({ city: z.string().min(2), days: z.number().int().default(3) });
  const seen: unknown[] = [];
  f.tool({
    name: 'forecast',
    inputSchema: forecast,
    outputSchema: z.object({ days: z.number() }),
    handler: (args) => {
      seen.push(args);
      return { content: [{ type: 'text', text: args.city }], structuredContent: { days: args.days } };
    },
  });
  f.tool({
    name: 'echo',
    inputSchema: toStandardJsonSchema(v.object({ word: v.pipe(v.string(), v.regex(/^[a-z]+$/)) })),
    handler: ({ word }) => word,
  });
  const client = await connect(f);
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(byName.forecast.inputSchema, z.toJSONSchema(forecast, { io: 'input' }));
  assert.equal(byName.forecast.inputSchema.required, ['city']);
  assert.equal(byName.forecast.outputSchema?.properties, { days: { type: 'number' } });
  assert.equal(byName.echo.inputSchema.properties, { word: { type: 'string', pattern: '^[a-z]+$' } });

  const ok = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
  assert.equal(seen, [{ city: 'Oslo', days: 3 }], 'the default is applied by the validator');
  assert.equal(ok.structuredContent, { days: 3 });
  const short = await client.callTool({ name: 'forecast', arguments: { city: 'O' } });
  assert.is(short.isError, true);
  assert.match((short.content[0] as { text: string }).text, /^Invalid arguments for tool forecast: city: /);
  const wrongType = await client.callTool({ name: 'echo', arguments: { word: 3 } });
  assert.is(wrongType.isError, true);
  assert.match((wrongType.content[0] as { text: string }).text, /^Invalid arguments for tool echo: word: /);
  const refused = await client.callTool({ name: 'echo', arguments: { word: 'UPPER' } });
  assert.is(refused.isError, true);
  assert.match((refused.content[0] as { text: string }).text, /word: /);
  assert.equal((await client.callTool({ name: 'echo', arguments: { word: 'lower' } })).content, [
    { type: 'text', text: 'lower' },
  ]);
  assert.is(seen.length, 1, 'no refused call reached the handler');
  await client.close();
});

test('a prompt with argsSchema lists its arguments from the schema, checks them (-32602 naming the path) and completes them', async () => {
  const f = new ServerFeatures<v2025.Protocol>({ logger: {} });
  f.prompt({
    name: 'review',
    argsSchema: z.object({ code: z.string().min(3).describe('the code'), language: z.enum(['ts', 'py']).optional() }),
    complete: { language: (value) => ['ts', 'py'].filter((l) => l.startsWith(value)) },
    get: (a) => [{ role: 'user', content: { type: 'text', text: `${a.language ?? 'any'}: ${a.code}` } }],
  });
  f.prompt({
    name: 'json',
    argsSchema: { type: 'object', properties: { n: { type: 'string', pattern: '^[0-9]+$' } }, required: ['n'] },
    get: (a) => [{ role: 'user', content: { type: 'text', text: a.n } }],
  });
  const client = await connect(f);
  const { prompts } = await client.listPrompts();
  assert.equal(
    prompts.map((p) => [p.name, p.arguments]),
    [
      ['review', [{ name: 'code', description: 'the code', required: true }, { name: 'language' }]],
      ['json', [{ name: 'n', required: true }]],
    ],
  );
  const got = await client.getPrompt({ name: 'review', arguments: { code: 'x = 1', language: 'py' } });
  assert.equal(got.messages, [{ role: 'user', content: { type: 'text', text: 'py: x = 1' } }]);
  const missing = await rpcError(client.getPrompt({ name: 'review', arguments: {} }));
  assert.is(missing.code, -32602);
  assert.match(missing.message, /code/);
  const bad = await rpcError(client.getPrompt({ name: 'review', arguments: { code: 'x', language: 'go' } }));
  assert.is(bad.code, -32602);
  assert.match(bad.message, /^Invalid arguments for prompt review: code: .*; language: /);
  const badJson = await rpcError(client.getPrompt({ name: 'json', arguments: { n: 'ten' } }));
  assert.match(badJson.message, /^Invalid arguments for prompt json: n: must match pattern/);
  const done = await client.complete({
    ref: { type: 'ref/prompt', name: 'review' },
    argument: { name: 'language', value: 't' },
  });
  assert.equal(done.completion.values, ['ts']);
  await client.close();
});

test('a handler result failing the revision schema: logged with its paths, the peer told which tool or prompt', async () => {
  const logged: Array<[string, Record<string, unknown> | undefined]> = [];
  const f = new ServerFeatures<v2025.Protocol>({ logger: { error: (m, d) => logged.push([m, d]) } });
  // a result the compiler would refuse, as a JavaScript caller could return it
  f.tool({ name: 'bad_block', handler: () => ({ content: [{ type: 'txt', text: 'a' }] }) as never });
  f.prompt({ name: 'bad_role', get: () => [{ role: 'system', content: { type: 'text', text: 'hi' } }] as never });
  const client = await connect(f);
  const e = await rpcError(client.callTool({ name: 'bad_block', arguments: {} }));
  assert.is(e.code, -32603);
  assert.match(
    e.message,
    /^Tool bad_block returned a result that is not a valid CallToolResult or CreateTaskResult of protocol version 2025-11-25: \/content\/0\/type: /,
  );
  assert.equal(logged[0][0], 'tool result fails the protocol schema');
  assert.is(logged[0][1]?.tool, 'bad_block');
  assert.ok(
    (logged[0][1]!.errors as Array<{ path: string }>).some((x) => x.path === '/content/0/type'),
    'the log names the failing path',
  );
  const p = await rpcError(client.getPrompt({ name: 'bad_role' }));
  assert.match(
    p.message,
    /^Prompt bad_role returned a result that is not a valid GetPromptResult of protocol version 2025-11-25: \/messages\/0\/role: /,
  );
  assert.is(logged[1][1]?.prompt, 'bad_role');
  // a good call after the failures still answers
  f.tool({ name: 'fine', handler: () => 'ok' });
  assert.equal((await client.callTool({ name: 'fine', arguments: {} })).content, [{ type: 'text', text: 'ok' }]);
  await client.close();
});

test('a resource template literal: read gets the matched variables, query variables absent when not in the URI', async () => {
  const f = new ServerFeatures<v2025.Protocol>({ logger: {} });
  f.resourceTemplate({
    name: 'files',
    uriTemplate: 'mem://users/{id}/files{?rev}',
    read: (uri, vars) => [{ uri, text: JSON.stringify({ id: vars.id, rev: vars.rev ?? null }) }],
  });
  const client = await connect(f);
  const a = await client.readResource({ uri: 'mem://users/ann/files?rev=7' });
  assert.equal(JSON.parse((a.contents[0] as { text: string }).text), { id: 'ann', rev: '7' });
  const b = await client.readResource({ uri: 'mem://users/bob/files' });
  assert.equal(JSON.parse((b.contents[0] as { text: string }).text), { id: 'bob', rev: null });
  await client.close();
});

test('a prompt argsSchema: not a JSON Schema is refused at registration; one that passes the meta-schema but does not compile fails its first get with -32603', async () => {
  const f = new ServerFeatures<v2025.Protocol>({ logger: {} });
  assert.throws(
    () =>
      f.prompt({
        name: 'typo',
        argsSchema: { type: 'object', properties: { n: { type: 42 } } } as never,
        get: () => [],
      }),
    (e: Error) =>
      e instanceof TypeError &&
      /^argsSchema of prompt typo is not a valid JSON Schema: schema is invalid: /.test(e.message),
  );
  // `pattern` is only annotated as a regex by the meta-schema: `(` passes it and fails to compile
  f.prompt({
    name: 'regex',
    argsSchema: { type: 'object', properties: { n: { type: 'string', pattern: '(' } } },
    get: () => [],
  });
  const client = await connect(f);
  assert.equal(
    (await client.listPrompts()).prompts.map((p) => p.name),
    ['regex'],
  );
  const e = await rpcError(client.getPrompt({ name: 'regex', arguments: { n: 'x' } }));
  assert.is(e.code, -32603);
  assert.match(e.message, /^argsSchema of prompt regex is not a valid JSON Schema: /);
  await client.close();
});

test.run();
