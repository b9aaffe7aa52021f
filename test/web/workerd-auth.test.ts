/**
 * Issue 44, finding 5: a protected worker. examples/worker.ts with `MCP_AUTH_ISSUER` imports
 * `@mcpgen/runtime/auth`'s web entry (bearerAuth, DPoP, metadata); bundled with the guide's
 * esbuild command (./worker-bundle.ts: `--platform=browser --conditions=workerd,worker,browser`)
 * it has no `node:` import (before, the auth index loaded the loopback redirect, which imports
 * node:http, and the bundle failed) and runs in workerd (miniflare, no nodejs_compat). Over real
 * HTTP: a request without a token gets 401 naming the metadata, which the worker serves; a
 * bearer token and a DPoP-bound token with a fresh proof reach the tools; a replayed proof and a
 * token for another resource do not.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Miniflare } from 'miniflare';
import { Client } from '../../generated/2026-07-28/index.js';
import { StatelessHttpClientTransport } from '../../runtime/transport/http/stateless/node-client.js';
import { accessToken, dpopHolder, issuer, jwks, modernList } from '../hardening/auth-kit.js';
import { workerBundle } from './worker-bundle.js';

const resource = 'https://mcp.example.test/mcp';
let mf: Miniflare | undefined;
let url = '';

test.before(async () => {
  const script = await workerBundle();
  assert.not.match(script, /from\s*["']node:/, 'the worker bundle imports no node: module');
  mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2025-09-01',
    host: '127.0.0.1',
    port: 0,
    bindings: {
      MCP_REQUEST_STATE_SECRET: 'a worker secret of at least 32 bytes, shared',
      MCP_AUTH_ISSUER: issuer,
      MCP_AUTH_RESOURCE: resource,
      MCP_AUTH_JWKS: JSON.stringify(jwks),
    },
  });
  url = new URL('/mcp', await mf.ready).href;
});

test.after(async () => {
  await mf?.dispose();
});

test('no token: 401 with the metadata URL, which the worker serves', async () => {
  const res = await fetch(url, { method: 'POST', headers: modernList.headers, body: modernList.body });
  assert.is(res.status, 401);
  await res.text();
  assert.match(
    res.headers.get('www-authenticate') ?? '',
    'resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp"',
  );
  const meta = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url));
  assert.is(meta.status, 200);
  const body = (await meta.json()) as { resource: string; authorization_servers: string[] };
  assert.is(body.resource, resource);
  assert.equal(body.authorization_servers, [issuer]);
});

test('a bearer token for the worker reaches its tools; one for another resource does not', async () => {
  const token = await accessToken(resource, 'heidi');
  const client = new Client({ clientInfo: { name: 'node-client', version: '1.0.0' } });
  await client.connect(
    new StatelessHttpClientTransport({
      url,
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('Authorization', `Bearer ${token}`);
        return fetch(input, { ...init, headers });
      },
    }),
  );
  const r = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
  assert.equal(r.structuredContent, { sum: 42 });
  await client.close();
  const other = await accessToken('https://elsewhere.test/mcp', 'heidi');
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...modernList.headers, Authorization: `Bearer ${other}` },
    body: modernList.body,
  });
  assert.is(res.status, 401);
  assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
  await res.text();
});

test('DPoP in workerd: a bound token with a fresh proof passes (WebCrypto); the same proof again is refused', async () => {
  const holder = await dpopHolder();
  const token = await accessToken(resource, 'ivan', holder.jkt);
  const proof = await holder.proof('POST', resource, token);
  const send = () =>
    fetch(url, {
      method: 'POST',
      headers: { ...modernList.headers, Authorization: `DPoP ${token}`, DPoP: proof },
      body: modernList.body,
    });
  const ok = await send();
  assert.is(ok.status, 200, await ok.clone().text());
  const listed = (await ok.text()).includes('"add"');
  assert.ok(listed, 'tools/list answered');
  const again = await send();
  assert.is(again.status, 401);
  assert.match(again.headers.get('www-authenticate') ?? '', /replayed/);
  await again.text();
});

test.run();
