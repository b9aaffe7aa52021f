/**
 * Issue 44, a new-user trial: a 4 MiB body nested all the way down (`[[[[…]]]]`, or
 * `{"a":{"a":…}}`) cost about 2 s of `JSON.parse` per POST (V8 parses 2 million levels without
 * complaint), on every transport that parses a peer's JSON. Now a text nested deeper than
 * MAX_JSON_DEPTH (512) is refused before it is parsed, as JSON-RPC -32700 (without an id, as
 * every parse error: nothing was parsed) with HTTP 400; depth 512 itself is parsed. Real servers on loopback
 * sockets (both eras' endpoints of `serve`, and `serve --stdio` as a process), a raw node:http
 * server for the client side.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadRevision, olderHandshakeTables } from '../../cli/revisions.js';
import { healthEndpoints, serveHttp } from '../../cli/serve/http.js';
import { serveStatelessHttp } from '../../cli/serve/stateless.js';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../../runtime/codec/json-depth.js';
import { HttpClientTransport } from '../../runtime/transport/http/session/node-client.js';
import { requestPath } from '../../runtime/transport/http/io/node.js';
import { onLines, sendOnce, spawnStdioServe } from '../runtime/tasks/serve-process.js';
import { initReq, MiniClient } from '../runtime/transport/http/session/helpers.js';

const MiB4 = 4 * 1024 * 1024;
const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const objects = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
/** The two shapes of the trial, each just under 4 MiB (the body bound). */
const deep = [
  ['[[[…]]]]', arrays(MiB4 / 2 - 1)],
  ['{"a":{"a":…}}', objects(Math.floor(MiB4 / 6) - 1)],
] as const;

test('jsonTooDeep: levels counted outside strings only (escaped quotes too); short texts are not scanned', () => {
  assert.is(jsonTooDeep(arrays(MAX_JSON_DEPTH)), false);
  assert.is(jsonTooDeep(arrays(MAX_JSON_DEPTH + 1)), true);
  assert.is(jsonTooDeep(objects(MAX_JSON_DEPTH + 1)), true);
  assert.is(jsonTooDeep(`["${'['.repeat(2000)}"]`), false);
  assert.is(jsonTooDeep(`["\\"${'['.repeat(2000)}\\\\"]`), false);
  assert.is(jsonTooDeep(`["\\\\"${'['.repeat(2000)}`), true);
  assert.is(jsonTooDeep('['.repeat(MAX_JSON_DEPTH + 1)), true, 'unclosed');
  assert.is(jsonTooDeep(arrays(3), 2), true);
  assert.is(jsonTooDeep(arrays(3), 5), false);
});

const m2025 = { ...(await loadRevision('2025-11-25')), fallbackTables: await olderHandshakeTables('2025-11-25') };
const m2026 = await loadRevision('2026-07-28');
const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body,
  });

for (const era of ['2025-11-25 sessions', '2026-07-28 stateless (dual-era)'] as const) {
  test(`${era}: a 4 MiB body nested too deep is 400 -32700; depth ${MAX_JSON_DEPTH} is parsed`, async () => {
    const s =
      era === '2025-11-25 sessions'
        ? await serveHttp(m2025 as never, { port: 0, host: '127.0.0.1' })
        : await serveStatelessHttp(m2026 as never, m2025 as never, { port: 0, host: '127.0.0.1' });
    try {
      for (const [name, body] of deep) {
        assert.ok(body.length <= MiB4 && body.length > MiB4 - 16, name);
        const res = await post(s.url, body);
        const text = await res.text();
        assert.is(res.status, 400, `${name}: ${text.slice(0, 200)}`);
        const reply = JSON.parse(text);
        assert.is(reply.error.code, -32700, name);
        assert.is(reply.error.message, `Parse error: JSON nested deeper than ${MAX_JSON_DEPTH} levels`, name);
      }
      // as deep as allowed: parsed, then refused for what it is (not a parse error)
      const res = await post(s.url, arrays(MAX_JSON_DEPTH));
      const text = await res.text();
      assert.not.ok(text.includes('-32700'), text);
    } finally {
      await s.close();
    }
  });
}

test('serve --stdio: a line nested too deep is answered -32700 and the next request is served', async () => {
  const proc = spawnStdioServe([], { stderr: 'ignore' });
  const lines: string[] = [];
  onLines(proc.stdout!, (l) => lines.push(l));
  try {
    proc.stdin!.write(`${deep[0][1]}\n`);
    proc.stdin!.write(`${JSON.stringify(initReq())}\n`);
    for (let i = 0; i < 1200 && lines.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    const [first, second] = lines.map((l) => JSON.parse(l));
    assert.equal(first, {
      jsonrpc: '2.0',
      error: {
        code: -32700,
        message: `Parse error: line is not JSON: JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
      },
    });
    assert.is(second.id, initReq().id);
    assert.ok(second.result, JSON.stringify(second));
  } finally {
    proc.kill();
  }
});

test('a draining serve: a POST of a running session nested too deep is taken as a request (503), not passed on', async () => {
  const health = healthEndpoints(undefined);
  let passed = 0;
  const server = createServer((req, res) => {
    if (health.route(requestPath(req.url), req, res, () => void (passed++, res.writeHead(202).end()))) return;
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  try {
    health.drain();
    const headers = { 'Content-Type': 'application/json', 'Mcp-Session-Id': 's1' };
    const answer = '{"jsonrpc":"2.0","id":7,"result":{}}';
    assert.is((await sendOnce(url, 'POST', headers, answer)).status, 202, 'an answer goes on');
    const r = await sendOnce(url, 'POST', headers, deep[1][1]);
    assert.is(r.status, 503, r.body);
    assert.is(passed, 1);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

test('client side: a server answering a 4 MiB nested JSON body fails the request naming the nesting', async () => {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end(deep[1][1]));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const transport = new HttpClientTransport({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` });
  const client = new MiniClient(transport);
  try {
    await client.start();
    const failed = await client.request('initialize', initReq().params as Record<string, unknown>).then(
      () => undefined,
      (e: Error) => e,
    );
    assert.ok(failed, 'the request failed');
    assert.match(String(failed?.message), `nested deeper than ${MAX_JSON_DEPTH} levels`);
  } finally {
    await transport.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test.run();
