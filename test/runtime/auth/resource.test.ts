/**
 * The resource-server checks on both eras' HTTP endpoints, over real HTTP: an authorization
 * server stand-in publishes its metadata and JWKS on 127.0.0.1 (the check discovers the
 * `jwks_uri` from the issuer), tokens are signed with jose. Every bad token kind is refused
 * with the right status and `WWW-Authenticate`, and none reaches the engine (no message
 * delivered, no session opened); a refusal goes out on the request's head alone, before any
 * body byte is sent; a good token's principal reaches the engine as `MessageInfo.auth`, and a
 * session is its initializer's alone.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, base64url } from 'jose';
import {
  bearerAuth,
  protectedResourceMetadata,
  resourceMetadataEndpoint,
  resourceMetadataUrl,
} from '../../../runtime/auth/resource.js';
import { createStreamableHttpHandler, type HttpServerSession } from '../../../runtime/transport/http/session/server.js';
import { createStatelessHttpHandler } from '../../../runtime/transport/http/stateless/server.js';
import type { JSONRPCMessage, MessageInfo } from '../../../runtime/jsonrpc/transport.js';

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
};
const stop = (server: Server) =>
  new Promise<void>((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });

const good = await generateKeyPair('ES256');
const evil = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(good.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };

// the authorization server stand-in: RFC 8414 metadata and the JWKS
const as = createServer((req, res) => {
  const json = (v: unknown) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(v));
  if (req.url === '/.well-known/oauth-authorization-server')
    return json({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
    });
  if (req.url === '/jwks') return json({ keys: [jwk] });
  res.writeHead(404).end();
});
const issuer = `http://127.0.0.1:${await listen(as)}`;

// the MCP server: /mcp (2025 sessions) and /modern (stateless), each protected
const mcp = createServer();
const port = await listen(mcp);
const sessionResource = `http://127.0.0.1:${port}/mcp`;
const statelessResource = `http://127.0.0.1:${port}/modern`;

const delivered: Array<{ era: string; message: JSONRPCMessage; info?: MessageInfo }> = [];
let opened = 0;
const sessionAuth = bearerAuth({ resource: sessionResource, issuer, requiredScopes: ['mcp:use'] });
const sessions = createStreamableHttpHandler({
  supportedProtocolVersions: ['2025-11-25'],
  authorize: sessionAuth,
  onSession: async (t: HttpServerSession) => {
    opened++;
    await t.start({
      onMessage: (message, info) => {
        delivered.push({ era: '2025', message, info });
        if (message.id !== undefined && message.method)
          void t.send(
            {
              jsonrpc: '2.0',
              id: message.id,
              result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 't', version: '1' } },
            },
            { relatedRequestId: message.id as string | number },
          );
      },
      onClose() {},
    });
  },
});
const stateless = createStatelessHttpHandler({
  supportedVersions: ['2026-07-28'],
  authorize: bearerAuth({ resource: statelessResource, issuer, requiredScopes: ['mcp:use'] }),
});
await stateless.transport.start({
  onMessage: (message, info) => {
    delivered.push({ era: '2026', message, info });
    if (message.id !== undefined)
      void stateless.transport.send(
        { jsonrpc: '2.0', id: message.id, result: {} },
        { relatedRequestId: message.id as string | number },
      );
  },
  onClose() {},
});
const prm = resourceMetadataEndpoint(
  protectedResourceMetadata({
    resource: sessionResource,
    authorizationServers: [issuer],
    scopesSupported: ['mcp:use'],
  }),
);
mcp.on('request', (req, res) => {
  if (prm.handles(req.url)) return prm.node(req, res);
  if (req.url === '/mcp') return void sessions(req, res);
  if (req.url === '/modern') return void stateless(req, res);
  res.writeHead(404).end();
});

const now = () => Math.floor(Date.now() / 1000);
async function token(
  claims: Record<string, unknown>,
  key = good.privateKey,
  header: Record<string, unknown> = { alg: 'ES256', kid: 'k1' },
): Promise<string> {
  return new SignJWT({ scope: 'mcp:use', ...claims }).setProtectedHeader(header as never).sign(key);
}
const claimsFor = (resource: string) => ({
  iss: issuer,
  aud: resource,
  sub: 'alice',
  exp: now() + 300,
  client_id: 'c1',
});

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
};
const modernCall = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/list',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
};

async function post(
  path: string,
  body: unknown,
  authorization?: string,
  extra: Record<string, string> = {},
): Promise<Response> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    ...extra,
  };
  if (authorization !== undefined) headers.Authorization = authorization;
  if (path === '/modern') Object.assign(headers, { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/list' });
  return fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
}

/** Every kind of bad credential, with the status and error the endpoint must answer. */
async function badCredentials(
  resource: string,
): Promise<Array<{ name: string; authorization?: string; status: number; error?: string; description?: RegExp }>> {
  const base = claimsFor(resource);
  const none = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url.encode(JSON.stringify(base))}.`;
  return [
    { name: 'missing', status: 401 },
    { name: 'another scheme', authorization: 'Basic YWxpY2U6c2VjcmV0', status: 401 },
    {
      name: 'malformed (not a JWT)',
      authorization: 'Bearer not-a-jwt',
      status: 401,
      error: 'invalid_token',
      description: /malformed/,
    },
    {
      name: 'malformed (two words)',
      authorization: 'Bearer a b',
      status: 401,
      error: 'invalid_token',
      description: /malformed/,
    },
    {
      name: 'expired',
      authorization: `Bearer ${await token({ ...base, exp: now() - 600 })}`,
      status: 401,
      error: 'invalid_token',
      description: /expired/,
    },
    {
      name: 'no expiry',
      authorization: `Bearer ${await token({ ...base, exp: undefined })}`,
      status: 401,
      error: 'invalid_token',
      description: /exp/,
    },
    {
      name: 'wrong audience',
      authorization: `Bearer ${await token({ ...base, aud: 'https://api.example.com' })}`,
      status: 401,
      error: 'invalid_token',
      description: /not issued for this resource/,
    },
    {
      name: 'token for another resource of the same server',
      authorization: `Bearer ${await token({ ...base, aud: `http://127.0.0.1:${port}/other` })}`,
      status: 401,
      error: 'invalid_token',
      description: /not issued for this resource/,
    },
    {
      name: 'wrong issuer',
      authorization: `Bearer ${await token({ ...base, iss: 'http://127.0.0.1:1/evil' })}`,
      status: 401,
      error: 'invalid_token',
      description: /another issuer/,
    },
    {
      name: 'bad signature (another key, same kid)',
      authorization: `Bearer ${await token(base, evil.privateKey)}`,
      status: 401,
      error: 'invalid_token',
      description: /signature invalid/,
    },
    { name: 'alg none', authorization: `Bearer ${none}`, status: 401, error: 'invalid_token' },
    {
      name: 'unknown kid',
      authorization: `Bearer ${await token(base, good.privateKey, { alg: 'ES256', kid: 'other' })}`,
      status: 401,
      error: 'invalid_token',
      description: /no signing key/,
    },
    {
      name: 'insufficient scope',
      authorization: `Bearer ${await token({ ...base, scope: 'profile' })}`,
      status: 403,
      error: 'insufficient_scope',
      description: /mcp:use/,
    },
  ];
}

/** Parses `Bearer k="v", …` (quoted values, backslash escapes). */
function challenge(header: string | null): Record<string, string> {
  assert.ok(header?.startsWith('Bearer'), `WWW-Authenticate: ${header}`);
  const out: Record<string, string> = {};
  for (const m of header!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) out[m[1]] = m[2].replace(/\\(.)/g, '$1');
  return out;
}

for (const [era, path, resource, body] of [
  ['2025 sessions', '/mcp', sessionResource, initialize],
  ['stateless', '/modern', statelessResource, modernCall],
] as const) {
  test(`${era}: every bad credential is refused with its challenge and reaches no handler`, async () => {
    const before = delivered.length;
    const openedBefore = opened;
    for (const c of await badCredentials(resource)) {
      const res = await post(path, body, c.authorization);
      const text = await res.text();
      assert.is(res.status, c.status, `${c.name}: ${text}`);
      const params = challenge(res.headers.get('www-authenticate'));
      assert.is(params.resource_metadata, resourceMetadataUrl(resource), c.name);
      assert.is(params.error, c.error, `${c.name}: error`);
      if (c.description) assert.match(params.error_description ?? '', c.description, c.name);
      if (c.status === 403 || !c.error) assert.match(params.scope ?? '', /mcp:use/, `${c.name}: scope`);
      assert.is(JSON.parse(text).error.code, -32000, c.name);
    }
    assert.is(delivered.length, before, 'no message reached the engine');
    assert.is(opened, openedBefore, 'no session was opened');
  });
}

test('a refusal is answered on the head alone: the body is never waited for', async () => {
  for (const path of ['/mcp', '/modern']) {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            'Content-Length': '100000',
            Authorization: 'Bearer not-a-jwt',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on('error', reject);
      req.flushHeaders(); // headers only: not one body byte is written
    });
    assert.is(status, 401, path);
  }
});

test("2025 sessions: a good token reaches the engine with its principal; the session is its owner's alone", async () => {
  const alice = `Bearer ${await token(claimsFor(sessionResource))}`;
  const res = await post('/mcp', initialize, alice);
  assert.is(res.status, 200, await res.clone().text());
  await res.text();
  const sid = res.headers.get('mcp-session-id');
  assert.ok(sid);
  const got = delivered.at(-1)!;
  assert.is(got.era, '2025');
  assert.is(got.info?.auth?.subject, 'alice');
  assert.is(got.info?.auth?.clientId, 'c1');
  assert.equal(got.info?.auth?.scopes, ['mcp:use']);
  assert.is(got.info?.auth?.resource, sessionResource);
  const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
  const bob = `Bearer ${await token({ ...claimsFor(sessionResource), sub: 'bob' })}`;
  const count = delivered.length;
  const theirs = await post('/mcp', ping, bob, { 'Mcp-Session-Id': sid!, 'MCP-Protocol-Version': '2025-11-25' });
  assert.is(theirs.status, 404, 'another principal does not see the session');
  await theirs.text();
  assert.is(delivered.length, count);
  const mine = await post('/mcp', ping, alice, { 'Mcp-Session-Id': sid!, 'MCP-Protocol-Version': '2025-11-25' });
  assert.is(mine.status, 200);
  await mine.text();
  assert.is(delivered.at(-1)!.info?.auth?.subject, 'alice');
});

test('stateless: a good token reaches the engine with its principal', async () => {
  const res = await post(
    '/modern',
    modernCall,
    `Bearer ${await token({ ...claimsFor(statelessResource), sub: 'carol' })}`,
  );
  assert.is(res.status, 200, await res.clone().text());
  await res.text();
  const got = delivered.at(-1)!;
  assert.is(got.era, '2026');
  assert.is(got.info?.auth?.subject, 'carol');
});

test('protected resource metadata at the path-inserted well-known URI (RFC 9728)', async () => {
  const res = await fetch(resourceMetadataUrl(sessionResource));
  assert.is(res.status, 200);
  assert.is(new URL(resourceMetadataUrl(sessionResource)).pathname, '/.well-known/oauth-protected-resource/mcp');
  assert.equal(await res.json(), {
    resource: sessionResource,
    authorization_servers: [issuer],
    scopes_supported: ['mcp:use'],
    bearer_methods_supported: ['header'],
  });
  assert.throws(() => bearerAuth({ resource: sessionResource, issuer, algorithms: ['ES256', 'none'] }), /none/);
  assert.throws(() => resourceMetadataUrl('https://h/mcp#x'), /fragment/);
});

test('the issuer out of reach is 503, not a refusal of the token', async () => {
  const check = bearerAuth({ resource: sessionResource, issuer: 'http://127.0.0.1:9/unreachable' });
  const verdict = await check({
    method: 'POST',
    headers: { authorization: `Bearer ${await token(claimsFor(sessionResource))}` },
  });
  assert.ok('refusal' in verdict && verdict.refusal.status === 503, JSON.stringify(verdict));
});

test('DPoP (RFC 9449): a bound token with a fresh proof of its key passes; replayed, other-key, other-URL, other-token proofs and the token as a bearer token do not reach the engine', async () => {
  const resource = `http://127.0.0.1:${port}/dpop`;
  const check = bearerAuth({ resource, issuer, dpop: {} });
  const dpopEndpoint = createStatelessHttpHandler({ supportedVersions: ['2026-07-28'], authorize: check });
  const got: Array<MessageInfo | undefined> = [];
  await dpopEndpoint.transport.start({
    onMessage: (message, info) => {
      got.push(info);
      void dpopEndpoint.transport.send(
        { jsonrpc: '2.0', id: message.id as number, result: {} },
        { relatedRequestId: message.id as number },
      );
    },
    onClose() {},
  });
  const server = createServer((req, res) => void dpopEndpoint(req, res));
  const dport = await listen(server);
  const url = `http://127.0.0.1:${dport}/dpop`;
  try {
    const holder = await generateKeyPair('ES256');
    const other = await generateKeyPair('ES256');
    const jwkOf = async (k: CryptoKey) => {
      const { kty, crv, x, y } = await exportJWK(k);
      return { kty, crv, x, y };
    };
    const jkt = await calculateJwkThumbprint(await jwkOf(holder.publicKey));
    const bound = await token({ iss: issuer, aud: resource, sub: 'dave', exp: now() + 300, cnf: { jkt } });
    const unbound = await token({ iss: issuer, aud: resource, sub: 'dave', exp: now() + 300 });
    const ath = async (t: string) =>
      base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(t))));
    const proof = async (o: { key?: CryptoKeyPair; htu?: string; tok?: string } = {}) => {
      const k = o.key ?? holder;
      return new SignJWT({
        htm: 'POST',
        htu: o.htu ?? resource,
        iat: now(),
        jti: crypto.randomUUID(),
        ath: await ath(o.tok ?? bound),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await jwkOf(k.publicKey) })
        .sign(k.privateKey);
    };
    const send = (authorization: string, dpop?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': '2026-07-28',
          'Mcp-Method': 'tools/list',
          Authorization: authorization,
          ...(dpop ? { DPoP: dpop } : {}),
        },
        body: JSON.stringify(modernCall),
      });
    const fresh = await proof();
    const ok = await send(`DPoP ${bound}`, fresh);
    assert.is(ok.status, 200, await ok.clone().text());
    await ok.text();
    assert.is(got.length, 1);
    assert.is(got[0]?.auth?.subject, 'dave');
    const cases: Array<[string, string, string | undefined, RegExp]> = [
      ['replayed proof', `DPoP ${bound}`, fresh, /replayed/],
      ['proof of another key', `DPoP ${bound}`, await proof({ key: other }), /another key/],
      ['proof for another URL', `DPoP ${bound}`, await proof({ htu: `http://127.0.0.1:${port}/mcp` }), /another URL/],
      ['proof for another token', `DPoP ${bound}`, await proof({ tok: 'x' }), /another access token/],
      ['no proof', `DPoP ${bound}`, undefined, /missing/],
      ['bound token as bearer', `Bearer ${bound}`, undefined, /DPoP-bound token presented as a bearer token/],
      // a token with no cnf.jkt under the DPoP scheme is the token's fault, not the proof's
      [
        'unbound token as DPoP',
        `DPoP ${unbound}`,
        await proof({ tok: unbound }),
        /error="invalid_token", error_description="token is not DPoP-bound \(no cnf\.jkt\); send it as a Bearer token"/,
      ],
    ];
    for (const [name, authorization, dpop, why] of cases) {
      const res = await send(authorization, dpop);
      assert.is(res.status, 401, name);
      assert.match(res.headers.get('www-authenticate') ?? '', why, name);
      await res.text();
    }
    assert.is(got.length, 1, 'no refused request reached the engine');
  } finally {
    await dpopEndpoint.close();
    await stop(server);
  }
});

test.after(async () => {
  await sessions.close();
  await stateless.close();
  await stop(mcp);
  await stop(as);
});

test.run();
