/**
 * Issue 44, finding 8: the refusals the resource-server check promises (RFC 6750 §3.1
 * `invalid_request`, 400): an access token in the URI query string (MCP basic/authorization,
 * "Access Token Usage": never there), one in both the query and the `Authorization` header, and
 * repeated `Authorization` headers (node:http kept the first and dropped the rest, so a second
 * credential went unseen). On the session, the stateless and the dual-era endpoint, over
 * node:http (raw bytes on a socket, so the headers really repeat) and the fetch form; none of
 * them reaches a handler.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { bearerAuth } from '../../runtime/auth/resource.js';
import { createDualEraHttpHandler } from '../../runtime/stateless/dual-era.js';
import { createStreamableHttpHandler } from '../../runtime/transport/http/session/server.js';
import { createStatelessHttpHandler } from '../../runtime/transport/http/stateless/server.js';
import { accessToken, issuer, jwks, legacyInitialize, modernList } from './auth-kit.js';

const http = createServer();
await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
const port = (http.address() as AddressInfo).port;
const resource = `http://127.0.0.1:${port}/mcp`;
const authorize = bearerAuth({ resource, issuer, jwks });

let reached = 0;
const modern = createStatelessHttpHandler({ supportedVersions: ['2026-07-28'], authorize });
await modern.transport.start({
  onMessage: (m) => {
    reached++;
    void modern.transport.send(
      { jsonrpc: '2.0', id: m.id as number, result: { tools: [] } },
      { relatedRequestId: m.id as number },
    );
  },
  onClose() {},
});
const legacy = createStreamableHttpHandler({
  supportedProtocolVersions: ['2025-11-25'],
  authorize,
  onSession: async (t) => {
    await t.start({
      onMessage: (m) => {
        reached++;
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
const endpoints = { stateless: modern, session: legacy, 'dual-era': dual } as const;
let current: keyof typeof endpoints = 'stateless';
http.on('request', (req, res) => void endpoints[current](req, res));

test.after(async () => {
  await dual.close();
  http.closeAllConnections();
  await new Promise<void>((r) => (http as Server).close(() => r()));
});

const token = await accessToken(resource, 'erin');
const requestFor = (name: keyof typeof endpoints) => (name === 'session' ? legacyInitialize : modernList);

/** One request as raw bytes (header lines exactly as given); the status and the challenge. */
function raw(path: string, headerLines: string[], body: string): Promise<{ status: number; challenge: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      got += d;
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = got.slice(0, end);
      socket.destroy();
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]),
        challenge: /^www-authenticate: *(.*)$/im.exec(head)?.[1] ?? '',
      });
    });
    socket.on('error', reject);
    socket.write(
      [
        `POST ${path} HTTP/1.1`,
        `Host: 127.0.0.1:${port}`,
        ...headerLines,
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
}

for (const name of Object.keys(endpoints) as (keyof typeof endpoints)[]) {
  test(`${name} (node:http): a token in the query, in the query and the header, or two Authorization headers → 400 invalid_request; one header passes`, async () => {
    current = name;
    const request = requestFor(name);
    const headers = Object.entries(request.headers).map(([k, v]) => `${k}: ${v}`);
    reached = 0;
    const cases: Array<[string, string, string[]]> = [
      ['token in the query', `/mcp?access_token=${token}`, headers],
      [
        'token in the query and the header',
        `/mcp?access_token=${token}`,
        [...headers, `Authorization: Bearer ${token}`],
      ],
      [
        'two Authorization headers',
        '/mcp',
        [...headers, `Authorization: Bearer ${token}`, `Authorization: Bearer ${token}`],
      ],
      [
        'two different Authorization headers',
        '/mcp',
        [...headers, `Authorization: Bearer ${token}`, 'Authorization: Basic eDp5'],
      ],
    ];
    for (const [what, path, lines] of cases) {
      const r = await raw(path, lines, request.body);
      assert.is(r.status, 400, what);
      assert.match(r.challenge, /error="invalid_request"/, what);
    }
    assert.is(reached, 0, 'no refused request reached a handler');
    const ok = await raw('/mcp?x=1', [...headers, `Authorization: Bearer ${token}`], request.body);
    assert.is(ok.status, 200);
    assert.is(reached, 1);
  });

  test(`${name} (fetch): the same refusals`, async () => {
    const request = requestFor(name);
    reached = 0;
    const send = (url: string, authorization: string[]) => {
      const headers = new Headers(request.headers);
      for (const a of authorization) headers.append('Authorization', a);
      return endpoints[name].fetch(new Request(url, { method: 'POST', headers, body: request.body }));
    };
    for (const [url, authorization] of [
      [`${resource}?access_token=${token}`, []],
      [`${resource}?access_token=${token}`, [`Bearer ${token}`]],
      [resource, [`Bearer ${token}`, `Bearer ${token}`]],
    ] as const) {
      const res = await send(url, [...authorization]);
      assert.is(res.status, 400, url);
      assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_request"/);
      await res.text();
    }
    assert.is(reached, 0);
  });
}

test.run();
