/**
 * Tasks of the tasks extension (SEP-2663, draft) belong to the verified principal of the
 * request that created them, over real HTTP with bearer tokens checked by `bearerAuth`: the
 * creator sees its task from any request and, with the Redis task store, from another endpoint
 * ("process") sharing the store, behind the dual-era front too; to another principal every
 * task method answers exactly as for an unknown task (same HTTP status, code, message and
 * data) and nothing changes. Without a token check, any request sees any task, as before.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Server, protocolVersion, table } from '../../../../generated/draft/index.js';
import { ServerFeatures } from '../../../../runtime/features/server-features.js';
import { TASKS_EXTENSION, TasksExtension } from '../../../../runtime/tasks/extension.js';
import type { TaskStore } from '../../../../runtime/stores/tasks.js';
import { bearerAuth } from '../../../../runtime/auth/resource.js';
import { principalId } from '../../../../runtime/auth/principal.js';
import { createStatelessHttpHandler } from '../../../../runtime/transport/http/stateless/server.js';
import { requestHeaders } from '../../../../runtime/transport/http/stateless/headers.js';
import { createStreamableHttpHandler } from '../../../../runtime/transport/http/session/server.js';
import { createDualEraHttpHandler } from '../../../../runtime/stateless/dual-era.js';
import { connectRedisStores, type RedisStores } from '../../../../runtime/stores/redis/redis.js';
import type { ProtocolTable } from '../../../../runtime/protocol/table.js';
import { startRedis, type RedisServer } from '../../../scale/support.js';

type Obj = Record<string, unknown>;
const issuer = 'https://as.example';
const key = await generateKeyPair('ES256');
const jwks = { keys: [{ ...(await exportJWK(key.publicKey)), kid: 'k1', alg: 'ES256' }] };
const token = (sub: string, aud: string) =>
  new SignJWT({ sub, scope: 'mcp' })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(issuer)
    .setAudience(aud)
    .setExpirationTime('5m')
    .sign(key.privateKey);

/** A protected (or, `auth: false`, open) draft endpoint with a gated `job` tool run as a task. */
async function endpoint(options: { store?: TaskStore; front?: boolean; auth?: boolean } = {}) {
  const http: HttpServer = createServer();
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const authorize = options.auth === false ? undefined : bearerAuth({ resource: url, issuer, jwks });
  const features = new ServerFeatures();
  const tasks = new TasksExtension({ table: table as ProtocolTable, tools: { job: 'optional' }, store: options.store });
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  features.tool({ name: 'job', handler: (_a, ctx) => tasks.run(ctx, async () => (await gate, 'job done')) as never });
  const server = new Server({
    serverInfo: { name: 'owned-tasks', version: '1.0.0' },
    capabilities: tasks.capabilities(features.capabilities()),
    handlers: tasks.handlers(features.handlers({ table })) as never,
    extensionMethods: tasks.methods,
  });
  const stateless = createStatelessHttpHandler({ tables: [table as ProtocolTable], authorize });
  await server.connect(stateless.transport);
  const legacy = options.front
    ? createStreamableHttpHandler({
        supportedProtocolVersions: ['2025-11-25'],
        authorize,
        onSession: async (t) => t.start({ onMessage() {}, onClose() {} }),
      })
    : undefined;
  const handler = legacy ? createDualEraHttpHandler({ modern: stateless, legacy }) : stateless;
  http.on('request', (req, res) => void handler(req, res));
  return {
    url,
    release,
    async close() {
      tasks.close();
      await server.close();
      await legacy?.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

let next = 1;
/** One JSON-RPC request over HTTP (declaring the extension), as `sub`'s token or none: status and the JSON-RPC answer. */
async function rpc(
  url: string,
  sub: string | undefined,
  method: string,
  params: Obj = {},
): Promise<{ status: number; result?: Obj; error?: { code: number; message: string; data?: unknown } }> {
  const message = {
    jsonrpc: '2.0',
    id: next++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': protocolVersion,
        'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
      },
    },
  };
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    ...requestHeaders(message),
  };
  if (sub !== undefined) headers.Authorization = `Bearer ${await token(sub, url)}`;
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(message) });
  const text = await res.text();
  assert.is(res.headers.get('content-type')?.split(';')[0], 'application/json', `${method}: ${res.status} ${text}`);
  return { status: res.status, ...JSON.parse(text) };
}

/** Creates a task as `sub` and returns its id. */
async function create(url: string, sub: string | undefined): Promise<string> {
  const r = await rpc(url, sub, 'tools/call', { name: 'job', arguments: {} });
  assert.is(r.result?.resultType, 'task', JSON.stringify(r));
  return String(r.result!.taskId);
}

/** What each task method answers `sub` for `taskId` (ids blanked: an unknown id echoes its own). */
async function answers(url: string, sub: string | undefined, taskId: string) {
  const out: Obj = {};
  for (const [method, params] of [
    ['tasks/get', {}],
    ['tasks/update', { inputResponses: { k: { action: 'cancel' } } }],
    ['tasks/cancel', {}],
  ] as const) {
    const r = await rpc(url, sub, method, { taskId, ...params });
    out[method] = JSON.parse(
      JSON.stringify({ status: r.status, result: r.result, error: r.error }).replaceAll(taskId, '<id>'),
    );
  }
  return out;
}

/** Another principal sees nothing: its answers equal those for an id that never existed, and the task is untouched. */
async function assertHidden(url: string, owner: string, other: string, taskId: string): Promise<void> {
  const unknown = await answers(url, other, globalThis.crypto.randomUUID());
  assert.equal((unknown['tasks/get'] as Obj).error, {
    code: -32602,
    message: 'Failed to retrieve task: Task not found',
    data: { taskId: '<id>' },
  });
  assert.equal(await answers(url, other, taskId), unknown, `${other} is answered as for an unknown task`);
  const mine = await rpc(url, owner, 'tasks/get', { taskId });
  assert.is(mine.result?.status, 'working', `${other}'s cancel changed nothing`);
}

test('principalId: issuer and subject, else client; distinct for distinct issuers, subjects and kinds', () => {
  const at = (claims: Obj, subject?: string, clientId?: string) =>
    principalId({ token: 't', scopes: [], claims, subject, clientId });
  assert.is(at({ iss: issuer }, 'alice'), JSON.stringify(['sub', issuer, 'alice']));
  assert.is.not(at({ iss: issuer }, 'alice'), at({ iss: 'https://other.example' }, 'alice'));
  assert.is.not(
    at({ iss: issuer }, 'c1'),
    at({ iss: issuer }, undefined, 'c1'),
    'a subject is not a client of the same name',
  );
  assert.is(at({}, 'alice'), JSON.stringify(['sub', '', 'alice']), 'an introspection answer without iss');
  assert.is(principalId(undefined), undefined);
});

test('memory store: the creator sees its task from any request; another principal gets "Task not found" for tasks/get, tasks/update, tasks/cancel', async () => {
  const e = await endpoint();
  const taskId = await create(e.url, 'alice');
  assert.is((await rpc(e.url, 'alice', 'tasks/get', { taskId })).result?.status, 'working');
  await assertHidden(e.url, 'alice', 'bob', taskId);
  // bob's own task is his alone in turn
  const bobs = await create(e.url, 'bob');
  await assertHidden(e.url, 'bob', 'alice', bobs);
  assert.equal((await rpc(e.url, 'alice', 'tasks/cancel', { taskId })).result, { resultType: 'complete' });
  assert.is((await rpc(e.url, 'alice', 'tasks/get', { taskId })).result?.status, 'cancelled');
  e.release();
  const done = await (async () => {
    for (let i = 0; i < 100; i++) {
      const t = (await rpc(e.url, 'bob', 'tasks/get', { taskId: bobs })).result!;
      if (t.status === 'completed') return t;
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  assert.equal(done?.result, { resultType: 'complete', content: [{ type: 'text', text: 'job done' }] });
  await e.close();
});

test('without a token check: any request sees any task, as before', async () => {
  const e = await endpoint({ auth: false });
  const taskId = await create(e.url, undefined);
  assert.is((await rpc(e.url, undefined, 'tasks/get', { taskId })).result?.status, 'working');
  assert.equal((await rpc(e.url, undefined, 'tasks/cancel', { taskId })).result, { resultType: 'complete' });
  assert.is((await rpc(e.url, undefined, 'tasks/get', { taskId })).result?.status, 'cancelled');
  e.release();
  await e.close();
});

let redis: RedisServer | undefined;
const stores: RedisStores[] = [];
test('Redis store, two endpoints behind dual-era fronts: the creator sees and cancels its task on the other one; another principal sees it on neither', async () => {
  redis = await startRedis();
  for (let i = 0; i < 2; i++) stores.push(await connectRedisStores(redis.url, { prefix: 'owned:' }));
  const one = await endpoint({ store: stores[0].tasks, front: true });
  const two = await endpoint({ store: stores[1].tasks, front: true });
  const taskId = await create(one.url, 'alice');
  assert.is(
    (await rpc(two.url, 'alice', 'tasks/get', { taskId })).result?.status,
    'working',
    'visible from the other endpoint',
  );
  await assertHidden(one.url, 'alice', 'bob', taskId);
  await assertHidden(two.url, 'alice', 'bob', taskId);
  assert.equal((await rpc(two.url, 'alice', 'tasks/cancel', { taskId })).result, { resultType: 'complete' });
  assert.is((await rpc(one.url, 'alice', 'tasks/get', { taskId })).result?.status, 'cancelled');
  one.release();
  two.release();
  await one.close();
  await two.close();
});

test.after(async () => {
  for (const s of stores) await s.close();
  await redis?.stop();
});

test.run();
