/**
 * Authorization interop with the official SDK v1 (@modelcontextprotocol/sdk@1.32.2), against a
 * real authorization server (oidc-provider, ../runtime/auth/fixtures/oidc.ts):
 * - the SDK client with its OAuth provider (`authProvider`: discovery, dynamic registration,
 *   PKCE, the resource parameter) → our protected server (`mcpgen serve --auth`): 401, the
 *   SDK's flow, `finishAuth(code)`, then calls that succeed;
 * - our client → an SDK server behind the SDK's `requireBearerAuth` (its verifier checks the
 *   provider's JWT with jose: issuer, audience = the server URL): our client reads the SDK's
 *   challenge, authorizes and calls; the verifier saw our token for that resource.
 * The SDK's auth modules appear here only as the peer under test.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { Client as Sdk1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Sdk1HttpClient } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { StreamableHTTPServerTransport as Sdk1HttpServer } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import * as v2025 from '../../generated/2025-11-25/index.js';
import { oauthFetch } from '../../runtime/auth/client.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { loadRevision, olderHandshakeTables } from '../../cli/revisions.js';
import { serveHttp } from '../../cli/serve/http.js';
import { clientOptions, REDIRECT, stop, userAgent, startAuthorizationServer } from '../runtime/auth/fixtures/oidc.js';

import { makeSdk1Server } from '../runtime/transport/http/stateless/fixtures/sdk1-server.js';

const { issuer, grants, close: closeAuthorizationServer } = await startAuthorizationServer();

/** The SDK's provider interface, in memory; the user-agent step is the fixture's programmatic login. */
class Sdk1Provider implements OAuthClientProvider {
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = '';
  code: string | undefined;
  readonly redirectUrl = REDIRECT;
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'sdk1 e2e',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    } as OAuthClientMetadata;
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.#client = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens;
  }
  async redirectToAuthorization(url: URL) {
    const back = await userAgent(url, REDIRECT);
    this.code = (back instanceof URL ? back.searchParams : back).get('code') ?? undefined;
  }
  saveCodeVerifier(v: string) {
    this.#verifier = v;
  }
  codeVerifier() {
    return this.#verifier;
  }
}

test('SDK v1 client with its OAuth provider → our protected server (serve --auth)', async () => {
  const m2025 = { ...(await loadRevision('2025-11-25')), fallbackTables: await olderHandshakeTables('2025-11-25') };
  const served = await serveHttp(m2025 as never, { port: 0, host: '127.0.0.1', auth: { issuer, scopes: ['mcp'] } });
  try {
    const provider = new Sdk1Provider();
    const first = new Sdk1Client({ name: 'sdk1', version: '1' });
    const t1 = new Sdk1HttpClient(new URL(served.url), { authProvider: provider });
    const refused = await first.connect(t1).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(refused, UnauthorizedError, 'the SDK hands the user-agent step back before the code exchange');
    assert.ok(provider.code, "our server's challenge led the SDK through discovery and registration to a code");
    await t1.finishAuth(provider.code!);
    const client = new Sdk1Client({ name: 'sdk1', version: '1' });
    await client.connect(new Sdk1HttpClient(new URL(served.url), { authProvider: provider }));
    const tools = await client.listTools();
    assert.ok(tools.tools.some((t) => t.name === 'echo') || tools.tools.length > 0);
    assert.ok(provider.tokens()?.access_token);
    await client.close();
  } finally {
    await served.close();
  }
});

test('our client → an SDK v1 server behind requireBearerAuth', async () => {
  const http = createServer();
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const url = `${origin}/mcp`;
  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const verified: Array<{ aud: unknown; sub: unknown }> = [];
  const app = express();
  app.use(express.json());
  app.get(
    '/.well-known/oauth-protected-resource/mcp',
    (_req: unknown, res: { json(v: unknown): void }) =>
      void res.json({ resource: url, authorization_servers: [issuer], scopes_supported: ['mcp'] }),
  );
  const bearer = requireBearerAuth({
    verifier: {
      verifyAccessToken: async (token) => {
        const { payload } = await jwtVerify(token, jwks, { issuer, audience: url });
        verified.push({ aud: payload.aud, sub: payload.sub });
        return {
          token,
          clientId: String(payload.client_id),
          scopes: String(payload.scope ?? '').split(' '),
          expiresAt: payload.exp,
          resource: new URL(url),
        };
      },
    },
    requiredScopes: ['mcp'],
    resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp`,
  });
  app.all(
    '/mcp',
    bearer,
    async (req: import('node:http').IncomingMessage & { body?: unknown }, res: import('node:http').ServerResponse) => {
      const t = new Sdk1HttpServer({ sessionIdGenerator: undefined });
      await makeSdk1Server().connect(t);
      await t.handleRequest(req, res, req.body);
    },
  );
  http.on('request', app);
  try {
    grants.length = 0;
    const auth = oauthFetch(clientOptions);
    const client = new v2025.Client({ clientInfo: { name: 'ours', version: '1' } });
    await client.connect(new HttpClientTransport({ url, fetch: auth.fetch }));
    const tools = await client.listTools();
    assert.ok(tools.tools.length > 0);
    assert.equal(grants, ['authorization_code']);
    assert.ok(verified.length >= 2, `the SDK verified our token on each request (${verified.length})`);
    assert.ok(
      verified.every((v) => v.aud === url && v.sub === 'alice'),
      JSON.stringify(verified),
    );
    await client.close();
  } finally {
    await stop(http);
  }
});

test.after(async () => {
  await closeAuthorizationServer();
});

test.run();
