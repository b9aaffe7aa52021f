/**
 * Issue 45: on the dual-era endpoints (`mcpgen serve --rev draft`, runtime/stateless/dual-era.ts)
 * every message reaches exactly one era's engine, so a request gets exactly one answer (JSON-RPC
 * 2.0 §5). The shapes that could split: a request named like a notification (with and without
 * the modern `_meta`), a message carrying both eras' markers (`initialize` with the modern
 * `_meta`; a session header with the modern `_meta`), client responses, batches. The random
 * sequences are ../fuzz/dual-era.test.ts's.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EraRouter } from '../../runtime/stateless/dual-era.js';
import { createMemoryPair } from '../../runtime/transport/memory.js';
import type { JSONRPCMessage } from '../../runtime/jsonrpc/transport.js';
import { DRAFT, StdioServe, meta, startHttpServe } from './era-serve.js';

type Obj = Record<string, any>;
const M = meta('2026-07-28', {});
const INIT = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'legacy', version: '1' },
};

/** Waits for `marker`'s answer (sent last), then a little for any late second answer. */
async function settle(s: StdioServe, markerId: string): Promise<void> {
  await s.request(markerId, 'server/discover', { _meta: M });
  await new Promise((r) => setTimeout(r, 300));
}

test('serve --stdio --rev draft: the reproduction of issue 45 gets one answer', async () => {
  const s = new StdioServe(['--rev', DRAFT]);
  try {
    const init = await s.request(0, 'initialize', INIT);
    assert.is(init.result?.protocolVersion, '2025-11-25');
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    s.send({
      id: 'x5',
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'zz', _meta: M },
    });
    await settle(s, 'end');
    const answers = s.answersTo('x5');
    assert.is(answers.length, 1, JSON.stringify(answers));
    assert.is(answers[0].error?.code, -32601);
  } finally {
    await s.close();
  }
});

test('serve --stdio --rev draft: requests named like notifications and messages with both markers get one answer each, before and after initialize', async () => {
  const s = new StdioServe(['--rev', DRAFT]);
  const shapes = (p: string): Obj[] => [
    { jsonrpc: '2.0', id: `${p}-1`, method: 'notifications/cancelled', params: { requestId: 'zz' } },
    { jsonrpc: '2.0', id: `${p}-2`, method: 'notifications/cancelled', params: { requestId: 'zz', _meta: M } },
    { jsonrpc: '2.0', id: `${p}-3`, method: 'notifications/initialized', params: { _meta: M } },
    { jsonrpc: '2.0', id: `${p}-4`, method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: `${p}-5`, method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
    { jsonrpc: '2.0', id: `${p}-6`, method: 'ping' },
    { jsonrpc: '2.0', id: `${p}-7`, method: 'ping', params: { _meta: M } },
    { jsonrpc: '2.0', id: `${p}-8`, method: 'tools/list', params: { _meta: M } },
    // a batch is refused whole (one answer without id); its request is not answered
    [{ jsonrpc: '2.0', id: `${p}-9`, method: 'ping' }],
    // a response to no request of the server
    { jsonrpc: '2.0', id: `${p}-10`, result: {} },
    { jsonrpc: '2.0', id: `${p}-11`, error: { code: -32601, message: 'no' } },
  ];
  const answered: Record<string, number> = {};
  try {
    // before initialize: everything not modern is the modern side's
    for (const m of shapes('a')) s.send(m);
    // an `initialize` with the modern `_meta` is modern: it starts no legacy connection
    s.send({ jsonrpc: '2.0', id: 'a-init', method: 'initialize', params: { ...INIT, _meta: M } });
    await settle(s, 'a-end');
    const legacyPing = await s.request('a-ping', 'ping');
    assert.is(legacyPing.error?.code, -32602, `a legacy ping before initialize: ${JSON.stringify(legacyPing)}`);
    const init = await s.request('b-init', 'initialize', INIT);
    assert.is(init.result?.protocolVersion, '2025-11-25');
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    for (const m of shapes('b')) s.send(m);
    await settle(s, 'b-end');
    for (const m of s.received) if (!('method' in m)) answered[String(m.id)] = (answered[String(m.id)] ?? 0) + 1;
    for (const p of ['a', 'b']) {
      for (const i of [1, 2, 3, 4, 5, 6, 7, 8])
        assert.is(answered[`${p}-${i}`], 1, `${p}-${i} answered ${answered[`${p}-${i}`] ?? 0} times`);
      for (const i of [9, 10, 11]) assert.is(answered[`${p}-${i}`], undefined, `${p}-${i} was answered`);
    }
    assert.is(answered['a-init'], 1);
    // the legacy ping after initialize is the legacy side's: a result
    assert.equal(s.received.find((m) => m.id === 'b-6')?.result, {});
    // one error without id per batch
    assert.is(answered.undefined, 2);
  } finally {
    await s.close();
  }
});

test('serve --http 0 --rev draft: requests named like notifications and messages with both markers get one answer each', async () => {
  const served = await startHttpServe(['--rev', DRAFT]);
  const post = async (body: unknown, headers: Record<string, string>) => {
    const res = await fetch(served.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    const messages = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
      ? text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trim())
          .filter(Boolean)
          .map((d) => JSON.parse(d) as Obj)
      : text.trim()
        ? [JSON.parse(text) as Obj]
        : [];
    return { status: res.status, headers: res.headers, answers: messages.filter((m) => !('method' in m)) };
  };
  try {
    const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT }, {});
    const sid = init.headers.get('mcp-session-id');
    assert.ok(sid, 'no session');
    const legacy = { 'mcp-session-id': sid!, 'mcp-protocol-version': '2025-11-25' };
    const modern = { 'mcp-protocol-version': '2026-07-28' };
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, legacy);
    const cases: [string, Obj, Record<string, string>][] = [
      ['legacy cancel-named request', { method: 'notifications/cancelled', params: { requestId: 'zz' } }, legacy],
      [
        'modern cancel-named request',
        { method: 'notifications/cancelled', params: { requestId: 'zz', _meta: M } },
        { ...modern, 'mcp-method': 'notifications/cancelled' },
      ],
      [
        'cancel-named request with both markers',
        { method: 'notifications/cancelled', params: { requestId: 'zz', _meta: M } },
        { ...legacy, 'mcp-method': 'notifications/cancelled' },
      ],
      ['ping with both markers', { method: 'ping', params: { _meta: M } }, { ...legacy, 'mcp-method': 'ping' }],
      [
        'initialize with both markers',
        { method: 'initialize', params: { ...INIT, _meta: M } },
        { ...modern, 'mcp-method': 'initialize' },
      ],
    ];
    for (const [what, m, headers] of cases) {
      const id = `h-${what}`;
      const r = await post({ jsonrpc: '2.0', id, ...m }, headers);
      const mine = r.answers.filter((a) => a.id === id);
      assert.is(mine.length, 1, `${what}: ${r.status} ${JSON.stringify(r.answers)}`);
      assert.is(r.answers.length, 1, `${what}: answers to other ids ${JSON.stringify(r.answers)}`);
    }
  } finally {
    await served.stop();
  }
});

test('EraRouter: a client response goes to the side that sent the request it answers, whichever era', async () => {
  const [client, server] = createMemoryPair();
  const router = new EraRouter(server);
  const got = { modern: [] as Obj[], legacy: [] as Obj[] };
  for (const era of ['modern', 'legacy'] as const)
    await router[era].start({ onMessage: (m) => void got[era].push(m), onClose: () => undefined });
  await router.start();
  const fromServer: Obj[] = [];
  await client.start({ onMessage: (m) => void fromServer.push(m), onClose: () => undefined });
  const send = (m: Obj) => client.send(m as JSONRPCMessage);
  // the legacy side starts
  await send({ jsonrpc: '2.0', id: 'i', method: 'initialize', params: INIT });
  // each side asks the client something, with the same id
  await router.modern.send({ jsonrpc: '2.0', id: 'm1', method: 'roots/list' } as JSONRPCMessage);
  await router.legacy.send({ jsonrpc: '2.0', id: 'l1', method: 'roots/list' } as JSONRPCMessage);
  await send({ jsonrpc: '2.0', id: 'm1', result: { roots: [] } });
  await send({ jsonrpc: '2.0', id: 'l1', error: { code: -32601, message: 'no' } });
  // a response to nothing: the legacy side (it was initialized), once
  await send({ jsonrpc: '2.0', id: 'm1', result: { roots: [] } });
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(
    got.modern.map((m) => m.id),
    ['m1'],
  );
  assert.equal(
    got.legacy.map((m) => m.id),
    ['i', 'l1', 'm1'],
  );
  assert.is(fromServer.length, 2);
  await client.close();
});

test.run();
