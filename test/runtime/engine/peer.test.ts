import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { Peer, hasCapability, type PeerOptions } from '../../../runtime/engine/peer.js';
import { ConnectionClosedError, ErrorCode, InvalidResultError, RpcError } from '../../../runtime/jsonrpc/errors.js';
import { recordingLogger, settle, table, wire, type Msg } from '../support.js';

const initParams = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '0.0.1' } };
const initResult = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  serverInfo: { name: 'demo-server', version: '1.0.0' },
};

async function start(side: 'client' | 'server', options: Partial<PeerOptions> = {}) {
  const w = await wire();
  const logger = recordingLogger();
  const errors: Error[] = [];
  const peer = new Peer({ side, table, transport: w.transport, logger, onError: (e) => errors.push(e), ...options });
  await peer.start();
  return { peer, w, logger, errors };
}

test('002 ids: a server echoes each id as the identical JSON value; the notification gets nothing', async () => {
  const { w } = await start('server', { requestHandlers: { initialize: () => initResult } });
  await w.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: initParams });
  await w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  for (const id of ['0', 73, 'probe-7f', -1, '']) await w.send({ jsonrpc: '2.0', id, method: 'ping' });
  await settle();
  assert.equal(
    w.received.map((m) => m.id),
    [0, '0', 73, 'probe-7f', -1, ''],
  );
  assert.equal(
    w.received.map((m) => typeof m.id),
    ['number', 'string', 'number', 'string', 'number', 'string'],
  );
  assert.equal(w.received[0].result, initResult);
  for (const m of w.received.slice(1)) assert.equal(m.result, {});
});

test('002 ids: a client matches responses by type and value ("0" does not resolve request 0)', async () => {
  const { peer, w, logger } = await start('client');
  const init = peer.request('initialize', initParams);
  const req = await w.next();
  assert.is(req.id, 0);
  await w.send({ jsonrpc: '2.0', id: '0', result: {} });
  await w.send({ jsonrpc: '2.0', id: 0, result: initResult });
  assert.equal(await init, initResult);
  await w.send({ jsonrpc: '2.0', id: 0, result: initResult }); // duplicate: dropped
  await settle();
  assert.equal(
    logger.entries.filter((e) => e.level === 'debug' && e.message.includes('unknown id')).map((e) => e.data?.id),
    ['0', 0],
  );
  // the same holds for error responses: "1" must not fail request 1
  const ping = peer.request('ping');
  const p1 = await w.next();
  assert.is(p1.id, 1);
  await w.send({ jsonrpc: '2.0', id: '1', error: { code: -32603, message: 'wrong id' } });
  await w.send({ jsonrpc: '2.0', id: 1, result: {} });
  assert.equal(await ping, {});
  assert.not.ok(peer.closed);
});

test('002 ids: null, fractional, boolean and object ids get one -32600 without id; the handler never runs', async () => {
  let calls = 0;
  const { w } = await start('server', { requestHandlers: { 'tools/list': () => (calls++, { tools: [] }) } });
  const ids = [null, 1.5, true, { n: 1 }];
  for (const id of ids) await w.send({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
  await settle();
  assert.is(calls, 0);
  assert.is(w.received.length, ids.length);
  for (const m of w.received) {
    assert.is(m.error.code, ErrorCode.InvalidRequest);
    assert.not.ok('id' in m);
  }
});

test('004 notifications: no response for any notification (unknown, stray progress, malformed cancel, bad params)', async () => {
  let initialized = 0;
  let rootsChanged = 0;
  const { w, peer } = await start('server', {
    requestHandlers: { initialize: () => initResult },
    notificationHandlers: {
      'notifications/initialized': () => void initialized++,
      'notifications/roots/list_changed': () => void rootsChanged++,
    },
  });
  const lines = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: initParams },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', method: 'notifications/x-example/unknown', params: { a: 1 } },
    { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'never-issued', progress: 1 } },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: {} },
    { jsonrpc: '2.0', method: 'notifications/roots/list_changed', params: 'not-an-object' },
    { jsonrpc: '2.0', id: 'n1', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'ping' },
  ];
  for (const l of lines) await w.send(l);
  await settle();
  assert.equal(w.received, [
    { jsonrpc: '2.0', id: 1, result: initResult },
    { jsonrpc: '2.0', id: 'n1', error: { code: -32601, message: 'Method not found: notifications/initialized' } },
    { jsonrpc: '2.0', id: 2, result: {} },
  ]);
  assert.is(initialized, 1);
  assert.is(rootsChanged, 0);
  assert.not.ok(peer.closed);
});

test('004 notifications: a client writes nothing back for unknown or odd notifications and stays usable', async () => {
  const seen: unknown[] = [];
  const { w, peer, errors } = await start('client', {
    notificationHandlers: { 'notifications/tools/list_changed': (p) => void seen.push(p) },
  });
  await w.send({ jsonrpc: '2.0', method: 'notifications/x-example/unknown' });
  await w.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { bogus: true } });
  await w.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 5 } });
  await settle();
  assert.equal(w.received, []);
  assert.equal(seen, [{ bogus: true }]);
  assert.equal(errors, []);
  const ping = peer.request('ping');
  const req = await w.next();
  await w.send({ jsonrpc: '2.0', id: req.id, result: {} });
  assert.equal(await ping, {});
});

test('010 unknown method: unknown and undeclared-capability methods get -32601; omitted params are fine', async () => {
  const { w, peer } = await start('server', {
    capabilities: { tools: {} },
    requestHandlers: { 'tools/list': () => ({ tools: [] }), 'prompts/list': () => ({ prompts: [] }) },
  });
  await w.send({ jsonrpc: '2.0', id: 'q-501', method: 'example/does-not-exist', params: {} });
  await w.send({ jsonrpc: '2.0', id: 'q-502', method: 'prompts/list', params: {} });
  await w.send({ jsonrpc: '2.0', id: 'q-503', method: 'tools/list' });
  await w.send({ jsonrpc: '2.0', id: 'q-504', method: 'tools/call', params: { name: 'x' } }); // in the table, no handler
  await w.send({ jsonrpc: '2.0', id: 'q-505', method: 'constructor' });
  await settle();
  const byId = Object.fromEntries(w.received.map((m) => [m.id, m]));
  assert.is(w.received.length, 5);
  assert.is(byId['q-501'].error.code, -32601);
  assert.is(byId['q-502'].error.code, -32601);
  assert.equal(byId['q-503'].result, { tools: [] });
  assert.is(byId['q-504'].error.code, -32601);
  assert.is(byId['q-505'].error.code, -32601);
  // once the capability is declared the method is served
  peer.setCapabilities({ tools: {}, prompts: { listChanged: false } });
  await w.send({ jsonrpc: '2.0', id: 'q-506', method: 'prompts/list' });
  assert.equal(
    (await w.next(), await w.next(), await w.next(), await w.next(), await w.next(), await w.next()).result,
    { prompts: [] },
  );
});

test('010 unknown method: a custom canHandle hook decides, and a client gates server→client requests too', async () => {
  const { w } = await start('client', {
    capabilities: {},
    requestHandlers: { 'roots/list': () => ({ roots: [{ uri: 'file:///tmp' }] }) },
  });
  await w.send({ jsonrpc: '2.0', id: 1, method: 'roots/list' });
  assert.is((await w.next()).error.code, -32601);
  const s = await start('server', {
    capabilities: {},
    canHandle: (entry) => entry.method === 'tools/list',
    requestHandlers: { 'tools/list': () => ({ tools: [] }), 'prompts/list': () => ({ prompts: [] }) },
  });
  await s.w.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  await s.w.send({ jsonrpc: '2.0', id: 2, method: 'prompts/list' });
  assert.equal((await s.w.next()).result, { tools: [] });
  assert.is((await s.w.next()).error.code, -32601);
  assert.ok(hasCapability({ resources: { subscribe: true } }, ['resources', 'subscribe']));
  assert.not.ok(hasCapability({ resources: { subscribe: false } }, ['resources', 'subscribe']));
  assert.not.ok(hasCapability({ resources: true }, ['resources', 'subscribe']));
});

test('pre-dispatch hook: the lifecycle layer can refuse requests before initialization', async () => {
  let ready = false;
  const { w } = await start('server', {
    requestHandlers: { initialize: () => ((ready = true), initResult), 'tools/list': () => ({ tools: [] }) },
    preDispatch: (req) =>
      ready || req.method === 'initialize' || req.method === 'ping'
        ? undefined
        : new RpcError(-32600, 'Not initialized'),
  });
  await w.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  await w.send({ jsonrpc: '2.0', id: 2, method: 'initialize', params: initParams });
  await w.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
  await settle();
  assert.equal(
    w.received.map((m) => m.error?.message ?? Object.keys(m.result)[0]),
    ['Not initialized', 'protocolVersion', 'tools'],
  );
  // a throwing hook is a server fault: -32603, and the peer keeps serving
  const t = await start('server', {
    preDispatch: (req) => {
      if (req.id === 1) throw new Error('hook bug');
      return undefined;
    },
  });
  await t.w.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  await t.w.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
  await settle();
  assert.equal(t.w.received, [
    { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } },
    { jsonrpc: '2.0', id: 2, result: {} },
  ]);
  assert.ok(t.logger.entries.some((e) => e.level === 'error' && e.data?.error === 'hook bug'));
});

test('inbound params: -32602 with data listing each validation error by path; required params enforced', async () => {
  let calls = 0;
  const { w } = await start('server', { requestHandlers: { 'tools/call': () => (calls++, { content: [] }) } });
  await w.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 5, arguments: 'x' } });
  await w.send({ jsonrpc: '2.0', id: 2, method: 'tools/call' });
  const a = await w.next();
  const b = await w.next();
  assert.is(a.error.code, -32602);
  assert.equal(a.error.data.errors.map((e: Msg) => e.path).sort(), ['/arguments', '/name']);
  assert.match(a.error.message, /tools\/call/);
  assert.is(b.error.code, -32602);
  assert.is(b.error.data.errors[0].message, 'params are required');
  assert.is(calls, 0);
});

test('inbound results: RpcError passes through, other throws become -32603 naming the handler (not the error), invalid results -32603', async () => {
  const { w, logger } = await start('server', {
    requestHandlers: {
      'tools/call': (p: { name: string }) => {
        if (p.name === 'rpc') throw new RpcError(-32042, 'needs elicitation', { elicitations: [] });
        if (p.name === 'boom') throw new Error('secret at /home/x/db.ts:12');
        if (p.name === 'bad') return { content: 'nope' };
        if (p.name === 'scalar') return 42;
        return undefined;
      },
    },
  });
  for (const [id, name] of [
    [1, 'rpc'],
    [2, 'boom'],
    [3, 'bad'],
    [4, 'scalar'],
    [5, 'empty'],
  ] as const) {
    await w.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });
  }
  await settle();
  const byId = Object.fromEntries(w.received.map((m) => [m.id, m]));
  assert.equal(byId[1].error, { code: -32042, message: 'needs elicitation', data: { elicitations: [] } });
  assert.equal(byId[2].error, { code: -32603, message: 'Internal error: tool boom failed' });
  assert.not.ok(JSON.stringify(w.received).includes('secret'));
  // the error is in the log, with the handler's name and the stack
  const failed = logger.entries.find((e) => e.message === 'request handler failed');
  assert.equal(
    [failed?.level, failed?.data?.handler, failed?.data?.error],
    ['error', 'tool boom', 'secret at /home/x/db.ts:12'],
  );
  assert.match(String(failed?.data?.stack), 'secret at /home/x/db.ts:12');
  assert.equal(byId[3].error, {
    code: -32603,
    message: 'Internal error: tool bad returned a result that is not a valid tools/call result',
  });
  assert.equal(byId[4].error, {
    code: -32603,
    message: 'Internal error: the tools/call handler returned a number, not a result object',
    data: { returned: 'a number' },
  });
  assert.equal(
    byId[5].error,
    {
      code: -32603,
      message: 'Internal error: the tools/call handler returned undefined, not a result object',
      data: { returned: 'undefined' },
    },
    '{} lacks content',
  );
  const schemaLog = logger.entries.find((e) => e.level === 'error' && e.message.includes('result schema'));
  assert.equal((schemaLog!.data!.errors as Msg[])[0].path, '/content');
});

test('outbound results: a result failing the schema rejects with InvalidResultError naming the path; can be turned off', async () => {
  const { peer, w } = await start('client');
  const bad = peer.request('tools/list');
  await w.send({ jsonrpc: '2.0', id: (await w.next()).id, result: { tools: 'x' } });
  try {
    await bad;
    assert.unreachable();
  } catch (e) {
    assert.instance(e, InvalidResultError);
    assert.match((e as Error).message, /tools\/list: \/tools must be array/);
  }
  const lax = peer.request('tools/list', undefined, { validateResult: false });
  await w.send({ jsonrpc: '2.0', id: (await w.next()).id, result: { tools: 'x' } });
  assert.equal(await lax, { tools: 'x' });
  const failed = peer.request('ping');
  await w.send({
    jsonrpc: '2.0',
    id: (await w.next()).id,
    error: { code: -32601, message: 'Method not found', data: { m: 1 } },
  });
  try {
    await failed;
    assert.unreachable();
  } catch (e) {
    assert.instance(e, RpcError);
    assert.equal((e as RpcError).toJSON(), { code: -32601, message: 'Method not found', data: { m: 1 } });
  }
});

test('malformed responses: a readable id fails that pending request at once; an id-less error is only logged', async () => {
  const { peer, w, logger } = await start('client');
  const p = peer.request('ping');
  const req = await w.next();
  await w.send({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } });
  await w.send({ jsonrpc: '2.0', id: req.id, error: { code: 'bad' } });
  try {
    await p;
    assert.unreachable();
  } catch (e) {
    assert.is((e as RpcError).code, -32603);
  }
  assert.ok(logger.entries.some((e) => e.message === 'error response without id'));
  assert.equal(w.received.length, 1, 'malformed responses are never answered');
});

test('close: pending requests reject with ConnectionClosedError carrying the cause; later requests reject too', async () => {
  const closes: Array<Error | undefined> = [];
  const { peer, w } = await start('client', { onClose: (e) => closes.push(e) });
  const p = peer.request('ping');
  await w.next();
  w.transport.closeWith(new Error('truncated frame'));
  try {
    await p;
    assert.unreachable();
  } catch (e) {
    assert.instance(e, ConnectionClosedError);
    assert.is(((e as Error).cause as Error).message, 'truncated frame');
    assert.is((e as RpcError).code, ErrorCode.ConnectionClosed);
  }
  assert.ok(peer.closed);
  assert.equal(
    closes.map((e) => e?.message),
    ['truncated frame'],
  );
  try {
    await peer.request('ping');
    assert.unreachable();
  } catch (e) {
    assert.instance(e, ConnectionClosedError);
  }
});

test('property: arbitrary JSON from the other side never crashes the peer; valid-id requests get at most one answer', async () => {
  const anyMessage = fc.oneof(
    fc.jsonValue(),
    fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue()),
        id: fc.oneof(fc.integer(), fc.string(), fc.jsonValue()),
        method: fc.oneof(
          fc.constantFrom(
            'ping',
            'tools/call',
            'tools/list',
            'initialize',
            'notifications/cancelled',
            'notifications/progress',
          ),
          fc.string(),
        ),
        params: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue()),
        result: fc.jsonValue(),
        error: fc.jsonValue(),
      },
      { requiredKeys: [] },
    ),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(anyMessage, { maxLength: 20 }), async (msgs) => {
      const { w, peer } = await start('server', {
        capabilities: { tools: {} },
        requestHandlers: {
          'tools/call': () => ({ content: [] }),
          'tools/list': () => ({ tools: [] }),
          initialize: () => initResult,
        },
      });
      for (const m of msgs) await w.send(m);
      await w.send({ jsonrpc: '2.0', id: 'final', method: 'ping' });
      await settle();
      assert.not.ok(peer.closed);
      const counts = new Map<unknown, number>();
      for (const m of w.received) if ('id' in m) counts.set(m.id, (counts.get(m.id) ?? 0) + 1);
      const sentIds = msgs
        .filter((m): m is Msg => typeof m === 'object' && m !== null && 'method' in m && 'id' in m)
        .map((m) => m.id);
      for (const [id, n] of counts)
        if (sentIds.filter((s) => s === id).length <= 1 && id !== 'final')
          assert.ok(n <= 1, `id ${String(id)} answered ${n} times`);
      assert.equal(
        w.received.filter((m) => m.id === 'final').map((m) => m.result),
        [{}],
      );
      await peer.close();
    }),
    { numRuns: 200 },
  );
});

test.run();
