/**
 * Issue 44, a new-user trial: the 503 of a token check that could not be made named the
 * issuer's metadata / JWKS URL and the error ("token check failed (GET http://… answered 500)",
 * "DPoP replay check failed (…)") to any client. Now every client gets one generic body and
 * the cause goes to `bearerAuth`'s `onError` (with its stage); `mcpgen serve --auth` prints it
 * on stderr once per cause, its URLs redacted. Real issuers on loopback sockets (one answering
 * 500, one not listening), real DPoP proofs.
 */
import { createServer } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadRevision, olderHandshakeTables } from '../../cli/revisions.js';
import { serveHttp } from '../../cli/serve/http.js';
import { bearerAuth } from '../../runtime/auth/resource.js';
import type { AuthVerdict } from '../../runtime/auth/types.js';
import { freePort } from '../scale/support.js';
import { accessToken, dpopHolder, issuer, jwks } from './auth-kit.js';

const GENERIC = 'Service Unavailable: the access token cannot be checked now (temporarily_unavailable)';
const broken = createServer((_req, res) => res.writeHead(500).end('down'));
await new Promise<void>((r) => broken.listen(0, '127.0.0.1', r));
const brokenIssuer = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
const goneIssuer = `http://127.0.0.1:${await freePort()}`;
const resource = 'http://127.0.0.1:1/mcp';

const refusal = (v: AuthVerdict) => {
  assert.ok('refusal' in v, JSON.stringify(v));
  return 'refusal' in v ? v.refusal : undefined!;
};

test('a token check that cannot be made: a generic 503 body; the cause (naming the URL) to onError, stage token', async () => {
  for (const at of [brokenIssuer, goneIssuer]) {
    const told: Array<[string, string]> = [];
    const check = bearerAuth({ resource, issuer: at, onError: (e, { stage }) => told.push([stage, e.message]) });
    const r = refusal(
      await check({ method: 'POST', headers: { authorization: `Bearer ${await accessToken(resource, 'alice')}` } }),
    );
    assert.is(r.status, 503);
    assert.is(r.message, GENERIC);
    assert.equal(r.headers, { 'Retry-After': '5' });
    assert.is(told.length, 1, JSON.stringify(told));
    assert.is(told[0][0], 'token');
    assert.ok(told[0][1].includes(at.slice('http://'.length)), told[0][1]);
  }
});

test('a DPoP replay store out of reach: the same generic body; its error to onError, stage dpop-replay; a throwing hook changes nothing', async () => {
  const holder = await dpopHolder();
  const token = await accessToken(resource, 'frank', holder.jkt);
  const told: Array<[string, string]> = [];
  const replay = { claim: () => Promise.reject(new Error('redis at 10.1.2.3:6379: connection refused')) };
  for (const onError of [
    (e: Error, c: { stage: string }) => void told.push([c.stage, e.message]),
    () => {
      throw new Error('hook');
    },
  ]) {
    const check = bearerAuth({ resource, issuer, jwks, dpop: { replay }, onError });
    const proof = await holder.proof('POST', resource, token);
    const r = refusal(
      await check({ method: 'POST', headers: { authorization: `DPoP ${token}`, dpop: proof }, url: '/mcp' }),
    );
    assert.is(r.status, 503);
    assert.is(r.message, GENERIC);
  }
  assert.equal(told, [['dpop-replay', 'redis at 10.1.2.3:6379: connection refused']]);
});

test('serve --auth: the client body names no URL; stderr names the cause once for repeated failures', async () => {
  const m2025 = { ...(await loadRevision('2025-11-25')), fallbackTables: await olderHandshakeTables('2025-11-25') };
  const warned: string[] = [];
  const logger = { warn: (m: string) => void warned.push(m) } as never;
  const s = await serveHttp(m2025 as never, { port: 0, host: '127.0.0.1', auth: { issuer: brokenIssuer }, logger });
  try {
    const token = await accessToken(s.url, 'alice');
    for (let i = 0; i < 3; i++) {
      const res = await fetch(s.url, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
        },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      const body = await res.text();
      assert.is(res.status, 503, body);
      assert.equal(JSON.parse(body).error, { code: -32000, message: GENERIC });
      assert.not.ok(body.includes('127.0.0.1'), body);
    }
    const lines = warned.filter((l) => l.startsWith('auth: '));
    assert.is(lines.length, 1, warned.join('\n'));
    assert.match(lines[0], /^auth: token check failed: /);
    assert.ok(lines[0].includes(brokenIssuer.slice('http://'.length)), lines[0]);
  } finally {
    await s.close();
  }
});

test.after(() => new Promise<void>((r) => broken.close(() => r())));

test('an issuer that accepts the connection and never answers: the check ends in the generic 503 (it hung), the cause to onError', async () => {
  const held: Socket[] = [];
  const silent = createTcpServer((socket) => held.push(socket));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  try {
    const at = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const told: string[] = [];
    const check = bearerAuth({ resource, issuer: at, onError: (e) => told.push(e.message) });
    const token = await accessToken(resource, 'alice');
    let bound: NodeJS.Timeout | undefined;
    const verdict = await Promise.race([
      check({ method: 'POST', headers: { authorization: `Bearer ${token}` } }),
      new Promise<'hung'>((r) => (bound = setTimeout(() => r('hung'), 60_000))),
    ]);
    clearTimeout(bound);
    assert.ok(verdict !== 'hung', 'the token check never ended');
    const r = refusal(verdict as AuthVerdict);
    assert.is(r.status, 503);
    assert.is(r.message, GENERIC);
    assert.is(told.length, 1);
    assert.match(told[0]!, /timed out|aborted/i);
  } finally {
    for (const socket of held) socket.destroy();
    await new Promise((r) => silent.close(r));
  }
});

test.run();
