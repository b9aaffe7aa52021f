/**
 * Issue 44, new-user trials: a token was accepted up to ~5 s past its `exp`, and nothing said so.
 * That is bearerAuth's clock tolerance (`clockToleranceSec`, default 5 s, on `exp` and `nbf`): now
 * documented, and bounded (a whole or fractional number of seconds from 0 to 300; anything else is
 * a TypeError at construction, not a check that accepts every expired token). The edge: a token
 * 2 s past `exp` passes with the default and fails with 0; 60 s past passes with 120, 200 s past
 * does not.
 */
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bearerAuth } from '../../runtime/auth/resource.js';
import type { AuthVerdict } from '../../runtime/auth/types.js';

const issuer = 'https://issuer.test';
const resource = 'https://mcp.example.test/mcp';
const signing = await generateKeyPair('ES256');
const jwks = { keys: [{ ...(await exportJWK(signing.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] };
const now = () => Math.floor(Date.now() / 1000);

/** A token whose `exp` is `expIn` s from now (negative: past), and `nbf` `nbfIn` s from now when given. */
const token = (expIn: number, nbfIn?: number): Promise<string> =>
  new SignJWT({
    iss: issuer,
    aud: resource,
    sub: 'alice',
    exp: now() + expIn,
    ...(nbfIn === undefined ? {} : { nbf: now() + nbfIn }),
  })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .sign(signing.privateKey);

/** The verdict of `bearerAuth({ clockToleranceSec })` on a freshly minted token (minted just before the check). */
async function check(clockToleranceSec: number | undefined, expIn: number, nbfIn?: number): Promise<string> {
  const authorize = bearerAuth({
    resource,
    issuer,
    jwks,
    ...(clockToleranceSec === undefined ? {} : { clockToleranceSec }),
  });
  const verdict: AuthVerdict = await authorize({
    method: 'POST',
    headers: { authorization: `Bearer ${await token(expIn, nbfIn)}` },
    url: '/mcp',
  });
  if ('auth' in verdict) return `accepted ${verdict.auth.subject}`;
  return `${verdict.refusal.status} ${/error_description="([^"]*)"/.exec(verdict.refusal.headers?.['WWW-Authenticate'] ?? '')?.[1]}`;
}

test('default tolerance 5 s: 2 s past exp accepted, 30 s past refused "token expired"; nbf 2 s ahead accepted, 30 s ahead refused', async () => {
  assert.is(await check(undefined, -2), 'accepted alice');
  assert.is(await check(undefined, -30), '401 token expired');
  assert.is(await check(undefined, 3600, 2), 'accepted alice');
  assert.is(await check(undefined, 3600, 30), '401 token not yet valid');
});

test('clockToleranceSec 0: 2 s past exp refused; 120: 60 s past accepted, 200 s past refused', async () => {
  assert.is(await check(0, -2), '401 token expired');
  assert.is(await check(0, 60), 'accepted alice');
  assert.is(await check(120, -60), 'accepted alice');
  assert.is(await check(120, -200), '401 token expired');
  assert.is(await check(300, -200), 'accepted alice');
});

test('clockToleranceSec outside 0..300 or not a number: TypeError naming it', () => {
  for (const bad of [-1, 301, Number.NaN, Number.POSITIVE_INFINITY, '5' as unknown as number])
    assert.throws(
      () => bearerAuth({ resource, issuer, jwks, clockToleranceSec: bad }),
      (e: Error) =>
        e instanceof TypeError && /clockToleranceSec must be a number of seconds from 0 to 300/.test(e.message),
      String(bad),
    );
  for (const ok of [0, 2.5, 300]) bearerAuth({ resource, issuer, jwks, clockToleranceSec: ok });
});

test.run();
