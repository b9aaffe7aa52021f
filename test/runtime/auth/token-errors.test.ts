/**
 * What a failed token request tells the caller of `oauthFetch` (RFC 6749 §5.2): its message
 * names the HTTP status and the server's `error` (`error_description`), not only its `cause`:
 * oidc-provider refusing a client's secret (401 `invalid_client`, with a `Basic` challenge), a
 * stand-in refusing a jwt-bearer assertion (400 `invalid_grant`), one answering 500 with no
 * JSON. A token endpoint that never answers fails after `tokenTimeoutMs` (default 30 s), and the
 * caller's abort ends the token request at once; so does a metadata fetch of the discovery.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthorizationError, oauthFetch, type OAuthClientOptions } from '../../../runtime/auth/client.js';
import { startAuthorizationServer } from './fixtures/oidc.js';

const listen = async (s: Server) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};
const stop = (s: Server) =>
  new Promise<void>((r) => {
    s.closeAllConnections();
    s.close(() => r());
  });

/** What `p` rejects with; an Error saying so when it has not settled within 15 s (no bound at all). */
async function failure(p: Promise<unknown>): Promise<Error> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise((r) => (timer = setTimeout(() => r(new Error('still pending after 15 s')), 15_000)));
  const e = await Promise.race([
    p.then(
      () => undefined,
      (x: unknown) => x,
    ),
    hung,
  ]);
  clearTimeout(timer);
  if (!(e instanceof Error)) throw new Error('expected a failure');
  return e;
}

/** An MCP server stand-in whose every request is 401, its resource metadata naming `issuer`. */
async function protectedServer(issuer: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-protected-resource/mcp')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ resource: url, authorization_servers: [issuer] }));
    res.writeHead(401, { 'WWW-Authenticate': 'Bearer' }).end();
  });
  const url = `${await listen(server)}/mcp`;
  return { url, server };
}

/** An authorization server stand-in whose token endpoint runs `token`. */
async function standIn(
  token: (res: import('node:http').ServerResponse) => void,
): Promise<{ issuer: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-authorization-server')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ issuer, token_endpoint: `${issuer}/token`, response_types_supported: ['code'] }));
    if (req.url === '/token') return token(res);
    res.writeHead(404).end();
  });
  const issuer = await listen(server);
  return { issuer, server };
}

const machine: OAuthClientOptions = {
  grant: 'client_credentials',
  credentials: { client_id: 'machine', client_secret: 's' },
};

test('oidc-provider refuses the secret: the message names 401 invalid_client and its description', async () => {
  const as = await startAuthorizationServer();
  const mcp = await protectedServer(as.issuer);
  try {
    const e = await failure(oauthFetch(machine).fetch(mcp.url, { method: 'POST', body: '{}' }));
    assert.instance(e, AuthorizationError);
    assert.is(
      e.message,
      `token request to ${as.issuer}/token failed: HTTP 401 invalid_client (client authentication failed)`,
    );
  } finally {
    await stop(mcp.server);
    await as.close();
  }
});

test('400 invalid_grant with a description, and 500 with no JSON: both name the status', async () => {
  let answer = (res: import('node:http').ServerResponse) =>
    void res
      .writeHead(400, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ error: 'invalid_grant', error_description: 'assertion expired' }));
  const as = await standIn((res) => answer(res));
  const mcp = await protectedServer(as.issuer);
  try {
    const jwt = await failure(
      oauthFetch({ ...machine, grant: 'jwt-bearer', assertion: async () => 'a.b.c' }).fetch(mcp.url, {
        method: 'POST',
        body: '{}',
      }),
    );
    assert.instance(jwt, AuthorizationError);
    assert.is(jwt.message, `token request to ${as.issuer}/token failed: HTTP 400 invalid_grant (assertion expired)`);
    answer = (res) => void res.writeHead(500, { 'Content-Type': 'text/plain' }).end('down');
    const down = await failure(oauthFetch(machine).fetch(mcp.url, { method: 'POST', body: '{}' }));
    assert.instance(down, AuthorizationError);
    assert.is(down.message, `token request to ${as.issuer}/token failed: HTTP 500`);
  } finally {
    await stop(mcp.server);
    await stop(as.server);
  }
});

test('a token endpoint that never answers: tokenTimeoutMs ends the request; the caller abort ends it sooner', async () => {
  let asked = 0;
  const as = await standIn(() => void asked++);
  const mcp = await protectedServer(as.issuer);
  try {
    const started = Date.now();
    const e = await failure(
      oauthFetch({ ...machine, tokenTimeoutMs: 300 }).fetch(mcp.url, { method: 'POST', body: '{}' }),
    );
    assert.instance(e, AuthorizationError);
    assert.is(e.message, `token request to ${as.issuer}/token failed: no answer within 300 ms`);
    assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
    // the default bound is far off: the caller's abort is what ends this one
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 300);
    const aborted = await failure(
      oauthFetch(machine).fetch(mcp.url, { method: 'POST', body: '{}', signal: caller.signal }),
    );
    assert.is(aborted.name, 'AbortError', aborted.message);
    assert.is(asked, 2);
  } finally {
    await stop(mcp.server);
    await stop(as.server);
  }
});

test('a metadata fetch that never answers (protected resource, authorization server): tokenTimeoutMs ends it', async () => {
  // a real server that takes every request and never answers
  const held: import('node:http').ServerResponse[] = [];
  const hung = createServer((_req, res) => void held.push(res));
  const hungUrl = await listen(hung);
  // an MCP server whose challenge names resource metadata at the hung server
  const mcpPrm = createServer((_req, res) =>
    res
      .writeHead(401, {
        'WWW-Authenticate': `Bearer resource_metadata="${hungUrl}/.well-known/oauth-protected-resource"`,
      })
      .end(),
  );
  const prmUrl = `${await listen(mcpPrm)}/mcp`;
  // an MCP server whose resource metadata names the hung server as its authorization server
  const mcpAs = await protectedServer(hungUrl);
  try {
    const got: Record<string, string> = {};
    for (const url of [prmUrl, mcpAs.url]) {
      const started = Date.now();
      const e = await failure(
        oauthFetch({ ...machine, tokenTimeoutMs: 300 }).fetch(url, { method: 'POST', body: '{}' }),
      );
      assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
      got[url] = `${e.name}: ${e.message}`;
    }
    const words = (url: string) => `AuthorizationError: metadata discovery for ${url} failed: no answer within 300 ms`;
    assert.equal(got, { [prmUrl]: words(prmUrl), [mcpAs.url]: words(mcpAs.url) });
    assert.is(held.length, 2);
  } finally {
    for (const res of held) res.end();
    await stop(mcpAs.server);
    await stop(mcpPrm);
    await stop(hung);
  }
});

test('tokenTimeoutMs that no timer can wait is a TypeError when the fetch is made', () => {
  const got: Record<string, string> = {};
  for (const v of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, '1000' as unknown as number]) {
    try {
      oauthFetch({ ...machine, tokenTimeoutMs: v });
      got[String(v)] = 'accepted';
    } catch (e) {
      got[String(v)] = `${(e as Error).name}: ${(e as Error).message}`;
    }
  }
  const words = (v: unknown) =>
    `TypeError: oauthFetch: tokenTimeoutMs must be an integer from 1 to 2147483647 (ms), got ${v}`;
  assert.equal(got, {
    '0': words(0),
    '-1': words(-1),
    '1.5': words(1.5),
    NaN: words(Number.NaN),
    Infinity: words(Number.POSITIVE_INFINITY),
    '2147483648': words(2 ** 31),
    '1000': words('1000'),
  });
  // the bounds themselves are accepted
  oauthFetch({ ...machine, tokenTimeoutMs: 1 });
  oauthFetch({ ...machine, tokenTimeoutMs: 2 ** 31 - 1 });
});

test.run();
