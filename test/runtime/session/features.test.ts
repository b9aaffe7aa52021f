/**
 * Session features of the handshake revisions over the memory pair: negotiation down to
 * 2024-11-05, server→client requests (sampling, elicitation with the URL-required error, roots)
 * with their capabilities enforced, roots list_changed, and cursor iteration.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../../generated/2025-11-25/index.js';
import { Server as Server1105, table as table1105 } from '../../../generated/2024-11-05/index.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { paginate } from '../../../runtime/features/pagination.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';

const info = { name: 't', version: '1' };

test('negotiation: a 2025-11-25 client falls back to a 2024-11-05 server and uses its table', async () => {
  const [a, b] = createMemoryPair();
  await new Server1105({
    serverInfo: info,
    capabilities: { tools: {} },
    handlers: { 'tools/list': () => ({ tools: [] }) },
  }).connect(b);
  const client = new Client({ clientInfo: info, fallbackTables: [table1105] });
  assert.is((await client.connect(a)).protocolVersion, '2024-11-05');
  assert.is(client.table.protocolVersion, '2024-11-05');
  // 2024-11-05 has no elicitation: the client's table no longer knows it
  assert.not.ok(client.table.requests.serverToClient['elicitation/create']);
  assert.equal(await client.listTools(), { tools: [] });
  await client.close();
});

test('server → client: sampling, elicitation and roots reach the client handlers; undeclared capabilities are refused locally', async () => {
  const [a, b] = createMemoryPair();
  const server = new Server({ serverInfo: info, capabilities: {} });
  await server.connect(b);
  const client = new Client({
    clientInfo: info,
    capabilities: { sampling: {}, roots: { listChanged: true } },
    handlers: {
      'sampling/createMessage': (p) => ({
        role: 'assistant',
        model: 'm',
        content: { type: 'text', text: `echo ${(p.messages[0].content as { text: string }).text}` },
      }),
      'roots/list': () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }),
    },
  });
  await client.connect(a);
  const sampled = await server.createMessage({
    messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
    maxTokens: 10,
  });
  assert.equal(sampled.content, { type: 'text', text: 'echo hi' });
  assert.equal((await server.listRoots()).roots, [{ uri: 'file:///work', name: 'work' }]);
  const err = await server
    .elicit({ mode: 'form', message: 'name?', requestedSchema: { type: 'object', properties: {} } })
    .catch((e: unknown) => e);
  assert.instance(err, RpcError);
  assert.is((err as RpcError).code, -32601);
  await client.close();
});

test('elicitation: the -32042 URL-elicitation-required error reaches the caller with its data; completion notification arrives', async () => {
  const [a, b] = createMemoryPair();
  const elicitations = [{ mode: 'url', elicitationId: 'e1', url: 'https://example.com/auth', message: 'Authorize' }];
  const server = new Server({
    serverInfo: info,
    capabilities: { tools: {} },
    handlers: {
      'tools/list': () => ({ tools: [] }),
      'tools/call': () => {
        throw new RpcError(-32042, 'URL elicitation required', { elicitations });
      },
    },
  });
  await server.connect(b);
  const completed: string[] = [];
  const client = new Client({
    clientInfo: info,
    capabilities: { elicitation: { url: {} } },
    notificationHandlers: { 'notifications/elicitation/complete': (p) => void completed.push(p.elicitationId) },
  });
  await client.connect(a);
  const err = (await client.callTool({ name: 'needs_auth' }).catch((e: unknown) => e)) as RpcError;
  assert.is(err.code, -32042);
  assert.equal(err.data, { elicitations });
  await server.sendElicitationComplete({ elicitationId: 'e1' });
  await client.ping();
  assert.equal(completed, ['e1']);
  await client.close();
});

test('roots list_changed from the client reaches the server', async () => {
  const [a, b] = createMemoryPair();
  let changed = 0;
  const server = new Server({
    serverInfo: info,
    capabilities: {},
    notificationHandlers: { 'notifications/roots/list_changed': () => void changed++ },
  });
  await server.connect(b);
  const client = new Client({ clientInfo: info, capabilities: { roots: { listChanged: true } } });
  await client.connect(a);
  await client.sendRootsListChanged();
  await client.ping();
  assert.is(changed, 1);
  await client.close();
});

test('paginate follows nextCursor exactly and stops on the last page; an invalid cursor rejects with -32602', async () => {
  const [a, b] = createMemoryPair();
  const pages: Record<string, { tools: { name: string; inputSchema: { type: 'object' } }[]; nextCursor?: string }> = {
    start: { tools: [{ name: 'a', inputSchema: { type: 'object' } }], nextCursor: 'c1==' },
    'c1==': { tools: [{ name: 'b', inputSchema: { type: 'object' } }], nextCursor: 'c2' },
    c2: { tools: [{ name: 'c', inputSchema: { type: 'object' } }] },
  };
  const seen: (string | undefined)[] = [];
  const server = new Server({
    serverInfo: info,
    capabilities: { tools: {} },
    handlers: {
      'tools/list': (p) => {
        seen.push(p?.cursor);
        const page = pages[p?.cursor ?? 'start'];
        if (!page) throw new RpcError(-32602, 'Invalid cursor');
        return page;
      },
    },
  });
  await server.connect(b);
  const client = new Client({ clientInfo: info });
  await client.connect(a);
  const names: string[] = [];
  for await (const page of paginate(client, 'tools/list')) names.push(...page.tools.map((t) => t.name));
  assert.equal(names, ['a', 'b', 'c']);
  assert.equal(seen, [undefined, 'c1==', 'c2']);
  const err = await (async () => {
    for await (const _ of paginate(client, 'tools/list', { cursor: 'bogus' })) void _;
  })().catch((e: unknown) => e);
  assert.is((err as RpcError).code, -32602);
  // a server that names the same next page again: the iteration stops there, with an error
  pages.c2 = { tools: [{ name: 'c', inputSchema: { type: 'object' } }], nextCursor: 'c1==' };
  seen.length = 0;
  names.length = 0;
  const loop = await (async () => {
    for await (const page of paginate(client, 'tools/list')) names.push(...page.tools.map((t) => t.name));
  })().catch((e: unknown) => e);
  assert.is((loop as Error).message, 'paginate tools/list: stopped at nextCursor "c1==", repeated (seen before)');
  assert.equal(seen, [undefined, 'c1==', 'c2']);
  // maxPages bounds the pages read; anything but an integer of at least 1 is refused, nothing sent
  seen.length = 0;
  let read = 0;
  for await (const _ of paginate(client, 'tools/list', undefined, { maxPages: 2 })) read++;
  assert.is(read, 2);
  seen.length = 0;
  for (const maxPages of [0, -1, Number.NaN, 1.5, '5' as unknown as number, Number.POSITIVE_INFINITY]) {
    const bad = await (async () => {
      for await (const _ of paginate(client, 'tools/list', undefined, { maxPages })) void _;
    })().catch((e: unknown) => e);
    assert.instance(bad, TypeError);
    assert.is((bad as Error).message, `paginate: maxPages must be a positive integer, got ${maxPages}`);
  }
  assert.equal(seen, []);
  await client.close();
});

test.run();
