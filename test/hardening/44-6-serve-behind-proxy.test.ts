/**
 * Issue 44, findings 6 and 4 through `mcpgen serve`: two `serve --http --redis --auth` processes
 * of one dual-era deployment behind one public URL. Before, each accepted only its loopback
 * names as `Host` (a proxy's Host got 403) and named its own URL as the resource, so a token
 * for the public URL was refused by every process; and each remembered DPoP proof ids alone.
 * Now `--allowed-host` and `--public-url` make one token good at both, a proof accepted by one
 * is refused by the other (the ids are in Redis), a Host nobody allowed is still refused, and
 * `/healthz` / `/readyz` answer a load balancer (503 while Redis does not answer).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Served } from '../runtime/tasks/serve-process.js';
import { startHttpServeProcess } from '../runtime/tasks/serve-process.js';
import { startRedis, type RedisServer } from '../scale/support.js';
import { accessToken, dpopHolder, issuer, jwks, legacyInitialize, modernList } from './auth-kit.js';

const publicUrl = 'https://mcp.example.test/mcp';
let keys: Server;
let redis: RedisServer;
const processes: Served[] = [];

test.before(async () => {
  keys = createServer((_req, res) =>
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(jwks)),
  );
  await new Promise<void>((r) => keys.listen(0, '127.0.0.1', r));
  redis = await startRedis();
  const args = [
    '--rev',
    '2026-07-28',
    '--redis',
    redis.url,
    '--auth',
    issuer,
    '--auth-jwks',
    `http://127.0.0.1:${(keys.address() as AddressInfo).port}/jwks`,
    '--public-url',
    publicUrl,
    '--allowed-host',
    'lb.internal:8080',
  ];
  processes.push(...(await Promise.all([startHttpServeProcess(args), startHttpServeProcess(args)])));
});

test.after(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  redis?.pause(false);
  await redis?.stop();
  keys?.closeAllConnections();
  await new Promise<void>((r) => keys?.close(() => r()));
});

/** A request to process `i` as a proxy forwards it: the public Host (or `host`), the given headers. */
function send(
  i: number,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; host?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const target = new URL(processes[i].url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path,
        method: init.method ?? 'GET',
        headers: { ...init.headers, Host: init.host ?? 'mcp.example.test' },
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

const holder = await dpopHolder();
const token = await accessToken(publicUrl, 'grace', holder.jkt);
const post = async (i: number, era: typeof modernList, proof: string, host?: string) =>
  send(i, '/mcp', {
    method: 'POST',
    headers: { ...era.headers, Authorization: `DPoP ${token}`, DPoP: proof },
    body: era.body,
    host,
  });

test('one token for the public URL is good at both processes, in both eras, with the public Host or an allowed one', async () => {
  for (const [i, era, host] of [
    [0, modernList, undefined],
    [1, modernList, 'lb.internal:8080'],
    [0, legacyInitialize, undefined],
    [1, legacyInitialize, 'lb.internal:8080'],
  ] as const) {
    const r = await post(i, era, await holder.proof('POST', publicUrl, token), host);
    assert.is(r.status, 200, `process ${i}: ${r.body}`);
  }
  // the metadata names the public URL
  const meta = await send(0, '/.well-known/oauth-protected-resource/mcp', {});
  assert.is(meta.status, 200);
  assert.is(JSON.parse(meta.body).resource, publicUrl);
});

test('a DPoP proof accepted by one process is refused by the other (replay ids in Redis)', async () => {
  for (const [first, second] of [
    [0, 1],
    [1, 0],
  ]) {
    const proof = await holder.proof('POST', publicUrl, token);
    assert.is((await post(first, modernList, proof)).status, 200);
    const again = await post(second, modernList, proof);
    assert.is(again.status, 401);
    assert.match(String(again.headers['www-authenticate']), /replayed/);
  }
});

test('a Host nobody allowed is still refused (403), and a token for a process URL is not for the public one', async () => {
  const r = await post(0, modernList, await holder.proof('POST', publicUrl, token), 'evil.example');
  assert.is(r.status, 403);
  const own = await accessToken(processes[0].url, 'grace', holder.jkt);
  const wrong = await send(0, '/mcp', {
    method: 'POST',
    headers: {
      ...modernList.headers,
      Authorization: `DPoP ${own}`,
      DPoP: await holder.proof('POST', publicUrl, own),
    },
    body: modernList.body,
  });
  assert.is(wrong.status, 401);
});

test('/healthz and /readyz: 200 while serving; /readyz 503 with Retry-After while Redis does not answer', async () => {
  assert.is((await send(0, '/healthz', {})).status, 200);
  const ready = await send(1, '/readyz', {});
  assert.is(ready.status, 200);
  assert.is(JSON.parse(ready.body).status, 'ready');
  redis.pause(true);
  try {
    const r = await send(0, '/readyz', {});
    assert.is(r.status, 503);
    assert.is(r.headers['retry-after'], '5');
    assert.match(JSON.parse(r.body).reason, /redis/);
    assert.is((await send(0, '/healthz', {})).status, 200);
  } finally {
    redis.pause(false);
  }
  assert.is((await send(0, '/readyz', {})).status, 200);
  assert.is((await send(0, '/readyz', { method: 'POST' })).status, 405);
});

test.run();
