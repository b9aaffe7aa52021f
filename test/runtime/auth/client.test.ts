/**
 * The OAuth client's own rules, over real HTTP against a small authorization server stand-in
 * (the full flows run against oidc-provider and the conformance suites): challenge parsing;
 * a server that keeps answering 403 `insufficient_scope` gets at most `maxAuthorizations`
 * step-ups, each asking for the scopes granted so far joined with the challenged ones, and its
 * last answer is returned as it is; the `resource` parameter names the server; metadata whose
 * issuer differs from the one named is refused before any token request.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthorizationError, oauthFetch, parseBearerChallenge } from '../../../runtime/auth/client.js';

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const stop = (server: Server) =>
  new Promise<void>((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });

test('parseBearerChallenge: quoted and bare values, escapes, other schemes, no prototype keys', () => {
  const p = parseBearerChallenge(
    'Basic realm="x", Bearer error="insufficient_scope", scope="a b", resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", error_description="say \\"more\\"", __proto__="p"',
  );
  assert.is(p?.error, 'insufficient_scope');
  assert.is(p?.scope, 'a b');
  assert.is(p?.resource_metadata, 'https://h/.well-known/oauth-protected-resource/mcp');
  assert.is(p?.error_description, 'say "more"');
  assert.is(Object.getPrototypeOf(p), null);
  // biome-ignore lint/suspicious/noProto: an own property named __proto__, the subject of the test
  assert.is(p?.__proto__, 'p');
  assert.is(parseBearerChallenge('Bearer realm=example')?.realm, 'example');
  assert.is(parseBearerChallenge('Basic realm="x"'), undefined);
  assert.is(parseBearerChallenge(null), undefined);
});

test('step-up on 403 insufficient_scope: scopes joined, bounded tries, the last 403 returned', async () => {
  const tokenRequests: URLSearchParams[] = [];
  let n = 0;
  const as = createServer(async (req, res) => {
    const json = (v: unknown) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(v));
    if (req.url === '/.well-known/oauth-authorization-server')
      return json({
        issuer,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
        grant_types_supported: ['client_credentials'],
      });
    if (req.url === '/token') {
      let body = '';
      for await (const c of req) body += c;
      const params = new URLSearchParams(body);
      tokenRequests.push(params);
      return json({ access_token: `t${++n}`, token_type: 'Bearer', expires_in: 300, scope: params.get('scope') ?? '' });
    }
    res.writeHead(404).end();
  });
  const issuer = await listen(as);
  const seen: Array<string | undefined> = [];
  const mcp = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-protected-resource/mcp')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ resource: url, authorization_servers: [issuer] }));
    seen.push(req.headers.authorization);
    if (!req.headers.authorization) return void res.writeHead(401, { 'WWW-Authenticate': 'Bearer scope="read"' }).end();
    // every token lacks a scope: a new one each time
    res.writeHead(403, { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="write${n}"` }).end('no');
  });
  const origin = await listen(mcp);
  const url = `${origin}/mcp`;
  try {
    const auth = oauthFetch({
      grant: 'client_credentials',
      credentials: { client_id: 'machine', client_secret: 's3cret' },
      maxAuthorizations: 3,
    });
    const res = await auth.fetch(url, { method: 'POST', body: '{}' });
    assert.is(res.status, 403, 'after the tries, the answer as it is');
    assert.is(await res.text(), 'no');
    assert.is(tokenRequests.length, 3, 'one authorization per try, no more');
    assert.equal(
      tokenRequests.map((p) => p.get('scope')),
      ['read', 'read write1', 'read write1 write2'],
    );
    assert.ok(tokenRequests.every((p) => p.get('resource') === url && p.get('grant_type') === 'client_credentials'));
    assert.equal(seen, [undefined, 'Bearer t1', 'Bearer t2', 'Bearer t3']);
  } finally {
    await stop(mcp);
    await stop(as);
  }
});

test('authorization server metadata naming another issuer is refused before any token request', async () => {
  let tokens = 0;
  const as = createServer((req, res) => {
    if (req.url === '/token') tokens++;
    if (req.url === '/.well-known/oauth-authorization-server')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ issuer: 'https://honest.example', token_endpoint: `${issuer}/token` }));
    res.writeHead(404).end();
  });
  const issuer = await listen(as);
  const mcp = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-protected-resource/mcp')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [issuer] }));
    res.writeHead(401, { 'WWW-Authenticate': 'Bearer' }).end();
  });
  const origin = await listen(mcp);
  try {
    const auth = oauthFetch({ grant: 'client_credentials', credentials: { client_id: 'machine', client_secret: 's' } });
    const e = await auth.fetch(`${origin}/mcp`, { method: 'POST', body: '{}' }).then(
      () => undefined,
      (x: unknown) => x,
    );
    assert.instance(e, AuthorizationError);
    assert.match((e as Error).message, /issuer/);
    assert.is(tokens, 0);
  } finally {
    await stop(mcp);
    await stop(as);
  }
});

test.run();
