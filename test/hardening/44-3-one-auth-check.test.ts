/**
 * Issue 44, finding 3: one token check per request at every entry point. The dual-era front
 * checks the token before it reads the body that decides the era; the handler it then hands the
 * request to took that verdict instead of checking again, else a DPoP proof (accepted once, RFC
 * 9449 §11.1) was refused as replayed on every request of a dual-era endpoint. Both eras, the
 * `node:http` and the fetch form; the stateless and the session endpoint on their own also
 * check once.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerAuth } from '../../runtime/auth/resource.js';
import type { Authorizer } from '../../runtime/auth/types.js';
import { createDualEraHttpHandler } from '../../runtime/stateless/dual-era.js';
import { createStreamableHttpHandler } from '../../runtime/transport/http/session/server.js';
import { createStatelessHttpHandler } from '../../runtime/transport/http/stateless/server.js';
import { accessToken, dpopHolder, issuer, jwks, legacyInitialize, modernList } from './auth-kit.js';

const http = createServer();
await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
const resource = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

/** Every check the endpoints make, by request. */
let checks = 0;
const check = bearerAuth({ resource, issuer, jwks, dpop: {} });
const counted: Authorizer = (request) => {
  checks++;
  return check(request);
};

const principals: string[] = [];
const modern = createStatelessHttpHandler({ supportedVersions: ['2026-07-28'], authorize: counted });
await modern.transport.start({
  onMessage: (m, info) => {
    principals.push(`modern:${info?.auth?.subject}`);
    void modern.transport.send(
      { jsonrpc: '2.0', id: m.id as number, result: { tools: [] } },
      { relatedRequestId: m.id as number },
    );
  },
  onClose() {},
});
const legacy = createStreamableHttpHandler({
  supportedProtocolVersions: ['2025-11-25'],
  authorize: counted,
  onSession: async (t) => {
    await t.start({
      onMessage: (m, info) => {
        principals.push(`legacy:${info?.auth?.subject}`);
        if (m.id !== undefined)
          void t.send(
            {
              jsonrpc: '2.0',
              id: m.id as number,
              result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 't', version: '1' } },
            },
            { relatedRequestId: m.id as number },
          );
      },
      onClose() {},
    });
  },
});
const dual = createDualEraHttpHandler({ modern, legacy });
http.on('request', (req, res) => void dual(req, res));

test.after(async () => {
  await dual.close();
  http.closeAllConnections();
  await new Promise<void>((r) => (http as Server).close(() => r()));
});

const holder = await dpopHolder();
const bound = await accessToken(resource, 'dave', holder.jkt);

for (const form of ['node:http', 'fetch'] as const) {
  test(`dual-era (${form}): a DPoP-bound request of either era is checked once and reaches its handler with its principal`, async () => {
    for (const [era, request] of [
      ['modern', modernList],
      ['legacy', legacyInitialize],
    ] as const) {
      const proof = await holder.proof('POST', resource, bound);
      const init = {
        method: 'POST',
        headers: { ...request.headers, Authorization: `DPoP ${bound}`, DPoP: proof },
        body: request.body,
      };
      checks = 0;
      principals.length = 0;
      const res = form === 'fetch' ? await dual.fetch(new Request(resource, init)) : await fetch(resource, init);
      const text = await res.text();
      assert.is(res.status, 200, `${era}: ${text}`);
      assert.is(checks, 1, `${era}: one check`);
      assert.equal(principals, [`${era}:dave`]);
      // the same proof once more: refused as replayed (the one check still remembers it)
      const again = form === 'fetch' ? await dual.fetch(new Request(resource, init)) : await fetch(resource, init);
      assert.is(again.status, 401, era);
      assert.match(again.headers.get('www-authenticate') ?? '', /replayed/);
      await again.text();
      assert.equal(principals, [`${era}:dave`], 'the replay reached no handler');
    }
  });
}

test('a verdict left under another check is not taken: a handler whose own check differs checks again', async () => {
  const { AUTHORIZED } = await import('../../runtime/transport/http/io/types.js');
  const request = new Request(resource, {
    method: 'POST',
    headers: { ...modernList.headers, Authorization: 'Bearer nonsense' },
    body: modernList.body,
  }) as Request & Record<symbol, unknown>;
  // a verdict made by some other function: the handler's own check runs and refuses the token
  request[AUTHORIZED] = {
    authorize: async () => ({ auth: { token: 'x', subject: 'mallory', scopes: [], claims: {} } }),
    auth: { token: 'x', subject: 'mallory', scopes: [], claims: {} },
  };
  checks = 0;
  principals.length = 0;
  const res = await modern.fetch(request);
  assert.is(res.status, 401);
  await res.text();
  assert.is(checks, 1);
  assert.equal(principals, []);
});

test.run();
