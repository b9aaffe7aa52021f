/**
 * A 2025-11-25 session on a protected deployment of several endpoints sharing one session
 * store (a real `redis-server`, and the in-memory store shared by two handlers): the session
 * record names its owner (the initializing token's principal), so the endpoint that did not
 * initialize it serves it to that principal and answers another principal 404, as it would an
 * unknown session; a session recorded without an owner (an open endpoint) is refused by a
 * protected one (fails closed), and an open deployment restores sessions as before.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { bearerAuth } from '../../runtime/auth/resource.js';
import { createStreamableHttpHandler, type HttpServerSession } from '../../runtime/transport/http/session/server.js';
import { connectRedisStores, type RedisStores } from '../../runtime/stores/redis/redis.js';
import { MemorySessionStore, type SessionStore } from '../../runtime/stores/sessions.js';
import { MemoryNotificationBus, type NotificationBus } from '../../runtime/stores/bus.js';
import { startRedis, type RedisServer } from './support.js';

const V = '2025-11-25';
const issuer = 'https://as.example';
const resource = 'https://mcp.example/mcp'; // the deployment's one canonical URI, whichever endpoint answers
const key = await generateKeyPair('ES256');
const jwks = { keys: [{ ...(await exportJWK(key.publicKey)), kid: 'k1', alg: 'ES256' }] };
const bearer = async (sub: string) =>
  `Bearer ${await new SignJWT({ sub }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuer(issuer).setAudience(resource).setExpirationTime('5m').sign(key.privateKey)}`;

/** One endpoint of the deployment: answers initialize and ping; `seen` the subjects of the requests delivered. */
async function endpoint(shared: { sessions: SessionStore; bus: NotificationBus }, protect = true) {
  const seen: Array<string | undefined> = [];
  const handler = createStreamableHttpHandler({
    supportedProtocolVersions: [V],
    shared,
    authorize: protect ? bearerAuth({ resource, issuer, jwks }) : undefined,
    onSession: async (t: HttpServerSession) => {
      await t.start({
        onMessage: (m, info) => {
          seen.push(info?.auth?.subject);
          if (m.id === undefined || !m.method) return;
          const result =
            m.method === 'initialize'
              ? { protocolVersion: V, capabilities: {}, serverInfo: { name: 't', version: '1' } }
              : {};
          void t.send({ jsonrpc: '2.0', id: m.id, result }, { relatedRequestId: m.id as string | number });
        },
        onClose() {},
      });
    },
  });
  const http: HttpServer = createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return {
    url,
    seen,
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

let id = 1;
async function post(
  url: string,
  body: unknown,
  authorization: string | undefined,
  sid?: string,
): Promise<{ status: number; sid: string | null; text: string }> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  };
  if (authorization) headers.Authorization = authorization;
  if (sid) Object.assign(headers, { 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': V });
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, sid: res.headers.get('mcp-session-id'), text: await res.text() };
}
const initialize = () => ({
  jsonrpc: '2.0',
  id: id++,
  method: 'initialize',
  params: { protocolVersion: V, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
});
const ping = () => ({ jsonrpc: '2.0', id: id++, method: 'ping' });

/** Alice initializes on `one`; `two` serves her, refuses bob (404, nothing delivered), and so does `one`. */
async function ownedAcross(
  one: Awaited<ReturnType<typeof endpoint>>,
  two: Awaited<ReturnType<typeof endpoint>>,
  sessions: SessionStore,
): Promise<void> {
  const alice = await bearer('alice');
  const bob = await bearer('bob');
  const init = await post(one.url, initialize(), alice);
  assert.is(init.status, 200, init.text);
  const sid = init.sid!;
  assert.ok(sid);
  assert.is(
    (await sessions.touch(sid))?.owner,
    JSON.stringify(['sub', issuer, 'alice']),
    'the record names its owner (issuer and subject)',
  );
  // bob first, so that the session is not yet restored on `two` when he asks
  const before = two.seen.length;
  const theirs = await post(two.url, ping(), bob, sid);
  assert.is(theirs.status, 404, theirs.text);
  assert.equal(JSON.parse(theirs.text).error, { code: -32000, message: 'Session not found' });
  assert.is(two.seen.length, before, 'nothing of bob reached the session');
  const mine = await post(two.url, ping(), alice, sid);
  assert.is(mine.status, 200, mine.text);
  assert.equal(JSON.parse(mine.text).result, {});
  assert.is(two.seen.at(-1), 'alice');
  assert.is((await post(two.url, ping(), bob, sid)).status, 404, "restored, still not bob's");
  assert.is((await post(one.url, ping(), bob, sid)).status, 404);
  assert.is((await post(one.url, ping(), alice, sid)).status, 200);
}

let redis: RedisServer | undefined;
const connected: RedisStores[] = [];
test("Redis: a session initialized on one endpoint is its owner's on the other, 404 to another principal", async () => {
  redis = await startRedis();
  for (let i = 0; i < 2; i++) connected.push(await connectRedisStores(redis.url, { prefix: 'own:' }));
  const [a, b] = connected;
  const one = await endpoint({ sessions: a.sessions, bus: a.bus });
  const two = await endpoint({ sessions: b.sessions, bus: b.bus });
  await ownedAcross(one, two, b.sessions);
  await one.close();
  await two.close();
});

test('Redis: a session recorded without an owner is refused by a protected endpoint; open endpoints restore it as before', async () => {
  const [a, b] = connected;
  const open1 = await endpoint({ sessions: a.sessions, bus: a.bus }, false);
  const open2 = await endpoint({ sessions: b.sessions, bus: b.bus }, false);
  const guarded = await endpoint({ sessions: b.sessions, bus: b.bus });
  const init = await post(open1.url, initialize(), undefined);
  assert.is(init.status, 200, init.text);
  const sid = init.sid!;
  const record = await a.sessions.touch(sid);
  assert.ok(record);
  assert.is('owner' in record!, false, 'no owner without a token check');
  assert.is((await post(open2.url, ping(), undefined, sid)).status, 200, 'restored on the other open endpoint');
  assert.is((await post(guarded.url, ping(), await bearer('alice'), sid)).status, 404, 'fails closed');
  for (const e of [open1, open2, guarded]) await e.close();
});

test('memory store shared by two handlers: the same ownership', async () => {
  const sessions = new MemorySessionStore();
  const bus = new MemoryNotificationBus();
  const one = await endpoint({ sessions, bus });
  const two = await endpoint({ sessions, bus });
  await ownedAcross(one, two, sessions);
  await one.close();
  await two.close();
});

test.after(async () => {
  for (const s of connected) await s.close();
  await redis?.stop();
});

test.run();
