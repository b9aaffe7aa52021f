/**
 * Issue 44, auth trials: a JWKS or issuer-metadata fetch of the resource server that timed out
 * reached `onError` (and `serve`'s log) as "The operation was aborted due to timeout", with no
 * URL; a JWKS answering 500, not JSON, or stalling in its body refused the token itself (401
 * "token invalid": jose's parse error taken for the token's fault). Now every fetch the check
 * makes fails as an error naming the method, the URL and, for a timeout, the bound (5 s); each
 * is a 503 (the check could not be made), never a refusal of the token. Real sockets: an issuer
 * that accepts connections and never answers, JWKS servers that answer 500, HTML, or a head and
 * half a body. `serve --auth` prints the URL with its credentials redacted.
 */
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadRevision, olderHandshakeTables } from '../../cli/revisions.js';
import { serveHttp } from '../../cli/serve/http.js';
import { bearerAuth } from '../../runtime/auth/resource.js';
import type { AuthVerdict } from '../../runtime/auth/types.js';
import { accessToken, issuer } from './auth-kit.js';

const resource = 'http://127.0.0.1:1/mcp';
const held: Socket[] = [];
/** Accepts connections and never answers. */
const silent = createTcpServer((socket) => void held.push(socket));
/** /500: 500; /html: 200 with HTML; /half: a 200 head and half a JSON body, never ended. */
const jwksServer: Server = createServer((req, res) => {
  if (req.url === '/500') return void res.writeHead(500).end('down');
  if (req.url === '/html') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html></html>');
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.write('{"keys":[');
});
const listen = async (s: { listen(port: number, host: string, cb: () => void): unknown; address(): unknown }) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
};
const silentAt = await listen(silent);
const jwksAt = await listen(jwksServer);

test.after(async () => {
  for (const socket of held) socket.destroy();
  jwksServer.closeAllConnections();
  await new Promise((r) => silent.close(r));
  await new Promise((r) => jwksServer.close(r));
});

/** One token check under `options`: its verdict and what onError was told (bounded: 60 s, the check must end before). */
async function check(options: { issuer: string; jwks?: string }): Promise<{ verdict: AuthVerdict; told: string[] }> {
  const told: string[] = [];
  const authorize = bearerAuth({ resource, ...options, onError: (e) => told.push(e.message) });
  let bound: NodeJS.Timeout | undefined;
  const verdict = await Promise.race([
    authorize({ method: 'POST', headers: { authorization: `Bearer ${await accessToken(resource, 'alice')}` } }),
    new Promise<never>((_, reject) => (bound = setTimeout(() => reject(new Error('the check never ended')), 60_000))),
  ]);
  clearTimeout(bound);
  return { verdict, told };
}

test('every fetch of the check: a failure names the method, the URL and (a timeout) the 5-s bound; a 503, never a refusal of the token', async () => {
  const cases: Array<[string, { issuer: string; jwks?: string }, RegExp]> = [
    [
      'metadata: no answer',
      { issuer: silentAt },
      new RegExp(
        `^GET ${silentAt}/\\.well-known/oauth-authorization-server failed: timed out: the bound on the issuer's metadata \\(all its discovery URLs together\\) is 5 s`,
      ),
    ],
    [
      'JWKS: no answer',
      { issuer, jwks: `${silentAt}/jwks` },
      new RegExp(`^GET ${silentAt}/jwks failed: timed out: the bound on the issuer's keys \\(JWKS\\) is 5 s`),
    ],
    [
      'JWKS: half a body',
      { issuer, jwks: `${jwksAt}/half` },
      new RegExp(`^GET ${jwksAt}/half failed: timed out: the bound on the issuer's keys \\(JWKS\\) is 5 s`),
    ],
    [
      'JWKS: 500',
      { issuer, jwks: `${jwksAt}/500` },
      new RegExp(`^GET ${jwksAt}/500 failed: answered 500, not 200 with the issuer's keys$`),
    ],
    [
      'JWKS: HTML',
      { issuer, jwks: `${jwksAt}/html` },
      new RegExp(`^GET ${jwksAt}/html failed: the answer is not JSON$`),
    ],
  ];
  const results = await Promise.all(cases.map(([, options]) => check(options)));
  cases.forEach(([name, , message], i) => {
    const { verdict, told } = results[i];
    assert.ok('refusal' in verdict, name);
    if (!('refusal' in verdict)) return;
    assert.is(verdict.refusal.status, 503, `${name}: ${verdict.refusal.message}`);
    assert.equal(verdict.refusal.headers, { 'Retry-After': '5' }, name);
    assert.is(told.length, 1, `${name}: ${JSON.stringify(told)}`);
    assert.match(told[0], message, `${name}: ${told[0]}`);
  });
});

test('serve --auth: the timed-out JWKS fetch in the log names its URL (credentials redacted) and the bound', async () => {
  const m2025 = { ...(await loadRevision('2025-11-25')), fallbackTables: await olderHandshakeTables('2025-11-25') };
  const warned: string[] = [];
  const logger = { warn: (m: string) => void warned.push(m) } as never;
  const jwks = `${silentAt}/jwks?sig=s3cret`;
  const s = await serveHttp(m2025 as never, { port: 0, host: '127.0.0.1', auth: { issuer, jwks }, logger });
  try {
    const res = await fetch(s.url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${await accessToken(s.url, 'alice')}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    const body = await res.text();
    assert.is(res.status, 503, body);
    assert.not.ok(body.includes('127.0.0.1'), body);
    const lines = warned.filter((l) => l.startsWith('auth: '));
    assert.is(lines.length, 1, warned.join('\n'));
    const expected = `auth: token check failed: GET ${silentAt}/jwks?sig=*** failed: timed out: the bound on the issuer's keys (JWKS) is 5 s`;
    assert.ok(lines[0].startsWith(expected), lines[0]);
    assert.not.ok(lines[0].includes('s3cret'), lines[0]);
  } finally {
    await s.close();
  }
});

test.run();
