/**
 * Issue 44, findings 3 and 4 end to end: DPoP (RFC 9449) against a real authorization server
 * (oidc-provider, test/runtime/auth/fixtures/oidc.ts) on the dual-era endpoint of two real
 * `mcpgen serve --rev 2026-07-28 --auth … --redis …` processes sharing one `redis-server`,
 * behind a load balancer (a forwarding proxy here, whose URL both name with `--public-url`).
 *
 * - Our stateless client and our 2025-11-25 client, with one DPoP-bound token (`cnf.jkt`),
 *   make several requests each through the same endpoint: each request is checked once, so
 *   none of their proofs is refused as replayed (finding 3), and each client's token check
 *   names the same principal.
 * - A request captured at the first process (token and proof) replayed through the balancer
 *   to the second is refused: 401 `invalid_dpop_proof`, the proof id already used (finding 4:
 *   the replay store is shared); the same token with a fresh proof is accepted there.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import * as v2025 from '../../generated/2025-11-25/index.js';
import * as v2026 from '../../generated/2026-07-28/index.js';
import { oauthFetch } from '../../runtime/auth/client.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { StatelessHttpClientTransport } from '../../runtime/transport/http/stateless/node-client.js';
import { clientOptions, startAuthorizationServer } from '../runtime/auth/fixtures/oidc.js';
import { startHttpServeProcess, type Served } from '../runtime/tasks/serve-process.js';
import { startRedis, type RedisServer } from '../scale/support.js';

interface Forwarded {
  to: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  status: number;
}

/** A load balancer: forwards every request to `target` (switchable), streaming the answer; records each. */
class Balancer {
  readonly server: Server = createServer((req, res) => void this.forward(req, res));
  readonly log: Forwarded[] = [];
  target = '';
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
  }

  private async forward(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const to = this.target;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    const entry: Forwarded = { to, method: req.method!, path: req.url!, headers, body, status: 0 };
    this.log.push(entry);
    const up = httpRequest(new URL(req.url!, to), { method: req.method, headers: req.headers }, (ures) => {
      entry.status = ures.statusCode!;
      res.writeHead(ures.statusCode!, ures.headers);
      ures.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    up.end(body);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

let as: Awaited<ReturnType<typeof startAuthorizationServer>>;
let redis: RedisServer;
const balancer = new Balancer();
let one: Served;
let two: Served;

test.before(async () => {
  as = await startAuthorizationServer();
  redis = await startRedis();
  await balancer.start();
  const args = [
    '--rev',
    '2026-07-28',
    '--auth',
    as.issuer,
    '--auth-scope',
    'mcp',
    '--redis',
    redis.url,
    '--public-url',
    balancer.url,
    '--allowed-host',
    '127.0.0.1',
  ];
  [one, two] = await Promise.all([startHttpServeProcess(args), startHttpServeProcess(args)]);
  balancer.target = one.url;
});

test.after(async () => {
  await Promise.all([one?.stop(), two?.stop()]);
  await balancer.close();
  await redis?.stop();
  await as?.close();
});

/** The POSTs to /mcp the balancer forwarded to `to` that were accepted. */
const acceptedAt = (to: string) =>
  balancer.log.filter((f) => f.to === to && f.method === 'POST' && f.path === '/mcp' && f.status === 200);

const auth = oauthFetch({ ...clientOptions, dpop: true });

test('dual-era endpoint: our stateless and our 2025 client call several times with one DPoP-bound token', async () => {
  const modern = new v2026.Client({ clientInfo: { name: 'dpop', version: '1' }, fallbackTables: [v2025.table] });
  await modern.connect(new StatelessHttpClientTransport({ url: balancer.url, fetch: auth.fetch }));
  for (let i = 0; i < 3; i++) assert.ok((await modern.listTools({})).tools.length > 0);
  const echoed = await modern.callTool({ name: 'echo', arguments: { text: 'modern' } });
  assert.is((echoed.content[0] as { text: string }).text, 'modern');
  await modern.close();

  const tokens = (await auth.tokens())!;
  assert.is(tokens.token_type.toLowerCase(), 'dpop');
  const claims = decodeJwt(tokens.access_token);
  assert.is(claims.aud, balancer.url, 'the token names the public URL (the resource)');
  const jkt = (claims.cnf as { jkt?: string } | undefined)?.jkt;
  assert.ok(jkt, 'the token is bound to the client key (cnf.jkt)');

  const legacy = new v2025.Client({ clientInfo: { name: 'dpop', version: '1' } });
  await legacy.connect(new HttpClientTransport({ url: balancer.url, fetch: auth.fetch }));
  for (let i = 0; i < 3; i++) assert.ok((await legacy.listTools()).tools.length > 0);
  const legacyEcho = await legacy.callTool({ name: 'echo', arguments: { text: 'legacy' } });
  assert.is((legacyEcho.content[0] as { text: string }).text, 'legacy');
  await legacy.close();

  // every request carried its own proof, each accepted once
  const posts = acceptedAt(one.url);
  assert.ok(posts.length >= 10, `${posts.length} accepted POSTs`);
  for (const p of posts) {
    assert.is(p.headers.authorization, `DPoP ${tokens.access_token}`);
    assert.ok(p.headers.dpop, 'a proof on every request');
  }
  const proofIds = posts.map((p) => decodeJwt(p.headers.dpop).jti);
  assert.is(new Set(proofIds).size, proofIds.length, 'a fresh proof per request');
  assert.equal(
    balancer.log.filter((f) => f.status === 401 && f.headers.dpop).map((f) => f.path),
    [],
    'no request with a proof was refused',
  );
});

test('two processes sharing Redis: a proof replayed at the other process is refused; a fresh proof is accepted there', async () => {
  // a stateless request (no session: the second process could answer it as well as the first)
  const captured = acceptedAt(one.url)
    .filter((f) => f.headers['mcp-session-id'] === undefined && f.headers['mcp-method'] === 'tools/list')
    .at(-1);
  assert.ok(captured, 'a stateless request accepted at the first process');
  const replay = () =>
    fetch(balancer.url, {
      method: 'POST',
      headers: Object.fromEntries(
        Object.entries(captured.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)),
      ),
      body: captured.body.toString(),
    });
  balancer.target = two.url;
  const refused = await replay();
  assert.is(refused.status, 401);
  assert.match(refused.headers.get('www-authenticate') ?? '', /error="invalid_dpop_proof".*replayed/);
  await refused.text();
  assert.is(balancer.log.at(-1)!.to, two.url, 'the replay reached the second process');

  // the same client, fresh proofs, at the second process
  const modern = new v2026.Client({ clientInfo: { name: 'dpop', version: '1' }, fallbackTables: [v2025.table] });
  await modern.connect(new StatelessHttpClientTransport({ url: balancer.url, fetch: auth.fetch }));
  for (let i = 0; i < 2; i++) assert.ok((await modern.listTools({})).tools.length > 0);
  await modern.close();
  assert.ok(acceptedAt(two.url).length >= 2, 'the second process accepted the fresh proofs');

  // and the first process refuses its own proof again too
  balancer.target = one.url;
  const again = await replay();
  assert.is(again.status, 401);
  await again.text();
});

test.run();
