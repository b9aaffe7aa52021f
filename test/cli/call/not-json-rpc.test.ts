/**
 * `mcpgen call --url` (and `mcpgen tools --url`) against an endpoint that answers something
 * other than JSON-RPC, a real node:http server on 127.0.0.1: an HTML page with 200, text/plain,
 * a broken application/json body, JSON that holds no message, an HTML 500 page, no Content-Type;
 * and a JSON reply answering another request id.
 * Each fails at once with exit 1 (as the other call failures), and the one line names the URL,
 * the HTTP status, the Content-Type and the first 100 characters of the body; a longer body is
 * cut there, marked with `…`. Both eras: 2025-11-25 (sessions) and 2026-07-28 (stateless, with
 * its fallback to the 2025 handshake).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { main } from '../../../cli/main.js';

const PAGE = `<!doctype html>\n<html><head><title>Welcome to nginx!</title></head><body>${'<p>It works.</p>'.repeat(200)}</body></html>`;
const replies: Record<string, { status: number; type?: string; body: string }> = {
  html: { status: 200, type: 'text/html; charset=utf-8', body: PAGE },
  text: { status: 200, type: 'text/plain', body: 'hello from a plain server' },
  'broken-json': { status: 200, type: 'application/json', body: '{"jsonrpc":"2.0",' },
  'not-rpc-json': { status: 200, type: 'application/json', body: '{"status":"ok"}' },
  'html-500': { status: 500, type: 'text/html', body: '<h1>Internal Server Error</h1>' },
  'no-type': { status: 200, body: 'no type here' },
};

let server: Server;
let base = '';
let posts = 0;
test.before(async () => {
  server = createServer((req, res) => {
    req.resume();
    if (req.method === 'POST') posts++;
    if (req.url === '/wrong-id' && req.method === 'POST')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end('{"jsonrpc":"2.0","id":999,"result":{}}');
    const r = replies[(req.url ?? '').slice(1)];
    if (!r || req.method !== 'POST') return void res.writeHead(405).end();
    res.writeHead(r.status, r.type ? { 'Content-Type': r.type } : {}).end(r.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after(() => new Promise<void>((r) => server.close(() => r())));

async function mcpgen(args: string[]): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const code = await main(args, { out: () => undefined, err: (l) => err.push(l) });
  return { code, err: err.join('\n') };
}

/** What the line says after `failed: ` for `name`'s reply. */
function expected(name: string): string {
  const r = replies[name];
  const shown = r.body.length > 100 ? `${r.body.slice(0, 100)}…` : r.body;
  return `${base}/${name} answered HTTP ${r.status} (${r.type ? `Content-Type ${r.type}` : 'no Content-Type'}), not JSON-RPC: ${JSON.stringify(shown)}`;
}

for (const rev of ['2025-11-25', '2026-07-28']) {
  test(`call --rev ${rev}: each reply that is not JSON-RPC is said with the URL, status, Content-Type and the body's start; exit 1`, async () => {
    for (const name of Object.keys(replies)) {
      const before = posts;
      const t0 = performance.now();
      // the timeout is a guard: the failure comes with the first answer, long before it
      const r = await mcpgen(['call', '--rev', rev, '--url', `${base}/${name}`, '--timeout', '20000', 'tools/list']);
      assert.is(r.code, 1, `${name}: ${r.err}`);
      assert.is(r.err, `mcpgen call: connecting (initialize) failed: ${expected(name)}`, name);
      assert.ok(performance.now() - t0 < 15_000, `${name}: failed after ${performance.now() - t0} ms`);
      assert.ok(posts > before, `${name}: the server was asked`);
    }
  });
}

test('the HTML page is cut at 100 characters, and tools --url says the same', async () => {
  assert.ok(PAGE.length > 1024, 'the page is longer than what the client keeps of it');
  assert.ok(expected('html').endsWith(`${JSON.stringify(`${PAGE.slice(0, 100)}…`)}`));
  const r = await mcpgen([
    'tools',
    '--url',
    `${base}/html`,
    '--timeout',
    '20000',
    '--out',
    '/tmp/never-written.gen.ts',
    '--check',
  ]);
  assert.is(r.code, 1, r.err);
  assert.is(r.err, `mcpgen tools: tools/list failed: ${expected('html')}`);
});

test('a JSON reply that answers another request id fails at once, naming both ids (not after the timeout)', async () => {
  const t0 = performance.now();
  const r = await mcpgen(['call', '--rev', '2025-11-25', '--url', `${base}/wrong-id`, '--timeout', '20000', 'ping']);
  assert.is(r.code, 1, r.err);
  assert.is(
    r.err,
    `mcpgen call: connecting (initialize) failed: POST initialize: the JSON reply holds no response to request id 0 (it answers id 999): HTTP 200 [${base}/wrong-id]`,
  );
  assert.ok(performance.now() - t0 < 15_000, `failed after ${performance.now() - t0} ms`);
});

test.run();
