/**
 * ServerFeatures over the memory pair with the generated 2025-11-25 Client and Server: tools
 * (output schema), resources (static, templates, subscriptions), prompts, completion,
 * pagination and list_changed notifications.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../../generated/2025-11-25/index.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';
import { compileUriTemplate } from '../../../runtime/features/resources.js';

async function connect(features: ServerFeatures, notes: { method: string; params: unknown }[] = []) {
  const [a, b] = createMemoryPair();
  const server = new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: features.capabilities(),
    handlers: features.handlers(),
  });
  features.attach(server);
  await server.connect(b);
  const record = (method: string) => (params: unknown) => void notes.push({ method, params });
  const client = new Client({
    clientInfo: { name: 'c', version: '1' },
    notificationHandlers: {
      'notifications/tools/list_changed': record('notifications/tools/list_changed'),
      'notifications/resources/list_changed': record('notifications/resources/list_changed'),
      'notifications/prompts/list_changed': record('notifications/prompts/list_changed'),
      'notifications/resources/updated': record('notifications/resources/updated'),
    },
  });
  const info = await client.connect(a);
  return { client, server, info, notes };
}

const rpcError = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, RpcError, 'expected an RpcError');
  return e as RpcError;
};
const tick = () => new Promise((r) => setTimeout(r, 5));

function sample() {
  const f = new ServerFeatures({ pageSize: 2 });
  f.tool({
    name: 'add',
    description: 'adds',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    handler: (x: { a: number; b: number }) => ({
      content: [{ type: 'text', text: String(x.a + x.b) }],
      structuredContent: { sum: x.a + x.b },
    }),
  });
  // typed as a plain object, the schema types nothing: the wrong structuredContent compiles and is refused at run time
  const sumSchema: Record<string, unknown> = {
    type: 'object',
    properties: { sum: { type: 'number' } },
    required: ['sum'],
  };
  f.tool({
    name: 'bad_output',
    outputSchema: sumSchema,
    handler: () => ({ content: [], structuredContent: { sum: 'no' } }),
  });
  f.tool({
    name: 'throws',
    handler: () => {
      throw new Error('disk full');
    },
  });
  f.tool({
    name: 'rpc_throws',
    handler: () => {
      throw new RpcError(-32042, 'needs elicitation', { x: 1 });
    },
  });
  f.tool({
    name: 'progress',
    handler: async (_a, ctx) => {
      await ctx.sendProgress(1, 2, 'half');
      await ctx.sendProgress(2, 2);
      return 'done';
    },
  });
  f.resource({ uri: 'test://a', name: 'a', mimeType: 'text/plain', text: 'alpha' });
  f.resource({ uri: 'test://b', name: 'b', mimeType: 'application/octet-stream', blob: new Uint8Array([1, 2, 3]) });
  f.resource({ uri: 'test://c', name: 'c', read: (uri) => [{ uri, text: 'computed' }] });
  f.resourceTemplate({
    uriTemplate: 'test://users/{id}/files/{+path}',
    name: 'files',
    read: (uri, v) => [{ uri, mimeType: 'application/json', text: JSON.stringify(v) }],
    complete: { id: (value) => ['alice', 'albert', 'bob'].filter((x) => x.startsWith(value)) },
  });
  f.prompt({
    name: 'greet',
    description: 'greets',
    arguments: [
      { name: 'name', required: true, complete: (v, ctx) => [`${v}-${ctx.style ?? 'plain'}`] },
      { name: 'style' },
    ],
    get: (a) => [{ role: 'user', content: { type: 'text', text: `Hello ${a.name}${a.style ? ` (${a.style})` : ''}` } }],
  });
  f.prompt({
    name: 'many',
    arguments: [{ name: 'n', complete: () => Array.from({ length: 150 }, (_, i) => String(i)) }],
    get: () => ({ description: 'd', messages: [] }),
  });
  return f;
}

test('capabilities follow registrations', async () => {
  assert.equal(new ServerFeatures().capabilities(), {});
  assert.equal(new ServerFeatures({ declare: { tools: true } }).capabilities(), { tools: { listChanged: true } });
  const { client, info } = await connect(sample());
  assert.equal(info.capabilities, {
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
    completions: {},
  });
  await client.close();
});

test('tools: list pages with opaque cursors; invalid cursor is -32602', async () => {
  const { client } = await connect(sample());
  const p1 = await client.listTools();
  assert.equal(
    p1.tools.map((t) => t.name),
    ['add', 'bad_output'],
  );
  assert.equal(p1.tools[0].inputSchema.required, ['a', 'b']);
  assert.equal(p1.tools[0].outputSchema?.required, ['sum']);
  assert.type(p1.nextCursor, 'string');
  const p2 = await client.listTools({ cursor: p1.nextCursor });
  assert.equal(
    p2.tools.map((t) => t.name),
    ['throws', 'rpc_throws'],
  );
  const p3 = await client.listTools({ cursor: p2.nextCursor });
  assert.equal(
    p3.tools.map((t) => t.name),
    ['progress'],
  );
  assert.is(p3.nextCursor, undefined);
  for (const cursor of ['nope', 'eyJrIjoidG9vbHMiLCJvIjo5OX0', p1.nextCursor!.slice(0, -2)]) {
    assert.is((await rpcError(client.listTools({ cursor }))).code, -32602);
  }
  // a cursor of one list is not valid for another
  assert.is((await rpcError(client.listPrompts({ cursor: p1.nextCursor }))).code, -32602);
  // a cursor far longer than any this server issues is refused unread, and not echoed back: here
  // one of this list's shape padded past 256 characters, and a 1 MiB deeply nested one
  const b64 = (text: string) => Buffer.from(text).toString('base64url');
  const padded = b64(JSON.stringify({ k: 'tools', o: 2, pad: 'x'.repeat(300) }));
  const nested = b64('['.repeat(1 << 19) + ']'.repeat(1 << 19));
  for (const cursor of [padded, nested]) {
    const e = await rpcError(client.listTools({ cursor }));
    assert.is(e.code, -32602);
    assert.match(e.message, /^Invalid cursor \(\d+ characters: not one this server issued\)$/);
    assert.not.ok(JSON.stringify(e.data ?? null).includes(cursor.slice(0, 64)), 'the cursor is not echoed');
  }
  await client.close();
});

test('tools: structured output, output schema violation is -32603, thrown errors', async () => {
  const { client } = await connect(sample());
  const ok = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  assert.equal(ok.structuredContent, { sum: 5 });
  assert.equal(ok.content, [{ type: 'text', text: '5' }]);
  const bad = await rpcError(client.callTool({ name: 'bad_output', arguments: {} }));
  assert.is(bad.code, -32603);
  assert.match(bad.message, /sum: must be number/);
  const thrown = await client.callTool({ name: 'throws', arguments: {} });
  assert.equal(thrown, { content: [{ type: 'text', text: 'disk full' }], isError: true });
  const rpc = await rpcError(client.callTool({ name: 'rpc_throws', arguments: {} }));
  assert.is(rpc.code, -32042);
  assert.equal(rpc.data, { x: 1 });
  const seen: unknown[] = [];
  const pr = await client.callTool({ name: 'progress', arguments: {} }, { onProgress: (p) => seen.push(p) });
  assert.equal(pr.content, [{ type: 'text', text: 'done' }]);
  assert.equal(
    seen.map((p) => (p as { progress: number }).progress),
    [1, 2],
  );
  await client.close();
});

test('resources: list, templates, read static text/blob/computed and templated; unknown uri is -32002', async () => {
  const { client } = await connect(sample());
  const l1 = await client.listResources();
  const l2 = await client.listResources({ cursor: l1.nextCursor });
  assert.equal(
    [...l1.resources, ...l2.resources].map((r) => r.uri),
    ['test://a', 'test://b', 'test://c'],
  );
  assert.equal(l1.resources[0], { uri: 'test://a', name: 'a', mimeType: 'text/plain' });
  const t = await client.listResourceTemplates();
  assert.equal(t.resourceTemplates, [{ uriTemplate: 'test://users/{id}/files/{+path}', name: 'files' }]);
  assert.equal((await client.readResource({ uri: 'test://a' })).contents, [
    { uri: 'test://a', mimeType: 'text/plain', text: 'alpha' },
  ]);
  assert.equal((await client.readResource({ uri: 'test://b' })).contents, [
    { uri: 'test://b', mimeType: 'application/octet-stream', blob: 'AQID' },
  ]);
  assert.equal((await client.readResource({ uri: 'test://c' })).contents, [{ uri: 'test://c', text: 'computed' }]);
  const tr = await client.readResource({ uri: 'test://users/al%20ice/files/docs/a.txt' });
  assert.equal(JSON.parse((tr.contents[0] as { text: string }).text), { id: 'al ice', path: 'docs/a.txt' });
  const e = await rpcError(client.readResource({ uri: 'test://users/x' }));
  assert.is(e.code, -32002);
  assert.is(e.message, 'Resource not found');
  assert.equal(e.data, { uri: 'test://users/x' });
  await client.close();
});

test('resources: subscribe / unsubscribe bookkeeping and notifyResourceUpdated', async () => {
  const f = sample();
  const { client, notes } = await connect(f);
  assert.is(await f.notifyResourceUpdated('test://a'), false);
  await client.subscribe({ uri: 'test://a' });
  await client.subscribe({ uri: 'test://users/1/files/x' });
  assert.equal([...f.subscriptions], ['test://a', 'test://users/1/files/x']);
  assert.is((await rpcError(client.subscribe({ uri: 'nope://x' }))).code, -32002);
  assert.is(await f.notifyResourceUpdated('test://a'), true);
  await tick();
  assert.equal(notes, [{ method: 'notifications/resources/updated', params: { uri: 'test://a' } }]);
  await client.unsubscribe({ uri: 'test://a' });
  assert.is(await f.notifyResourceUpdated('test://a'), false);
  await client.close();
});

test('prompts: list, get with arguments, unknown prompt and missing required argument are -32602', async () => {
  const { client } = await connect(sample());
  const l = await client.listPrompts();
  assert.equal(l.prompts[0], {
    name: 'greet',
    description: 'greets',
    arguments: [{ name: 'name', required: true }, { name: 'style' }],
  });
  const g = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada', style: 'formal' } });
  assert.equal(g, {
    description: 'greets',
    messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada (formal)' } }],
  });
  const m = await rpcError(client.getPrompt({ name: 'greet', arguments: { style: 'x' } }));
  assert.is(m.code, -32602);
  assert.match(m.message, /Missing required argument of prompt greet: name/);
  assert.is((await rpcError(client.getPrompt({ name: 'nope' }))).code, -32602);
  await client.close();
});

test('completion: prompt arguments with context, template variables, at most 100 values', async () => {
  const { client } = await connect(sample());
  const p = await client.complete({
    ref: { type: 'ref/prompt', name: 'greet' },
    argument: { name: 'name', value: 'A' },
    context: { arguments: { style: 'bold' } },
  });
  assert.equal(p.completion, { values: ['A-bold'], total: 1 });
  const t = await client.complete({
    ref: { type: 'ref/resource', uri: 'test://users/{id}/files/{+path}' },
    argument: { name: 'id', value: 'al' },
  });
  assert.equal(t.completion.values, ['alice', 'albert']);
  const none = await client.complete({
    ref: { type: 'ref/prompt', name: 'greet' },
    argument: { name: 'style', value: '' },
  });
  assert.equal(none.completion, { values: [] });
  const many = await client.complete({ ref: { type: 'ref/prompt', name: 'many' }, argument: { name: 'n', value: '' } });
  assert.is(many.completion.values.length, 100);
  assert.is(many.completion.total, 150);
  assert.is(many.completion.hasMore, true);
  assert.is(
    (await rpcError(client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } })))
      .code,
    -32602,
  );
  await client.close();
});

test('list_changed: additions and removals after connect notify once per kind per tick', async () => {
  const f = sample();
  const { client, notes } = await connect(f);
  f.tool({ name: 'late', handler: () => 'late' });
  f.tool({ name: 'later', handler: () => 'later' });
  f.removePrompt('many');
  f.resource({ uri: 'test://d', name: 'd', text: 'd' });
  await tick();
  assert.equal(notes.map((n) => n.method).sort(), [
    'notifications/prompts/list_changed',
    'notifications/resources/list_changed',
    'notifications/tools/list_changed',
  ]);
  assert.equal((await client.callTool({ name: 'late', arguments: {} })).content, [{ type: 'text', text: 'late' }]);
  assert.is(f.removeTool('nope'), false);
  await client.close();
});

test('a tool with an invalid schema is refused at registration', () => {
  assert.throws(
    () => new ServerFeatures().tool({ name: 'x', inputSchema: { type: 'bogus' }, handler: () => '' }),
    /inputSchema of tool x is not a valid JSON Schema/,
  );
});

test('tools whose schemas share an $id can be registered and re-registered', async () => {
  const f = new ServerFeatures();
  const schema = { $id: 'https://example.com/args.json', type: 'object', properties: { n: { type: 'integer' } } };
  f.tool({ name: 'a', inputSchema: schema, handler: () => 'a' });
  f.tool({ name: 'a', inputSchema: { ...schema, required: ['n'] }, handler: () => 'a2' });
  f.tool({ name: 'b', inputSchema: schema, handler: () => 'b' });
  const { client } = await connect(f);
  assert.is((await client.callTool({ name: 'a', arguments: { n: 1 } })).isError, undefined);
  assert.is((await client.callTool({ name: 'b', arguments: { n: 'x' } })).isError, true);
  await client.close();
});

test('compileUriTemplate: {var} is one segment, {+var} spans slashes', () => {
  const m = compileUriTemplate('file:///{dir}/{+rest}');
  assert.equal(m('file:///a/b/c'), { dir: 'a', rest: 'b/c' });
  assert.is(m('file:///a'), undefined);
  assert.is(compileUriTemplate('x://{a}')('x://a/b'), undefined);
});

test('stateless revision (draft): resultType and caching fields are added; 015 holds there too', async () => {
  const {
    Client: DraftClient,
    Server: DraftServer,
    table: draftTable,
  } = await import('../../../generated/draft/index.js');
  const f = sample();
  f.tool({
    name: 'book',
    inputSchema: {
      type: 'object',
      properties: { passengers: { type: 'integer', minimum: 1 } },
      required: ['passengers'],
    },
    handler: () => 'ok',
  });
  const [a, b] = createMemoryPair();
  const server = new DraftServer({
    serverInfo: { name: 's', version: '1' },
    capabilities: f.capabilities(),
    handlers: f.handlers({ table: draftTable }),
  });
  await server.connect(b);
  const client = new DraftClient({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  const list = await client.listTools({});
  assert.is(list.resultType, 'complete');
  assert.is(list.ttlMs, 0);
  assert.is(list.cacheScope, 'private');
  const bad = await client.callTool({ name: 'book', arguments: { passengers: 0 } });
  assert.is(bad.resultType, 'complete');
  assert.is(bad.isError, true);
  assert.match(JSON.stringify(bad.content), /passengers: must be >= 1/);
  assert.is((await rpcError(client.callTool({ name: 'nope', arguments: {} }))).code, -32602);
  const read = await client.readResource({ uri: 'test://a' });
  assert.equal([read.resultType, read.ttlMs, read.cacheScope], ['complete', 0, 'private']);
  assert.is((await client.getPrompt({ name: 'greet', arguments: { name: 'x' } })).resultType, 'complete');
  await client.close();
});

test('attach before connect: changes do not throw while the server is not connected', async () => {
  const f = new ServerFeatures();
  const server = new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: { tools: {} },
    handlers: f.handlers(),
  });
  f.attach(server);
  f.tool({ name: 'x', handler: () => '' });
  f.resource({ uri: 'a://b', name: 'b', text: '' });
  await tick();
  assert.is(await f.notifyResourceUpdated('a://b'), false);
});
test('one ServerFeatures shared by sessions: subscriptions per session, list_changed to each, a closed session detached', async () => {
  const f = sample();
  const one = await connect(f);
  const two = await connect(f);
  assert.is(one.server.options.handlers, two.server.options.handlers, 'one handler table');
  await one.client.subscribe({ uri: 'test://a' });
  await two.client.subscribe({ uri: 'test://b' });
  assert.equal([...f.subscriptionsOf(one.server)], ['test://a']);
  assert.equal([...f.subscriptionsOf(two.server)], ['test://b']);
  assert.equal([...f.subscriptions].sort(), ['test://a', 'test://b']);
  assert.is(await f.notifyResourceUpdated('test://a'), true);
  await tick();
  assert.equal(one.notes, [{ method: 'notifications/resources/updated', params: { uri: 'test://a' } }]);
  assert.equal(two.notes, [], 'the other session did not subscribe to test://a');
  one.notes.length = 0;
  f.prompt({ name: 'late', get: () => [] });
  await tick();
  assert.equal(
    one.notes.map((n) => n.method),
    ['notifications/prompts/list_changed'],
  );
  assert.equal(
    two.notes.map((n) => n.method),
    ['notifications/prompts/list_changed'],
  );
  await one.client.close();
  await tick();
  assert.equal([...f.subscriptions], ['test://b'], 'a closed session is no longer notified');
  assert.is(await f.notifyResourceUpdated('test://a'), false);
  two.notes.length = 0;
  f.removePrompt('late');
  await tick();
  assert.equal(
    two.notes.map((n) => n.method),
    ['notifications/prompts/list_changed'],
  );
  await two.client.close();
});

test.run();
