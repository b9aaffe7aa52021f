/**
 * Issue 44, auth trials: the challenges of a resource that accepts DPoP (RFC 9449 §7.1). A
 * request under the DPoP scheme that is refused is answered with a `DPoP` challenge
 * (`error`, `error_description`, `algs`), not a `Bearer` one; a request with no credentials at
 * a resource accepting both schemes is offered both; one that takes DPoP alone offers only
 * DPoP; every challenge names the protected resource metadata (RFC 9728 §5.1). Over real HTTP
 * against a stateless endpoint, the headers compared whole.
 *
 * Our client (`oauthFetch` with `dpop: true`) against such a resource (DPoP required, server
 * nonces on, its metadata only at the URL the challenge names) and a real authorization server
 * (oidc-provider): it finds the metadata through the DPoP challenge, answers `use_dpop_nonce`
 * once with the server's nonce, and, when its token is refused (`invalid_token` under DPoP,
 * no refresh token), authorizes again and is served.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { MemoryTokenStore, oauthFetch } from '../../runtime/auth/client.js';
import { bearerAuth, type BearerAuthOptions, protectedResourceMetadata } from '../../runtime/auth/resource.js';
import { createStatelessHttpHandler } from '../../runtime/transport/http/stateless/server.js';
import { clientOptions, startAuthorizationServer, stop } from '../runtime/auth/fixtures/oidc.js';
import { accessToken, dpopHolder, issuer, jwks, modernList } from './auth-kit.js';

/** A stateless endpoint at `/mcp` checked by `bearerAuth(options(resource))` (answers `{}`), plus what else `extra` serves. */
async function endpoint(
  options: (resource: string) => BearerAuthOptions,
  extra?: (url: string) => { status: number; body: string } | undefined,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const handler = createStatelessHttpHandler({
    supportedVersions: ['2026-07-28'],
    authorize: bearerAuth(options(url)),
  });
  await handler.transport.start({
    onMessage: (message) =>
      void handler.transport.send(
        { jsonrpc: '2.0', id: message.id as number, result: { tools: [] } },
        { relatedRequestId: message.id as number },
      ),
    onClose() {},
  });
  server.on('request', (req, res) => {
    const other = extra?.(req.url ?? '/');
    if (other) return void res.writeHead(other.status, { 'Content-Type': 'application/json' }).end(other.body);
    void handler(req, res);
  });
  return {
    url,
    close: async () => {
      await handler.close();
      await stop(server);
    },
  };
}

const post = (url: string, headers: Record<string, string>) =>
  fetch(url, { method: 'POST', headers: { ...modernList.headers, ...headers }, body: modernList.body });

test('a refusal under the DPoP scheme carries a DPoP challenge; no credentials: both schemes offered (RFC 9449 §7.1)', async () => {
  const holder = await dpopHolder();
  const both = await endpoint((resource) => ({
    resource,
    issuer,
    jwks,
    algorithms: ['ES256'],
    requiredScopes: ['mcp:use'],
  }));
  const withDpop = await endpoint((resource) => ({
    resource,
    issuer,
    jwks,
    algorithms: ['ES256'],
    requiredScopes: ['mcp:use'],
    dpop: {},
  }));
  const only = await endpoint((resource) => ({
    resource,
    issuer,
    jwks,
    algorithms: ['ES256'],
    dpop: { required: true },
  }));
  try {
    const meta = (url: string) => `resource_metadata="${new URL(url).origin}/.well-known/oauth-protected-resource/mcp"`;
    const u = withDpop.url;
    const bound = await accessToken(u, 'erin', holder.jkt);
    const unbound = await accessToken(u, 'erin');
    const foreign = await accessToken('https://elsewhere.test/mcp', 'erin', holder.jkt);
    const cases: Array<[string, string, Record<string, string>, number, string]> = [
      [
        'no credentials (both accepted)',
        u,
        {},
        401,
        `Bearer ${meta(u)}, scope="mcp:use", DPoP ${meta(u)}, scope="mcp:use", algs="ES256"`,
      ],
      [
        'DPoP: a token for another resource',
        u,
        { Authorization: `DPoP ${foreign}`, DPoP: await holder.proof('POST', u, foreign) },
        401,
        `DPoP ${meta(u)}, error="invalid_token", error_description="token was not issued for this resource", scope="mcp:use", algs="ES256"`,
      ],
      [
        'DPoP: a malformed token',
        u,
        { Authorization: 'DPoP not-a-jwt' },
        401,
        `DPoP ${meta(u)}, error="invalid_token", error_description="malformed token", scope="mcp:use", algs="ES256"`,
      ],
      [
        'DPoP: a token bound to no key',
        u,
        { Authorization: `DPoP ${unbound}`, DPoP: await holder.proof('POST', u, unbound) },
        401,
        `DPoP ${meta(u)}, error="invalid_token", error_description="token is not DPoP-bound (no cnf.jkt); send it as a Bearer token", scope="mcp:use", algs="ES256"`,
      ],
      [
        'DPoP: no proof',
        u,
        { Authorization: `DPoP ${bound}` },
        401,
        `DPoP ${meta(u)}, error="invalid_dpop_proof", error_description="DPoP proof missing", scope="mcp:use", algs="ES256"`,
      ],
      [
        'Bearer: a bad token (its own scheme answers)',
        u,
        { Authorization: 'Bearer not-a-jwt' },
        401,
        `Bearer ${meta(u)}, error="invalid_token", error_description="malformed token", scope="mcp:use"`,
      ],
      ['bearer only: no credentials', both.url, {}, 401, `Bearer ${meta(both.url)}, scope="mcp:use"`],
      ['DPoP required: no credentials', only.url, {}, 401, `DPoP ${meta(only.url)}, algs="ES256"`],
      [
        'DPoP required: a bearer token',
        only.url,
        { Authorization: `Bearer ${await accessToken(only.url, 'erin')}` },
        401,
        `DPoP ${meta(only.url)}, error="invalid_token", error_description="a DPoP-bound token is required", algs="ES256"`,
      ],
    ];
    for (const [name, url, headers, status, challenge] of cases) {
      const res = await post(url, headers);
      await res.text();
      assert.is(res.status, status, name);
      assert.is(res.headers.get('www-authenticate'), challenge, name);
    }
    // credentials of a scheme not accepted here: the message names the schemes that are
    for (const [url, schemes] of [
      [both.url, 'Bearer'],
      [u, 'Bearer or DPoP'],
      [only.url, 'DPoP'],
    ] as const) {
      const res = await post(url, { Authorization: 'Basic ZXJpbjpwdw==' });
      const body = await res.text();
      assert.is(res.status, 401, schemes);
      assert.ok(body.includes(`an access token is required (${schemes} scheme)`), `${schemes}: ${body}`);
    }
    // 403 under DPoP: the scope refusal in the DPoP scheme too
    const scoped = await endpoint((resource) => ({
      resource,
      issuer,
      jwks,
      algorithms: ['ES256'],
      requiredScopes: ['mcp:admin'],
      dpop: {},
    }));
    try {
      const narrowThere = await accessToken(scoped.url, 'erin', holder.jkt);
      const res = await post(scoped.url, {
        Authorization: `DPoP ${narrowThere}`,
        DPoP: await holder.proof('POST', scoped.url, narrowThere),
      });
      await res.text();
      assert.is(res.status, 403, 'insufficient scope');
      assert.is(
        res.headers.get('www-authenticate'),
        `DPoP ${meta(scoped.url)}, error="insufficient_scope", scope="mcp:use mcp:admin", error_description="requires scope mcp:admin", algs="ES256"`,
      );
    } finally {
      await scoped.close();
    }
  } finally {
    await Promise.all([both.close(), withDpop.close(), only.close()]);
  }
});

test('oauthFetch with DPoP: metadata found through the DPoP challenge, use_dpop_nonce answered, a refused token authorized again', async () => {
  const as = await startAuthorizationServer();
  const prmPath = '/meta/prm';
  let prm = '';
  const mcp = await endpoint(
    (resource) => {
      prm = JSON.stringify(
        protectedResourceMetadata({ resource, authorizationServers: [as.issuer], scopesSupported: ['mcp'] }),
      );
      return {
        resource,
        issuer: as.issuer,
        resourceMetadataUrl: `${new URL(resource).origin}${prmPath}`,
        dpop: { required: true, nonce: true },
      };
    },
    // the metadata only where the challenge says: not at the well-known URLs
    (path) =>
      path === prmPath
        ? { status: 200, body: prm }
        : path.startsWith('/.well-known/')
          ? { status: 404, body: '{}' }
          : undefined,
  );
  try {
    const store = new MemoryTokenStore();
    // the MCP server's answers as the client saw them: status and challenge
    const log: Array<{ status: number; challenge: string }> = [];
    const seen: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (url === mcp.url) log.push({ status: res.status, challenge: res.headers.get('www-authenticate') ?? '' });
      return res;
    };
    const auth = oauthFetch({ ...clientOptions, dpop: true, store, fetch: seen });
    const first = await auth.fetch(mcp.url, { method: 'POST', headers: modernList.headers, body: modernList.body });
    assert.is(first.status, 200, await first.clone().text());
    assert.equal((await first.json()).result, { tools: [] });
    const tokens = (await auth.tokens())!;
    assert.is(tokens.token_type.toLowerCase(), 'dpop');
    assert.ok((decodeJwt(tokens.access_token).cnf as { jkt?: string } | undefined)?.jkt, 'a DPoP-bound token');
    const challenges = log.filter((l) => l.status === 401).map((l) => l.challenge.replace(/ error_description.*$/, ''));
    assert.equal(
      challenges,
      [
        `DPoP resource_metadata="${new URL(mcp.url).origin}${prmPath}", algs="${'RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 ES512 EdDSA Ed25519'}"`,
        `DPoP resource_metadata="${new URL(mcp.url).origin}${prmPath}", error="use_dpop_nonce",`,
      ],
      'asked for a token, then for a nonce: nothing else refused',
    );

    // the token refused (revoked, say) and no refresh token: a new authorization, then served
    const issuerOf = decodeJwt(tokens.access_token).iss!;
    const [h, , s] = tokens.access_token.split('.');
    const revoked = `${h}.${Buffer.from(JSON.stringify({ ...decodeJwt(tokens.access_token), jti: 'x' })).toString('base64url')}.${s}`;
    await store.setTokens(issuerOf, mcp.url, { ...tokens, access_token: revoked, refresh_token: undefined });
    const before = log.length;
    const again = await auth.fetch(mcp.url, { method: 'POST', headers: modernList.headers, body: modernList.body });
    assert.is(again.status, 200, await again.clone().text());
    await again.text();
    const renewed = (await auth.tokens())!;
    assert.is.not(renewed.access_token, revoked);
    assert.equal(
      log.slice(before).map((l) => `${l.status} ${/error="(\w+)"/.exec(l.challenge)?.[1] ?? ''}`),
      ['401 invalid_token', '200 '],
      'one refusal of the token, then served with the new one',
    );
    assert.is(as.grants.filter((g) => g === 'authorization_code').length, 2, 'authorized twice');
  } finally {
    await mcp.close();
    await as.close();
  }
});

test.run();
