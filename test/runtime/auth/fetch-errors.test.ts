/**
 * Every request of runtime/auth that fails before a response (here: a port nobody listens on)
 * names its method, its URL and the cause, instead of a bare "fetch failed": discovery of both
 * documents, the token request, the MCP request of the authorizing fetch, and the issuer's keys
 * of the resource server's check (told to its `onError`; its client gets a generic 503).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, SignJWT } from 'jose';
import { AuthorizationError, oauthFetch } from '../../../runtime/auth/client.js';
import {
  AuthFetchError,
  discoverAuthorizationServer,
  discoverResourceMetadata,
} from '../../../runtime/auth/discovery.js';
import { bearerAuth } from '../../../runtime/auth/resource.js';
import { freePort } from '../../scale/support.js';

const listen = async (s: Server) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};
const stop = (s: Server) => new Promise<void>((r) => s.close(() => r()));
const dead = `http://127.0.0.1:${await freePort()}`;
const refused = /ECONNREFUSED/;

async function failure(p: Promise<unknown>): Promise<Error> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof Error)) throw new Error('expected a failure');
  return e;
}

test('discovery: a dead issuer or resource names the URL it tried and the cause', async () => {
  const as = await failure(discoverAuthorizationServer(dead));
  assert.instance(as, AuthFetchError);
  assert.instance(as, TypeError, 'still a TypeError, as fetch throws');
  assert.is((as as AuthFetchError).url, `${dead}/.well-known/oauth-authorization-server`);
  assert.match(as.message, `GET ${dead}/.well-known/oauth-authorization-server failed: fetch failed (`);
  assert.match(as.message, refused);
  const prm = await failure(discoverResourceMetadata(`${dead}/mcp`, undefined));
  assert.match(prm.message, `GET ${dead}/.well-known/oauth-protected-resource/mcp failed: `);
  assert.match(prm.message, refused);
});

test('oauthFetch: a dead issuer, a dead token endpoint and a dead MCP server each name their URL', async () => {
  let tokenEndpoint = `${dead}/token`;
  const as = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-authorization-server')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ issuer, token_endpoint: tokenEndpoint, response_types_supported: ['code'] }));
    res.writeHead(404).end();
  });
  const issuer = await listen(as);
  let named = dead;
  const mcp = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-protected-resource/mcp')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [named] }));
    res.writeHead(401, { 'WWW-Authenticate': 'Bearer' }).end();
  });
  const origin = await listen(mcp);
  const client = () =>
    oauthFetch({ grant: 'client_credentials', credentials: { client_id: 'machine', client_secret: 's' } });
  try {
    // the protected resource metadata names an issuer that is not listening
    const e1 = await failure(client().fetch(`${origin}/mcp`, { method: 'POST', body: '{}' }));
    assert.instance(e1, AuthorizationError);
    assert.match(e1.message, `GET ${dead}/.well-known/oauth-authorization-server failed: `);
    assert.match(e1.message, refused);
    // a live issuer whose token endpoint is not
    named = issuer;
    tokenEndpoint = `${dead}/token`;
    const e2 = await failure(client().fetch(`${origin}/mcp`, { method: 'POST', body: '{}' }));
    assert.instance(e2, AuthFetchError);
    assert.match(e2.message, `POST ${dead}/token failed: `);
    assert.match(e2.message, refused);
    // the MCP server itself is gone
    const e3 = await failure(client().fetch(`${dead}/mcp`, { method: 'POST', body: '{}' }));
    assert.instance(e3, TypeError);
    assert.match(e3.message, `POST ${dead}/mcp failed: `);
    assert.match(e3.message, refused);
  } finally {
    await stop(mcp);
    await stop(as);
  }
});

test('bearerAuth: keys that cannot be fetched make a 503; its onError is told the JWKS URL (the client is not)', async () => {
  const resource = 'http://127.0.0.1:1/mcp';
  const told: string[] = [];
  const onError = (e: Error) => void told.push(e.message);
  const check = bearerAuth({ resource, issuer: dead, jwks: `${dead}/jwks`, onError });
  const key = await generateKeyPair('ES256');
  const token = await new SignJWT({ sub: 'alice' })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(dead)
    .setAudience(resource)
    .setExpirationTime('5m')
    .sign(key.privateKey);
  const verdict = await check({ method: 'POST', headers: { authorization: `Bearer ${token}` } });
  assert.ok('refusal' in verdict && verdict.refusal, JSON.stringify(verdict));
  const refusal = (verdict as { refusal: { status: number; message: string } }).refusal;
  assert.is(refusal.status, 503);
  assert.not.ok(refusal.message.includes(dead), refusal.message);
  assert.is(told.length, 1);
  assert.match(told[0], `GET ${dead}/jwks failed: `);
  assert.match(told[0], refused);
  // discovered keys: the issuer's metadata URL is named
  const viaIssuer = bearerAuth({ resource, issuer: dead, onError });
  const v2 = await viaIssuer({ method: 'POST', headers: { authorization: `Bearer ${token}` } });
  const r2 = (v2 as { refusal: { status: number; message: string } }).refusal;
  assert.is(r2.status, 503);
  assert.is(told.length, 2);
  assert.match(told[1], `GET ${dead}/.well-known/oauth-authorization-server failed: `);
});

test.run();
