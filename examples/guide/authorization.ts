// Guide: authorization (docs/guide/authorization.md). A 2025-11-25 Streamable HTTP server
// protected as an OAuth 2.1 resource server (JWTs checked against the issuer's JWKS, issuer and
// audience pinned), and two clients: one holding a token, one that gets its own through
// oauthFetch (client_credentials). A small authorization server stand-in on 127.0.0.1 signs
// the tokens with a key pair made here (jose) and publishes its metadata and JWKS.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Client, Server, table, type Protocol } from '../../generated/2025-11-25/index.js';
import { createStreamableHttpHandler, HttpClientTransport } from '@mcpgen/runtime/http';
import { ServerFeatures } from '@mcpgen/runtime';
import {
  bearerAuth,
  oauthFetch,
  parseBearerChallenge,
  protectedResourceMetadata,
  resourceMetadataEndpoint,
} from '@mcpgen/runtime/auth';

const listen = (server: HttpServer) =>
  new Promise<string>((done) =>
    server.listen(0, '127.0.0.1', () => done(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
const stop = (server: HttpServer) =>
  new Promise<void>((done) => {
    server.closeAllConnections();
    server.close(() => done());
  });
const bodyOf = async (req: IncomingMessage) => {
  let s = '';
  for await (const chunk of req) s += chunk;
  return s;
};

// ---- the authorization server stand-in: RFC 8414 metadata, the JWKS, a token endpoint
const { publicKey, privateKey } = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' };
const sign = (claims: Record<string, unknown>) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: 'key-1' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
const tokenRequests: URLSearchParams[] = [];
const as = createServer(async (req, res) => {
  const json = (status: number, v: unknown) =>
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(v));
  if (req.url === '/.well-known/oauth-authorization-server') {
    return json(200, {
      issuer,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
      grant_types_supported: ['client_credentials'],
    });
  }
  if (req.url === '/jwks') return json(200, { keys: [jwk] });
  if (req.url === '/token' && req.method === 'POST') {
    const params = new URLSearchParams(await bodyOf(req));
    tokenRequests.push(params);
    if (req.headers.authorization !== `Basic ${btoa('machine:s3cret')}`) return json(401, { error: 'invalid_client' });
    const token = await sign({
      iss: issuer,
      aud: params.get('resource'),
      sub: 'machine',
      client_id: 'machine',
      scope: 'mcp',
    });
    return json(200, { access_token: token, token_type: 'Bearer', expires_in: 300, scope: 'mcp' });
  }
  res.writeHead(404).end();
});
const issuer = await listen(as);

// ---- the MCP server: /mcp protected, its protected resource metadata beside it
const mcp = createServer();
const origin = await listen(mcp);
const resource = `${origin}/mcp`; // the canonical URI: the audience every token must name

const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'whoami',
  handler: (_args, ctx) => ({
    content: [{ type: 'text', text: `${ctx.auth?.subject} (${ctx.auth?.scopes.join(' ')})` }],
  }),
});
const authorize = bearerAuth({ resource, issuer, jwks: `${issuer}/jwks`, requiredScopes: ['mcp'] });
const metadata = resourceMetadataEndpoint(
  protectedResourceMetadata({ resource, authorizationServers: [issuer], scopesSupported: ['mcp'] }),
);
const handler = createStreamableHttpHandler({
  tables: [table],
  authorize,
  onSession: async (transport) => {
    const session = new Server({
      serverInfo: { name: 'protected', version: '1.0.0' },
      capabilities: features.capabilities(),
      handlers: features.handlers({ table }),
    });
    await session.connect(transport);
  },
});
mcp.on('request', (req, res) => (metadata.handles(req.url) ? metadata.node(req, res) : handler(req, res)));

try {
  // ---- no token: 401, and the challenge says where to look
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  };
  const post = (authorization?: string) =>
    fetch(resource, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        ...(authorization ? { Authorization: authorization } : {}),
      },
      body: JSON.stringify(initialize),
    });
  const anonymous = await post();
  assert.equal(anonymous.status, 401);
  const challenge = parseBearerChallenge(anonymous.headers.get('www-authenticate'));
  assert.equal(challenge?.resource_metadata, `${origin}/.well-known/oauth-protected-resource/mcp`);
  assert.equal(challenge?.scope, 'mcp');
  const prm = (await (await fetch(challenge.resource_metadata)).json()) as {
    resource: string;
    authorization_servers: string[];
  };
  assert.deepEqual([prm.resource, prm.authorization_servers], [resource, [issuer]]);

  // ---- tokens that are not good enough
  const otherAudience = await post(
    `Bearer ${await sign({ iss: issuer, aud: 'https://other.example/mcp', sub: 'alice', scope: 'mcp' })}`,
  );
  assert.equal(otherAudience.status, 401);
  assert.equal(parseBearerChallenge(otherAudience.headers.get('www-authenticate'))?.error, 'invalid_token');
  const noScope = await post(`Bearer ${await sign({ iss: issuer, aud: resource, sub: 'alice', scope: 'profile' })}`);
  assert.equal(noScope.status, 403);
  assert.equal(parseBearerChallenge(noScope.headers.get('www-authenticate'))?.error, 'insufficient_scope');

  // ---- a client that holds a token: every request carries it
  const token = await sign({ iss: issuer, aud: resource, sub: 'alice', scope: 'mcp' });
  const withToken: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const alice = new Client({ clientInfo: { name: 'app', version: '1.0.0' } });
  await alice.connect(new HttpClientTransport({ url: resource, fetch: withToken }));
  assert.deepEqual((await alice.callTool({ name: 'whoami', arguments: {} })).content, [
    { type: 'text', text: 'alice (mcp)' },
  ]);
  await alice.close();

  // ---- a client that authorizes itself: on 401, discovery, a token request, the retry
  const auth = oauthFetch({
    grant: 'client_credentials',
    credentials: { client_id: 'machine', client_secret: 's3cret' },
  });
  const machine = new Client({ clientInfo: { name: 'worker', version: '1.0.0' } });
  await machine.connect(new HttpClientTransport({ url: resource, fetch: auth.fetch }));
  assert.deepEqual((await machine.callTool({ name: 'whoami', arguments: {} })).content, [
    { type: 'text', text: 'machine (mcp)' },
  ]);
  assert.equal(tokenRequests.length, 1); // one token, reused for every request of the session
  assert.deepEqual(
    [tokenRequests[0].get('grant_type'), tokenRequests[0].get('resource'), tokenRequests[0].get('scope')],
    ['client_credentials', resource, 'mcp'],
  );
  await machine.close();
} finally {
  await stop(mcp);
  await stop(as);
}

console.log('ok authorization');
