/**
 * Our draft client over StatelessHttpClientTransport against our stateless endpoint: the
 * headers it sends (every POST carries MCP-Protocol-Version equal to `_meta`, case 011 input
 * C), Mcp-Param-* mirroring learned from tools/list, invalid annotations dropped, cancellation
 * by closing the stream, listen, and a dual-era endpoint serving our 2025-11-25 client and our
 * draft client at once.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../../../generated/draft/index.js';
import * as v2025 from '../../../../../generated/2025-11-25/index.js';
import { StatelessHttpClientTransport } from '../../../../../runtime/transport/http/stateless/node-client.js';
import { HttpClientTransport } from '../../../../../runtime/transport/http/session/node-client.js';
import { RequestAbortedError } from '../../../../../runtime/jsonrpc/errors.js';
import { SENT } from '../../../../../runtime/jsonrpc/sent.js';
import {
  encodeHeaderValue,
  decodeHeaderValue,
  paramHeaders,
} from '../../../../../runtime/transport/http/stateless/headers.js';
import { startDualEra, startModern, tick, V } from './helpers.js';

/** A fetch that records every request's headers and body. */
function recording() {
  const seen: Array<{ method: string; headers: Record<string, string>; body: any }> = [];
  const f: typeof fetch = async (input, init) => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    seen.push({ method: init?.method ?? 'GET', headers, body: init?.body ? JSON.parse(String(init.body)) : undefined });
    return fetch(input, init);
  };
  return { seen, fetch: f };
}

const client = () => new draft.Client({ clientInfo: { name: 'c', version: '1' }, fallbackTables: [v2025.table] });

test("value encoding: the page's examples", () => {
  assert.is(encodeHeaderValue('us-west1'), 'us-west1');
  assert.is(encodeHeaderValue('Hello, 世界'), '=?base64?SGVsbG8sIOS4lueVjA==?=');
  assert.is(encodeHeaderValue(' padded '), '=?base64?IHBhZGRlZCA=?=');
  assert.is(encodeHeaderValue('line1\nline2'), '=?base64?bGluZTEKbGluZTI=?=');
  assert.is(encodeHeaderValue('=?base64?literal?='), '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
  assert.is(decodeHeaderValue('=?base64?SGVsbG8sIOS4lueVjA==?='), 'Hello, 世界');
  assert.throws(
    () => paramHeaders({ type: 'object', properties: { a: { type: 'number', 'x-mcp-header': 'A' } } }),
    /type/,
  );
  assert.throws(
    () =>
      paramHeaders({
        type: 'object',
        properties: { a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } },
      }),
    /properties/,
  );
  assert.throws(
    () =>
      paramHeaders({
        type: 'object',
        properties: { a: { type: 'string', 'x-mcp-header': 'A' }, b: { type: 'string', 'x-mcp-header': 'a' } },
      }),
    /unique/,
  );
});

test('draft client: every POST carries the metadata headers; Mcp-Param-* mirrored after tools/list; results served', async () => {
  const s = await startModern();
  const rec = recording();
  const c = client();
  await c.connect(new StatelessHttpClientTransport({ url: s.url, fetch: rec.fetch }));
  assert.is(c.table.lifecycle, 'stateless');
  const tools = await c.listTools({});
  assert.ok(tools.tools.some((t) => t.name === 'sql'));
  const r = await c.callTool({
    name: 'sql',
    arguments: { region: 'Hello, 世界', limit: 5, opts: { tenant: 'acme' }, query: 'q' },
  });
  assert.is(r.isError, undefined, JSON.stringify(r));
  for (const req of rec.seen) {
    assert.is(req.method, 'POST');
    assert.is(req.headers['mcp-protocol-version'], V);
    assert.is(req.headers['mcp-protocol-version'], req.body.params._meta['io.modelcontextprotocol/protocolVersion']);
    assert.is(req.headers['mcp-method'], req.body.method);
    assert.is(req.headers['mcp-session-id'], undefined);
  }
  const call = rec.seen.find((x) => x.body.method === 'tools/call')!;
  assert.is(call.headers['mcp-name'], 'sql');
  assert.is(call.headers['mcp-param-region'], '=?base64?SGVsbG8sIOS4lueVjA==?=');
  assert.is(call.headers['mcp-param-limit'], '5');
  assert.is(call.headers['mcp-param-tenant'], 'acme');
  await c.close();
  await s.close();
});

test('transport: a request is posted in send, which returns SENT (the engine watches no promise); a body that does not serialize rejects it; closed → rejects', async () => {
  const s = await startModern();
  const t = new StatelessHttpClientTransport({ url: s.url });
  try {
    const answers: unknown[] = [];
    await t.start({ onMessage: (m) => void answers.push(m), onClose: () => undefined });
    const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {} };
    const sent = t.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } });
    assert.is(sent, SENT);
    for (let i = 0; i < 200 && answers.length === 0; i++) await tick(5);
    assert.is((answers[0] as { id?: unknown }).id, 1, JSON.stringify(answers));
    const cyclic: Record<string, unknown> = { _meta: meta };
    cyclic.self = cyclic;
    await t.send({ jsonrpc: '2.0', id: 2, method: 'server/discover', params: cyclic }).then(
      () => assert.unreachable('a body that does not serialize was sent'),
      (e: Error) => assert.instance(e, TypeError),
    );
    await t.close();
    await t.send({ jsonrpc: '2.0', id: 3, method: 'server/discover', params: { _meta: meta } }).then(
      () => assert.unreachable('sent on a closed transport'),
      (e: Error) => assert.match(e.message, /closed/),
    );
  } finally {
    await t.close();
    await s.close();
  }
});

test('transport: an SSE reply: its events reach the engine; one ending without the answer (an event that is not JSON skipped) or breaking fails the request', async () => {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const { id, params } = JSON.parse(body);
      const mode = params.mode as string;
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(
        `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: mode } })}\n\n`,
      );
      if (mode === 'ok') res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { ok: true } })}\n\n`);
      else if (mode === 'other-id') res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 999, result: {} })}\n\n`);
      else if (mode === 'not-json') res.end('data: {nope\n\n');
      else setTimeout(() => res.destroy(), 20);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const t = new StatelessHttpClientTransport({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` });
  try {
    const seen: unknown[] = [];
    const failed = new Map<unknown, Error>();
    await t.start({
      onMessage: (m) => void seen.push(m),
      onRequestError: (id, e) => void failed.set(id, e),
      onClose: () => undefined,
    });
    const modes = ['ok', 'other-id', 'not-json', 'broken'];
    for (const [i, mode] of modes.entries())
      await t.send({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'x', mode, _meta: {} } });
    for (let i = 0; i < 400 && failed.size < 3; i++) await tick(5);
    assert.ok(
      seen.some((m) => (m as { id?: unknown }).id === 0 && 'result' in (m as object)),
      JSON.stringify(seen),
    );
    assert.is(seen.filter((m) => (m as { method?: unknown }).method === 'notifications/message').length, 4);
    assert.equal([...failed.keys()].sort(), [1, 2, 3]);
    assert.match(failed.get(1)!.message, /ended without a response \(the request may have run\)/);
    assert.match(failed.get(2)!.message, /ended without a response \(the request may have run\)/);
    assert.match(failed.get(3)!.message, /^Connection lost before the response \(the request may have run\): /);
  } finally {
    await t.close();
    await new Promise((r) => server.close(r));
  }
});

test('transport: headers given as a record go with every POST; Content-Type, Accept and the metadata headers are its own', async () => {
  const s = await startModern();
  const rec = recording();
  const c = client();
  const headers = { Authorization: 'Bearer t', 'Content-Type': 'text/plain', 'Mcp-Method': 'x' };
  try {
    await c.connect(new StatelessHttpClientTransport({ url: s.url, fetch: rec.fetch, headers }));
    await c.listTools({});
    assert.ok(rec.seen.length >= 2);
    for (const req of rec.seen) {
      assert.is(req.headers.authorization, 'Bearer t');
      assert.is(req.headers['content-type'], 'application/json');
      assert.is(req.headers.accept, 'application/json, text/event-stream');
      assert.is(req.headers['mcp-method'], req.body.method);
    }
    assert.equal(headers, { Authorization: 'Bearer t', 'Content-Type': 'text/plain', 'Mcp-Method': 'x' });
  } finally {
    await c.close();
    await s.close();
  }
});

test('draft client: a call to an annotated tool before tools/list is refused with -32020, the transport lists the tools and resends once', async () => {
  const s = await startModern();
  const rec = recording();
  // the transport's own listing is what is asserted; the session's output-schema listing is off
  const c = new draft.Client({
    clientInfo: { name: 'c', version: '1' },
    fallbackTables: [v2025.table],
    checkToolOutput: false,
  });
  await c.connect(new StatelessHttpClientTransport({ url: s.url, fetch: rec.fetch }));
  const r = await c.callTool({ name: 'sql', arguments: { region: 'eu', query: 'q' } });
  assert.is(r.isError, undefined);
  assert.equal(
    rec.seen.map((x) => x.body.method),
    ['server/discover', 'tools/call', 'tools/list', 'tools/call'],
  );
  assert.is(rec.seen[1].headers['mcp-param-region'], undefined);
  assert.is(rec.seen[3].headers['mcp-param-region'], 'eu');
  await c.close();
  await s.close();
});

test('draft client: a tool whose x-mcp-header is invalid is left out of tools/list', async () => {
  const s = await startModern();
  s.features.tool({
    name: 'bad',
    inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } },
    handler: () => 'x',
  });
  const c = new draft.Client({ clientInfo: { name: 'c', version: '1' }, cache: false });
  await c.connect(new StatelessHttpClientTransport({ url: s.url }));
  const names = (await c.listTools({})).tools.map((t) => t.name);
  assert.ok(names.includes('sql'));
  assert.not.ok(names.includes('bad'));
  await c.close();
  await s.close();
});

test('draft client: aborting a call closes its stream; the server handler sees the abort', async () => {
  const s = await startModern();
  const c = client();
  await c.connect(new StatelessHttpClientTransport({ url: s.url }));
  const abort = new AbortController();
  const p = c.callTool(
    { name: 'slow', arguments: { ms: 5000 } },
    { signal: abort.signal, onProgress: () => undefined },
  );
  for (let i = 0; i < 100 && s.probe.started.length === 0; i++) await tick(10);
  abort.abort();
  try {
    await p;
    assert.unreachable('should reject');
  } catch (e) {
    assert.instance(e, RequestAbortedError);
  }
  for (let i = 0; i < 100 && s.probe.aborted.length === 0; i++) await tick(10);
  assert.is(s.probe.aborted.length, 1);
  await c.close();
  await s.close();
});

test('draft client: listen over HTTP receives list_changed; progress arrives on the call stream', async () => {
  const s = await startModern();
  const c = client();
  await c.connect(new StatelessHttpClientTransport({ url: s.url }));
  const got: string[] = [];
  const sub = c.listen({ toolsListChanged: true }, { onNotification: (m) => void got.push(m) });
  await sub.acknowledged;
  s.features.tool({ name: 'new', handler: () => 'n' });
  for (let i = 0; i < 100 && got.length === 0; i++) await tick(10);
  assert.equal(got, ['notifications/tools/list_changed']);
  const progress: number[] = [];
  await c.callTool({ name: 'slow', arguments: { ms: 80 } }, { onProgress: (p) => void progress.push(p.progress) });
  assert.ok(progress.length >= 1);
  await sub.close();
  await c.close();
  await s.close();
});

test('dual-era endpoint: our 2025-11-25 client and our draft client at once', async () => {
  const s = await startDualEra();
  const legacy = new v2025.Client({ clientInfo: { name: 'old', version: '1' } });
  const legacyRec = recording();
  await legacy.connect(new HttpClientTransport({ url: s.url, fetch: legacyRec.fetch }));
  const modern = client();
  const modernRec = recording();
  await modern.connect(new StatelessHttpClientTransport({ url: s.url, fetch: modernRec.fetch }));
  assert.is(legacy.server?.protocolVersion, '2025-11-25');
  assert.is(modern.server?.protocolVersion, V);
  assert.is(s.legacySessions(), 1);
  const [a, b] = await Promise.all([
    legacy.callTool({ name: 'echo', arguments: { text: 'old' } }),
    modern.callTool({ name: 'echo', arguments: { text: 'new' } }),
  ]);
  assert.equal([(a.content[0] as { text: string }).text, (b.content[0] as { text: string }).text], ['old', 'new']);
  assert.is((b as { resultType?: string }).resultType, 'complete');
  // 011 C: every 2025-11-25 request after initialize carries the negotiated version
  for (const r of legacyRec.seen.slice(1)) assert.is(r.headers['mcp-protocol-version'], '2025-11-25');
  assert.ok(
    legacyRec.seen.some((r) => r.method === 'GET'),
    'the standalone GET stream (with its session) reached the 2025 handler',
  );
  assert.ok(legacyRec.seen.slice(1).every((r) => r.headers['mcp-session-id']));
  assert.ok(modernRec.seen.every((r) => r.headers['mcp-protocol-version'] === V && !r.headers['mcp-session-id']));
  await legacy.close();
  await modern.close();
  await s.close();
});

test('dual-era endpoint: a draft client with a 2025 fallback stays modern; 2025 GET with a session works, GET without → 405', async () => {
  const s = await startDualEra();
  const res = await fetch(s.url, { headers: { Accept: 'text/event-stream' } });
  assert.is(res.status, 405);
  const c = client();
  const t = new StatelessHttpClientTransport({ url: s.url });
  await c.connect(t);
  assert.is(t.legacy, undefined);
  assert.is(c.table.lifecycle, 'stateless');
  await c.close();
  await s.close();
});

test.run();
