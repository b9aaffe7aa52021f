/**
 * Issue 11, finding 1: a message only ever reaches the requests of the connection, session or
 * HTTP exchange it arrived on. On the stateless revision a POSTed `notifications/cancelled` (or
 * `notifications/progress`) names no request of its own exchange and is accepted and ignored;
 * closing a response stream stays the one way to cancel (draft streamable-http, Cancellation).
 * Checked against `mcpgen serve --http 0` (dual-era front and `--modern-only`), against the
 * stateless handler used as a user would, and for the 2025-era sessions on the same front.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startServe, type Served } from '../runtime/tasks/serve-process.js';
import { ACCEPT, headersFor, request, startModern } from '../runtime/transport/http/stateless/helpers.js';
import { openLegacyStream } from './wire.js';

const LIMIT = 20_000;

/** POSTs a draft-era message; resolves with status and the last JSON-RPC message of the answer. */
async function postDraft(
  url: string,
  message: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<{ status: number; body: any }> {
  const params = message.params as { name?: string } | undefined;
  const res = await fetch(url, {
    method: 'POST',
    headers: headersFor(String(message.method), typeof params?.name === 'string' ? params.name : undefined),
    body: JSON.stringify(message),
    signal: signal ?? AbortSignal.timeout(LIMIT),
  });
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data: ') && l.length > 6)
      .map((l) => JSON.parse(l.slice(6)));
    return { status: res.status, body: data.at(-1) };
  }
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

const slowCompute = (id: string | number, seconds: number) =>
  request(id, 'tools/call', { name: 'slow_compute', arguments: { seconds } });

/** Every request id a guessing attacker would try: the inner ids counted from 0, and the victims' own. */
const guesses = (...own: Array<string | number>) => [...Array.from({ length: 40 }, (_, i) => i), ...own];

async function attack(url: string, ids: Array<string | number>): Promise<number[]> {
  const statuses: number[] = [];
  for (const requestId of ids) {
    const r = await postDraft(url, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId, reason: 'attack' },
    });
    statuses.push(r.status);
  }
  return statuses;
}

for (const args of [
  ['--rev', 'draft'],
  ['--rev', 'draft', '--modern-only'],
  ['--rev', '2026-07-28'],
]) {
  test(`serve ${args.join(' ')}: another client's notifications/cancelled never reaches a stateless request`, async () => {
    const s: Served = await startServe(...args);
    try {
      const victims = [postDraft(s.url, slowCompute('victim', 1.5)), postDraft(s.url, slowCompute(1, 1.5))];
      await new Promise((r) => setTimeout(r, 400));
      const statuses = await attack(s.url, guesses('victim', 1));
      assert.ok(
        statuses.every((x) => x === 202),
        `cancellations are accepted and ignored: ${statuses.join(',')}`,
      );
      const [a, b] = await Promise.all(victims);
      assert.is(a.status, 200);
      assert.is(a.body.id, 'victim');
      assert.match(a.body.result.content[0].text, /^slow_compute: done/, JSON.stringify(a.body));
      assert.is(b.body.id, 1);
      assert.match(b.body.result.content[0].text, /^slow_compute: done/, JSON.stringify(b.body));
    } finally {
      await s.stop();
    }
  });
}

test('stateless handler: POSTed cancels and progress reach no request; a closed stream still cancels its own', async () => {
  const m = await startModern();
  try {
    const victim = postDraft(m.url, request('v', 'tools/call', { name: 'slow', arguments: { ms: 800 } }));
    const own = new AbortController();
    const leaving = postDraft(
      m.url,
      request('leaving', 'tools/call', { name: 'slow', arguments: { ms: 5000 } }),
      own.signal,
    ).catch((e: Error) => e);
    while (m.probe.started.length < 2) await new Promise((r) => setTimeout(r, 10));
    const inner = m.probe.started.map(Number);
    assert.ok(inner.every(Number.isInteger), `handlers see the transport's inner ids: ${m.probe.started.join(',')}`);
    await attack(m.url, guesses('v', ...inner));
    for (const progressToken of [...inner, 'v']) {
      const r = await postDraft(m.url, {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken, progress: 1 },
      });
      assert.is(r.status, 202);
    }
    own.abort();
    assert.instance(await leaving, Error);
    const r = await victim;
    assert.is(r.body.id, 'v');
    assert.equal(r.body.result.content, [{ type: 'text', text: 'done' }]);
    for (let i = 0; i < 200 && m.probe.aborted.length === 0; i++) await new Promise((res) => setTimeout(res, 10));
    assert.equal(m.probe.aborted.length, 1, 'the client that closed its stream cancelled its own request');
    assert.is(m.probe.aborted[0], m.probe.started[1]);
    assert.is(m.handler.transport.inFlight, 0, 'no stream entry left behind');
  } finally {
    await m.close();
  }
});

/** A 2025-11-25 session on `url`: its id and a POST helper carrying it. */
async function session(url: string) {
  const headers = { Accept: ACCEPT, 'Content-Type': 'application/json' };
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
    signal: AbortSignal.timeout(LIMIT),
  });
  const sid = init.headers.get('mcp-session-id')!;
  await init.text();
  const send = async (m: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' },
      body: JSON.stringify(m),
      signal: AbortSignal.timeout(LIMIT),
    });
    const text = await res.text();
    const data = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
      ? text
          .split('\n')
          .filter((l) => l.startsWith('data: ') && l.length > 6)
          .map((l) => JSON.parse(l.slice(6)))
          .at(-1)
      : text === ''
        ? undefined
        : JSON.parse(text);
    return { status: res.status, body: data };
  };
  await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { sid, send };
}

test('serve --rev draft: the 2025-era sessions on the dual-era front cancel only their own requests', async () => {
  const s = await startServe('--rev', 'draft');
  try {
    const a = await session(s.url);
    const b = await session(s.url);
    const call = a.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'slow_compute', arguments: { seconds: 1 } },
    });
    await new Promise((r) => setTimeout(r, 300));
    const cancel = await b.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    assert.is(cancel.status, 202);
    // and with no session at all: the front hands it to the stateless side, which ignores it
    const bare = await postDraft(s.url, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1 },
    });
    assert.is(bare.status, 202);
    const r = await call;
    assert.is(r.body.id, 1);
    assert.match(r.body.result.content[0].text, /^Computed sum/);
  } finally {
    await s.stop();
  }
});

/** A legacy HTTP+SSE session, initialized: POST to its endpoint, wait for a pattern on its stream. */
async function legacySession(base: string) {
  const stream = await openLegacyStream(base, LIMIT);
  await stream.post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await stream.until(/"id":0,"result"/);
  await stream.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return stream;
}

test('serve --http (legacy HTTP+SSE): one session cancels only its own requests', async () => {
  const s = await startServe('--rev', '2025-11-25');
  const base = new URL(s.url).origin;
  const a = await legacySession(base);
  const b = await legacySession(base);
  try {
    assert.is(
      await a.post({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'slow_compute', arguments: { seconds: 1 } },
      }),
      202,
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.is(await b.post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }), 202);
    assert.match((await a.until(/data: (\{"jsonrpc":"2\.0","id":1,"result".*)/))[1], /Computed sum/);
  } finally {
    a.close();
    b.close();
    await s.stop();
  }
});

test.run();
