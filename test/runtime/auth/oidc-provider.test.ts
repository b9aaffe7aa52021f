/**
 * End to end against a real authorization server: oidc-provider on 127.0.0.1 with dynamic
 * registration, PKCE (required), resource indicators (JWT access tokens whose audience is the
 * resource) and refresh tokens. The login and consent are done by the test's user agent
 * through the provider's interaction endpoints (no devInteractions): it follows the redirects
 * with a cookie jar and finishes each interaction with `interactionFinished`.
 *
 * Proves: our client ↔ `mcpgen serve --auth` (2025-11-25 sessions, and the 2026-07-28
 * dual-era endpoint with both of our clients) over real HTTP: 401 → resource and server
 * discovery → registration → code + PKCE + resource → token → the call succeeds; the token's
 * audience is the resource; an expiring token is refreshed (a refresh_token grant at the
 * provider, a new access token); the server refuses a token issued for the other server.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import * as v2026 from '../../../generated/2026-07-28/index.js';
import { oauthFetch } from '../../../runtime/auth/client.js';
import { clientOptions, startAuthorizationServer } from './fixtures/oidc.js';

import { HttpClientTransport } from '../../../runtime/transport/http/session/node-client.js';
import { StatelessHttpClientTransport } from '../../../runtime/transport/http/stateless/node-client.js';
import { loadRevision, olderHandshakeTables } from '../../../cli/revisions.js';
import { serveHttp } from '../../../cli/serve/http.js';
import { serveStatelessHttp } from '../../../cli/serve/stateless.js';
import { main } from '../../../cli/main.js';

const { issuer, grants, close: closeAuthorizationServer } = await startAuthorizationServer();

// ---- the protected MCP servers --------------------------------------------------------------
const m2025 = { ...(await loadRevision('2025-11-25')), fallbackTables: await olderHandshakeTables('2025-11-25') };
const served2025 = await serveHttp(m2025 as never, { port: 0, host: '127.0.0.1', auth: { issuer, scopes: ['mcp'] } });
const served2026 = await serveStatelessHttp((await loadRevision('2026-07-28')) as never, m2025 as never, {
  port: 0,
  host: '127.0.0.1',
  auth: { issuer, scopes: ['mcp'] },
});

test('2025-11-25: our client authorizes at oidc-provider (registration, PKCE, resource) and calls our protected server; an expiring token is refreshed', async () => {
  // refresh as soon as less than 59.5 s of the 60 s lifetime are left
  const auth = oauthFetch({ ...clientOptions, refreshSkewMs: 59_500 });
  const client = new v2025.Client({ clientInfo: { name: 'e2e', version: '1' } });
  await client.connect(new HttpClientTransport({ url: served2025.url, fetch: auth.fetch }));
  const tools = await client.listTools();
  assert.ok(tools.tools.length > 0);
  const first = await auth.tokens();
  assert.ok(first?.refresh_token, 'a refresh token was issued');
  const claims = decodeJwt(first!.access_token);
  assert.is(claims.aud, served2025.url, 'the token is bound to the resource (RFC 8707)');
  assert.is(claims.iss, issuer);
  assert.is(claims.sub, 'alice');
  assert.equal(grants, ['authorization_code']);
  await new Promise((r) => setTimeout(r, 700));
  await client.listTools();
  const second = await auth.tokens();
  assert.equal(
    grants,
    ['authorization_code', 'refresh_token'],
    'the expiring token was refreshed, not authorized anew',
  );
  assert.is.not(second!.access_token, first!.access_token);
  assert.is(decodeJwt(second!.access_token).aud, served2025.url);
  await client.close();
});

test('2026-07-28: our stateless client, and our 2025 client on the dual-era endpoint, authorize and call; a token of the other server is refused', async () => {
  grants.length = 0;
  const auth = oauthFetch(clientOptions);
  const client = new v2026.Client({ clientInfo: { name: 'e2e', version: '1' }, fallbackTables: [v2025.table] });
  await client.connect(new StatelessHttpClientTransport({ url: served2026.url, fetch: auth.fetch }));
  const tools = await client.listTools({});
  assert.ok(tools.tools.length > 0);
  const token = (await auth.tokens())!.access_token;
  assert.is(decodeJwt(token).aud, served2026.url);
  await client.close();
  const legacy = new v2025.Client({ clientInfo: { name: 'e2e', version: '1' } });
  await legacy.connect(new HttpClientTransport({ url: served2026.url, fetch: auth.fetch }));
  assert.ok((await legacy.listTools()).tools.length > 0);
  await legacy.close();
  assert.equal(grants, ['authorization_code'], 'one authorization served both clients');
  // the 2026 server's token at the 2025 server: another audience
  const res = await fetch(served2025.url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: '{}',
  });
  assert.is(res.status, 401);
  assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token".*not issued for this resource/);
  await res.text();
});

test('DPoP: our client gets a DPoP-bound token from oidc-provider and proves its key on every request to our server', async () => {
  grants.length = 0;
  const auth = oauthFetch({ ...clientOptions, dpop: true });
  const client = new v2025.Client({ clientInfo: { name: 'e2e', version: '1' } });
  await client.connect(new HttpClientTransport({ url: served2025.url, fetch: auth.fetch }));
  assert.ok((await client.listTools()).tools.length > 0);
  const tokens = (await auth.tokens())!;
  assert.is(tokens.token_type.toLowerCase(), 'dpop');
  const jkt = (decodeJwt(tokens.access_token).cnf as { jkt?: string } | undefined)?.jkt;
  assert.ok(jkt, 'the token is bound to the client key (cnf.jkt)');
  await client.close();
  // the same token without a proof is refused
  const res = await fetch(served2025.url, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${tokens.access_token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: '{}',
  });
  assert.is(res.status, 401);
  await res.text();
});

test('mcpgen call --url … --auth: the authorization URL on stderr, the redirect received on 127.0.0.1, the result on stdout', async () => {
  grants.length = 0;
  const out: string[] = [];
  const err: string[] = [];
  let login: Promise<void> | undefined;
  const code = await main(['call', '--url', served2025.url, 'tools/list', '--rev', '2025-11-25', '--auth'], {
    out: (l) => out.push(l),
    err: (l) => {
      err.push(l);
      const m = /to authorize, open (\S+)/.exec(l);
      if (!m) return;
      // the user: logs in at the provider; the browser then lands on the CLI's loopback redirect
      const url = new URL(m[1]);
      const redirect = url.searchParams.get('redirect_uri')!;
      login = clientOptions.userAgent(url, redirect).then(async (back) => {
        const res = await fetch(back as URL);
        assert.is(res.status, 200);
        await res.text();
      });
    },
  });
  await login;
  assert.is(code, 0, err.join('\n'));
  assert.match(err.join('\n'), /to authorize, open http:\/\/127\.0\.0\.1:\d+\/auth\?/);
  assert.match(err.join('\n'), /redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Fcallback/);
  assert.ok((JSON.parse(out.join('\n')) as { tools: unknown[] }).tools.length > 0);
  assert.equal(grants, ['authorization_code']);
});

test.after(async () => {
  await served2025.close();
  await served2026.close();
  await closeAuthorizationServer();
});

test.run();
