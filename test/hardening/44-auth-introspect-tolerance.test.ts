/**
 * Issue 44, auth trials: a token checked by introspection (RFC 7662) had its `exp` compared
 * with no clock tolerance, where a JWT gets `clockToleranceSec` (default 5 s), and its `nbf`
 * was not compared at all. Now both get the JWT's rule (jose's): refused when `exp` <= now -
 * tolerance, or `nbf` > now + tolerance; `exp` from the answer's `expiresAt`, else its `exp`
 * claim. A real introspection endpoint on a loopback socket answers each token with its times
 * relative to the moment it answers (so a slow round trip on a loaded machine moves no edge); the callback is what a user writes (fetch, map the RFC 7662 answer).
 * Edges 2 s either side of the tolerance, as test 44-17 does for JWTs (the machine is loaded).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bearerAuth } from '../../runtime/auth/resource.js';

const resource = 'https://mcp.example.test/mcp';
const now = () => Math.floor(Date.now() / 1000);
/** The answers the endpoint gives, by token: `exp` / `nbf` as seconds from the moment it answers. */
const answers = new Map<string, Record<string, unknown>>();
const at = (a: Record<string, unknown>) => ({
  ...a,
  exp: now() + (a.exp as number),
  ...(a.nbf === undefined ? {} : { nbf: now() + (a.nbf as number) }),
});
const endpoint = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => void (body += c.toString()));
  req.on('end', () => {
    const token = new URLSearchParams(body).get('token') ?? '';
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify(answers.has(token) ? at(answers.get(token)!) : { active: false }));
  });
});
await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
const introspectionUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/introspect`;
test.after(() => new Promise<void>((r) => endpoint.close(() => r())));

/** The callback of the guide: POST the token, map an active answer (expiresAt only when `withExpiresAt`). */
const introspect = (withExpiresAt: boolean) => async (token: string) => {
  const res = await fetch(introspectionUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });
  const a = (await res.json()) as Record<string, unknown>;
  if (a.active !== true) return undefined;
  return {
    subject: a.sub as string,
    scopes: String(a.scope ?? '')
      .split(' ')
      .filter(Boolean),
    ...(withExpiresAt ? { expiresAt: a.exp as number } : {}),
    claims: a,
  };
};

let minted = 0;
/** The verdict on a token whose `exp` is `expIn` s from now (and `nbf` `nbfIn` s), under `clockToleranceSec`. */
async function check(
  tolerance: number | undefined,
  expIn: number,
  nbfIn?: number,
  withExpiresAt = true,
): Promise<string> {
  const token = `opaque-${++minted}`;
  answers.set(token, {
    active: true,
    sub: 'alice',
    aud: resource,
    scope: 'mcp',
    exp: expIn,
    ...(nbfIn === undefined ? {} : { nbf: nbfIn }),
  });
  const authorize = bearerAuth({
    resource,
    issuer: 'https://issuer.test',
    introspect: introspect(withExpiresAt),
    ...(tolerance === undefined ? {} : { clockToleranceSec: tolerance }),
  });
  const verdict = await authorize({ method: 'POST', headers: { authorization: `Bearer ${token}` }, url: '/mcp' });
  if ('auth' in verdict) return `accepted ${verdict.auth.subject}`;
  return `${verdict.refusal.status} ${/error_description="([^"]*)"/.exec(verdict.refusal.headers?.['WWW-Authenticate'] ?? '')?.[1]}`;
}

test('introspected exp and nbf: the JWT rule with the default tolerance (5 s)', async () => {
  assert.is(await check(undefined, -2), 'accepted alice', '2 s past exp');
  assert.is(await check(undefined, -30), '401 token expired', '30 s past exp');
  assert.is(await check(undefined, 3600, 2), 'accepted alice', 'nbf 2 s ahead');
  assert.is(await check(undefined, 3600, 30), '401 token not yet valid', 'nbf 30 s ahead');
});

test('at the edge of clockToleranceSec: 0 (2 s past refused), 10 (8 s past accepted, 12 refused; nbf 8 ahead accepted, 12 refused)', async () => {
  assert.is(await check(0, -2), '401 token expired');
  assert.is(await check(0, 60), 'accepted alice');
  assert.is(await check(10, -8), 'accepted alice');
  assert.is(await check(10, -12), '401 token expired');
  assert.is(await check(10, 3600, 8), 'accepted alice');
  assert.is(await check(10, 3600, 12), '401 token not yet valid');
});

test('an answer mapped without expiresAt: its exp claim is compared the same way', async () => {
  assert.is(await check(undefined, -2, undefined, false), 'accepted alice');
  assert.is(await check(undefined, -30, undefined, false), '401 token expired');
});

test.run();
