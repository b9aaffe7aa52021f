/**
 * Stateless version negotiation (draft basic/versioning): the server's -32022 carries
 * `supported` and `requested`; the client retries once with a table of `fallbackTables` whose
 * version the server named, at connect (server/discover) and inline on any request.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Protocol, Server, table } from '../../../generated/draft/index.js';
import { ClientSession } from '../../../runtime/session/client.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import type { ProtocolTable } from '../../../runtime/protocol/table.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { scriptedServer } from './harness.js';

/** A hypothetical later revision: the draft table under another version string. */
const newer: ProtocolTable = { ...table, revision: 'next', protocolVersion: '2027-01-01' };
const clientInfo = { name: 'c', version: '0' };
const versionOf = (p: Record<string, unknown>) =>
  (p._meta as Record<string, unknown>)['io.modelcontextprotocol/protocolVersion'];

async function draftServer() {
  const [a, b] = createMemoryPair();
  await new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: { tools: {} },
    handlers: { 'tools/list': () => ({ resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'private' }) },
  }).connect(b);
  return a;
}

test('versioning: the server answers an unsupported version with -32022, supported and requested', async () => {
  const a = await draftServer();
  const client = new ClientSession<Protocol>(table, { clientInfo });
  await client.connect(a);
  const err = await client.peer
    .request('tools/list', {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '1900-01-01',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    })
    .catch((e: unknown) => e as RpcError);
  assert.instance(err, RpcError);
  assert.equal((err as RpcError).toJSON(), {
    code: -32022,
    message: 'Unsupported protocol version',
    data: { supported: ['2026-07-28'], requested: '1900-01-01' },
  });
  await client.close();
});

test('versioning: connect retries server/discover with a fallback table the server supports', async () => {
  const client = new ClientSession<Protocol>(newer, { clientInfo, fallbackTables: [table] });
  const info = await client.connect(await draftServer());
  assert.is(info.protocolVersion, '2026-07-28');
  assert.is(client.table, table);
  assert.equal((await client.request('tools/list', {})).tools, []);
  await client.close();
});

test('versioning: without a mutually supported table the -32022 error surfaces', async () => {
  const client = new ClientSession<Protocol>(newer, { clientInfo });
  const err = await client.connect(await draftServer()).catch((e: unknown) => e as RpcError);
  assert.is((err as RpcError).code, -32022);
  assert.equal((err as RpcError).data, { supported: ['2026-07-28'], requested: '2027-01-01' });
});

test('versioning: an inline -32022 on a later request is retried once with a new id and the fallback version', async () => {
  const { transport, seen } = await scriptedServer(
    (req) =>
      versionOf(req.params) === '2026-07-28'
        ? { resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'private' }
        : {
            error: {
              code: -32022,
              message: 'Unsupported protocol version',
              data: { supported: ['2026-07-28'], requested: versionOf(req.params) },
            },
          },
    ['2027-01-01', '2026-07-28'],
  );
  const client = new ClientSession<Protocol>(newer, { clientInfo, fallbackTables: [table] });
  await client.connect(transport);
  assert.is(client.table, newer, 'discover listed 2027-01-01');
  await client.request('tools/list', {});
  const lists = seen.filter((r) => r.method === 'tools/list');
  assert.equal(
    lists.map((r) => versionOf(r.params)),
    ['2027-01-01', '2026-07-28'],
  );
  assert.is.not(lists[0].id, lists[1].id);
  assert.is(client.table, table);
  await client.close();
});

test("versioning: the retry happens once; a second -32022 is the caller's error", async () => {
  const { transport, seen } = await scriptedServer(
    () => ({
      error: {
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: ['2026-07-28', '2027-01-01'], requested: 'x' },
      },
    }),
    ['2027-01-01', '2026-07-28'],
  );
  const client = new ClientSession<Protocol>(newer, { clientInfo, fallbackTables: [table] });
  await client.connect(transport);
  const err = await client.request('tools/list', {}).catch((e: unknown) => e as RpcError);
  assert.is((err as RpcError).code, -32022);
  assert.is(seen.filter((r) => r.method === 'tools/list').length, 2);
  await client.close();
});

test('versioning: a -32022 naming the version sent among the supported ones is answered by resending it once', async () => {
  let refused = 0;
  const { transport, seen } = await scriptedServer(
    (req) =>
      req.method === 'tools/list' && refused++ === 0
        ? {
            error: {
              code: -32022,
              message: 'Unsupported protocol version',
              data: { supported: ['2026-07-28'], requested: '2026-07-28' },
            },
          }
        : { resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'private' },
    ['2026-07-28'],
  );
  const client = new ClientSession<Protocol>(table, { clientInfo });
  await client.connect(transport);
  await client.request('tools/list', {});
  const lists = seen.filter((r) => r.method === 'tools/list');
  assert.equal(
    lists.map((r) => versionOf(r.params)),
    ['2026-07-28', '2026-07-28'],
  );
  assert.is.not(lists[0].id, lists[1].id);
  await client.close();
});

test('versioning: discover without the requested version switches to a listed fallback table', async () => {
  const { transport } = await scriptedServer(
    () => ({ resultType: 'complete', tools: [], ttlMs: 0, cacheScope: 'private' }),
    ['2026-07-28'],
  );
  const client = new ClientSession<Protocol>(newer, { clientInfo, fallbackTables: [table] });
  const info = await client.connect(transport);
  assert.is(info.protocolVersion, '2026-07-28');
  await client.close();
});

test.run();
