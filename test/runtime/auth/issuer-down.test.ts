/**
 * `mcpgen serve --auth` while the issuer cannot give its keys (RFC 6750 section 3.1; RFC 9110
 * section 15.6.4): a token that is not a JWT, or names an algorithm the check does not accept,
 * is the client's fault — 401 `invalid_token` with the challenge, decided without one request
 * to the issuer; a well-formed JWT whose keys cannot be fetched is the server's trouble — 503
 * with `Retry-After`, no challenge. Both eras' endpoints, an issuer that answers 500 to
 * everything (its requests counted) and one that is not listening at all.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64url, generateKeyPair, SignJWT } from 'jose';
import { loadRevision, olderHandshakeTables } from '../../../cli/revisions.js';
import { serveHttp } from '../../../cli/serve/http.js';
import { serveStatelessHttp } from '../../../cli/serve/stateless.js';
import { resourceMetadataUrl } from '../../../runtime/auth/resource.js';
import { freePort } from '../../scale/support.js';

let issuerRequests = 0;
const broken = createServer((_req, res) => {
  issuerRequests++;
  res.writeHead(500).end('down');
});
await new Promise<void>((r) => broken.listen(0, '127.0.0.1', r));
const brokenIssuer = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
const goneIssuer = `http://127.0.0.1:${await freePort()}`;

const m2025 = { ...(await loadRevision('2025-11-25')), fallbackTables: await olderHandshakeTables('2025-11-25') };
const m2026 = await loadRevision('2026-07-28');
const served = [
  {
    era: '2025-11-25',
    issuer: brokenIssuer,
    s: await serveHttp(m2025 as never, { port: 0, host: '127.0.0.1', auth: { issuer: brokenIssuer } }),
  },
  {
    era: '2026-07-28',
    issuer: brokenIssuer,
    s: await serveStatelessHttp(m2026 as never, m2025 as never, {
      port: 0,
      host: '127.0.0.1',
      auth: { issuer: brokenIssuer },
    }),
  },
  {
    era: '2025-11-25',
    issuer: goneIssuer,
    s: await serveHttp(m2025 as never, { port: 0, host: '127.0.0.1', auth: { issuer: goneIssuer } }),
  },
  {
    era: '2026-07-28',
    issuer: goneIssuer,
    s: await serveStatelessHttp(m2026 as never, m2025 as never, {
      port: 0,
      host: '127.0.0.1',
      auth: { issuer: goneIssuer },
    }),
  },
];

const key = await generateKeyPair('ES256');
const sign = (issuer: string, aud: string, header: Record<string, unknown> = { alg: 'ES256', kid: 'k1' }) =>
  new SignJWT({ sub: 'alice' })
    .setProtectedHeader(header as never)
    .setIssuer(issuer)
    .setAudience(aud)
    .setExpirationTime('5m')
    .sign(key.privateKey);
const b64 = (v: unknown) => base64url.encode(JSON.stringify(v));

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
};
const post = (url: string, authorization: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      Authorization: authorization,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(initialize),
  });

/** Tokens that are no JWT this check accepts, whatever the issuer's keys. */
const garbage = (issuer: string, aud: string) =>
  [
    ['one word', 'Bearer garbage'],
    ['three parts, not JSON', 'Bearer aaa.bbb.ccc'],
    ['header without alg', `Bearer ${b64({ typ: 'JWT' })}.${b64({ sub: 'alice' })}.c2ln`],
    ['payload not an object', `Bearer ${b64({ alg: 'ES256' })}.${base64url.encode('"alice"')}.c2ln`],
    ['five parts (JWE)', 'Bearer a.b.c.d.e'],
    ['alg none', `Bearer ${b64({ alg: 'none' })}.${b64({ iss: issuer, aud, sub: 'alice', exp: 4e9 })}.`],
    [
      'HS256 (not accepted)',
      `Bearer ${b64({ alg: 'HS256' })}.${b64({ iss: issuer, aud, sub: 'alice', exp: 4e9 })}.c2ln`,
    ],
  ] as const;

for (const { era, issuer, s } of served) {
  const where = `${era}, issuer ${issuer === brokenIssuer ? 'answering 500' : 'not listening'}`;
  test(`${where}: a malformed token is 401 invalid_token with the challenge, the issuer never asked`, async () => {
    const before = issuerRequests;
    for (const [name, authorization] of garbage(issuer, s.url)) {
      const res = await post(s.url, authorization);
      const body = await res.text();
      assert.is(res.status, 401, `${name}: ${body}`);
      const challenge = res.headers.get('www-authenticate') ?? '';
      assert.match(challenge, /^Bearer /, name);
      assert.ok(challenge.includes(`resource_metadata="${resourceMetadataUrl(s.url)}"`), `${name}: ${challenge}`);
      assert.match(challenge, /error="invalid_token"/, name);
      assert.match(challenge, /error_description="(malformed token|token signing algorithm not allowed)"/, name);
      assert.is(res.headers.get('retry-after'), null, name);
      assert.is(JSON.parse(body).error.code, -32000, name);
    }
    assert.is(issuerRequests, before, 'no request went to the issuer');
  });

  test(`${where}: a well-formed token whose keys cannot be fetched is 503 with Retry-After`, async () => {
    const before = issuerRequests;
    const res = await post(s.url, `Bearer ${await sign(issuer, s.url)}`);
    const body = await res.text();
    assert.is(res.status, 503, body);
    assert.is(res.headers.get('retry-after'), '5');
    assert.is(res.headers.get('www-authenticate'), null, 'not a refusal of the token');
    assert.is(
      JSON.parse(body).error.message,
      'Service Unavailable: the access token cannot be checked now (temporarily_unavailable)',
    );
    assert.not.ok(body.includes(issuer.slice('http://'.length)), body);
    if (issuer === brokenIssuer) assert.ok(issuerRequests > before, 'the issuer metadata was asked for');
  });
}

test.after(async () => {
  await Promise.all(served.map(({ s }) => s.close()));
  await new Promise<void>((r) => broken.close(() => r()));
});

test.run();
