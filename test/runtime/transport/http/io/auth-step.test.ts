/**
 * A failed authorization step of `oauthFetch` (runtime/auth/client.ts), given as the HTTP client
 * transports' `fetch`, fails the MCP request with that step's own error, once: an
 * AuthorizationError naming the token endpoint when it answered with no token, an AuthFetchError
 * naming it when nothing listens there. The MCP server only refused the request (401): it was not
 * "Connection lost before the response", nor a request retried as never sent. Both eras (session
 * and stateless transports), against real servers on 127.0.0.1.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as draft from '../../../../../generated/draft/index.js';
import * as v2025 from '../../../../../generated/2025-11-25/index.js';
import { AuthorizationError, oauthFetch } from '../../../../../runtime/auth/client.js';
import { AuthFetchError } from '../../../../../runtime/auth/discovery.js';
import { ConnectionClosedError } from '../../../../../runtime/jsonrpc/errors.js';
import { HttpClientTransport } from '../../../../../runtime/transport/http/session/fetch-client.js';
import { StatelessHttpClientTransport } from '../../../../../runtime/transport/http/stateless/fetch-client.js';
import { freePort } from '../../../../scale/support.js';

const listen = async (s: Server) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};
const stop = (s: Server) => {
  s.closeAllConnections();
  return new Promise<void>((r) => s.close(() => r()));
};

/** An authorization server whose token endpoint (`token`) answers 500 with HTML, and an MCP server refusing every POST with 401. */
async function servers() {
  const seen = { tokens: 0, posts: 0 };
  const as = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-authorization-server')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ issuer, token_endpoint: token, response_types_supported: ['code'] }));
    if (req.url === '/token') {
      seen.tokens++;
      return void res.writeHead(500, { 'Content-Type': 'text/html' }).end('<h1>oops</h1>');
    }
    res.writeHead(404).end();
  });
  const issuer = await listen(as);
  let token = `${issuer}/token`;
  const mcp = createServer((req, res) => {
    if (req.url === '/.well-known/oauth-protected-resource/mcp')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [issuer] }));
    if (req.method === 'POST') seen.posts++;
    req.resume();
    res.writeHead(401, { 'WWW-Authenticate': 'Bearer' }).end();
  });
  const origin = await listen(mcp);
  return {
    url: `${origin}/mcp`,
    token: () => token,
    setToken: (t: string) => (token = t),
    seen,
    close: async () => {
      await stop(mcp);
      await stop(as);
    },
  };
}

async function connectFailure(era: 'session' | 'stateless', url: string): Promise<Error> {
  const { fetch } = oauthFetch({
    grant: 'client_credentials',
    credentials: { client_id: 'machine', client_secret: 's' },
  });
  const info = { clientInfo: { name: 'c', version: '1' } };
  const client = era === 'session' ? new v2025.Client(info) : new draft.Client(info);
  const transport =
    era === 'session' ? new HttpClientTransport({ url, fetch }) : new StatelessHttpClientTransport({ url, fetch });
  try {
    await client.connect(transport);
  } catch (e) {
    return e as Error;
  } finally {
    await client.close().catch(() => {});
  }
  throw new Error('connect resolved');
}

for (const era of ['session', 'stateless'] as const) {
  test(`${era}: the token endpoint answers with no token → AuthorizationError naming it, asked once`, async () => {
    const s = await servers();
    try {
      const e = await connectFailure(era, s.url);
      assert.instance(e, AuthorizationError, `${e.name}: ${e.message}`);
      assert.not.instance(e, ConnectionClosedError);
      assert.match(e.message, `token request to ${s.token()} failed`);
      assert.is(s.seen.tokens, 1, 'token requests');
      assert.is(s.seen.posts, 1, 'MCP POSTs');
    } finally {
      await s.close();
    }
  });

  test(`${era}: nothing listens at the token endpoint → AuthFetchError naming it, the MCP request not retried`, async () => {
    const s = await servers();
    s.setToken(`http://127.0.0.1:${await freePort()}/token`);
    try {
      const e = await connectFailure(era, s.url);
      assert.instance(e, AuthFetchError, `${e.name}: ${e.message}`);
      assert.match(e.message, `POST ${s.token()} failed: `);
      assert.match(e.message, /ECONNREFUSED/);
      assert.is(s.seen.posts, 1, 'MCP POSTs');
    } finally {
      await s.close();
    }
  });
}

test.run();
