import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import {
  classify,
  createIdAllocator,
  errorResponse,
  isErrorResponse,
  isNotification,
  isRequest,
  isRequestId,
  isResultResponse,
  kindOf,
  parseErrorResponse,
} from '../../../runtime/jsonrpc/message.js';

test('002 ids: strings and integers (0 and "" included) are ids; null, fractions, booleans, objects are not', () => {
  for (const id of [0, -1, 73, '0', '', 'probe-7f', Number.MAX_SAFE_INTEGER]) assert.ok(isRequestId(id), String(id));
  for (const id of [null, undefined, 1.5, NaN, Infinity, true, false, { n: 1 }, [1]])
    assert.not.ok(isRequestId(id), String(id));
});

test('002 ids: a request with id 0 or "" is a request, never a notification', () => {
  assert.is(kindOf({ jsonrpc: '2.0', id: 0, method: 'ping' }), 'request');
  assert.is(kindOf({ jsonrpc: '2.0', id: '', method: 'ping' }), 'request');
  const c = classify({ jsonrpc: '2.0', id: 0, method: 'ping' });
  assert.is(c.kind, 'request');
  assert.is((c as { message: { id: unknown } }).message.id, 0);
});

test('002 ids: unreadable ids get -32600 with no id member and are never notifications', () => {
  for (const id of [null, 1.5, true, { n: 1 }]) {
    const c = classify({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
    assert.is(c.kind, 'invalid');
    if (c.kind !== 'invalid') return;
    assert.ok(c.reply, `reply for id ${JSON.stringify(id)}`);
    assert.is(c.reply!.error.code, -32600);
    assert.not.ok('id' in c.reply!, 'no id member');
  }
});

test('002 ids: a readable id in an otherwise invalid request is echoed with its type', () => {
  // by-position params: a valid JSON-RPC request, invalid params for MCP (-32602)
  const cases: Array<[unknown, unknown, number]> = [
    [{ jsonrpc: '1.0', id: '7', method: 'ping' }, '7', -32600],
    [{ jsonrpc: '2.0', id: 7, method: 'ping', params: [1, 2] }, 7, -32602],
    [{ jsonrpc: '2.0', id: 0, method: 5 }, 0, -32600],
    [{ id: 'x', method: 'ping' }, 'x', -32600],
  ];
  for (const [m, id, code] of cases) {
    const c = classify(m);
    assert.is(c.kind, 'invalid');
    if (c.kind === 'invalid') {
      assert.is(c.reply?.id, id);
      assert.is(c.reply?.error.code, code);
    }
  }
});

test('004 notifications: malformed notifications get no reply at all', () => {
  for (const m of [
    { jsonrpc: '2.0', method: 'notifications/roots/list_changed', params: 'not-an-object' },
    { jsonrpc: '2.0', method: 'notifications/x', params: [1] },
    { jsonrpc: '1.0', method: 'notifications/x' },
  ]) {
    const c = classify(m);
    assert.is(c.kind, 'invalid');
    assert.is((c as { reply?: unknown }).reply, undefined);
  }
  assert.ok(isNotification({ jsonrpc: '2.0', method: 'notifications/x-example/unknown', params: { a: 1 } }));
  assert.not.ok(isNotification({ jsonrpc: '2.0', id: 'n1', method: 'notifications/initialized' }));
  assert.ok(isRequest({ jsonrpc: '2.0', id: 'n1', method: 'notifications/initialized' }));
});

test('responses: results need an object result and an id; error ids may be absent or null', () => {
  assert.ok(isResultResponse({ jsonrpc: '2.0', id: 0, result: {} }));
  assert.not.ok(isResultResponse({ jsonrpc: '2.0', id: 0, result: 5 }));
  assert.not.ok(isResultResponse({ jsonrpc: '2.0', result: {} }));
  assert.ok(isErrorResponse({ jsonrpc: '2.0', error: { code: -32700, message: 'x' } }));
  assert.ok(isErrorResponse({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'x' } }));
  assert.ok(isErrorResponse({ jsonrpc: '2.0', id: 'a', error: { code: 0, message: 'Request cancelled' } }));
  assert.not.ok(isErrorResponse({ jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'x' } }));
  assert.not.ok(kindOf({ jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } }));
});

test('malformed responses are never answered; a readable id is reported for correlation', () => {
  const c = classify({ jsonrpc: '2.0', id: 4, error: { code: 'x' } });
  assert.equal(c, { kind: 'invalid', reason: 'jsonrpc, id, result or error is not valid', responseId: 4 });
  const d = classify({ jsonrpc: '2.0', id: null, result: {} });
  assert.equal(d, { kind: 'invalid', reason: 'jsonrpc, id, result or error is not valid' });
  const both = classify({ jsonrpc: '2.0', id: 5, result: {}, error: { code: 1, message: 'x' } });
  assert.equal(both, { kind: 'invalid', reason: 'a response has either result or error', responseId: 5 });
});

test('an id with no method, result or error gets -32600 without id; a readable id is reported too', () => {
  for (const [v, responseId] of [
    [{ jsonrpc: '2.0', id: 8 }, 8],
    [{ jsonrpc: '2.0', id: 'x', params: {} }, 'x'],
    [{ id: null }, undefined],
  ] as const) {
    const c = classify(v);
    assert.is(c.kind, 'invalid');
    if (c.kind !== 'invalid') continue;
    assert.is(c.reply?.error.code, -32600, JSON.stringify(v));
    assert.not.ok('id' in c.reply!);
    assert.is(c.responseId, responseId);
  }
});

test('batches, scalars and empty objects get -32600 with no id', () => {
  for (const v of [[], [{ jsonrpc: '2.0', id: 1, method: 'ping' }], 5, 'x', null, true, {}]) {
    const c = classify(v);
    assert.is(c.kind, 'invalid');
    if (c.kind === 'invalid') {
      assert.is(c.reply?.error.code, -32600);
      assert.not.ok('id' in c.reply!);
    }
  }
});

test('builders: parse error has no id; error data only when given; ids count from 0', () => {
  assert.equal(parseErrorResponse(), { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } });
  assert.not.ok('id' in parseErrorResponse('x'), 'no id member: the MCP schema form, never null');
  assert.equal(errorResponse('a', -32601, 'Method not found'), {
    jsonrpc: '2.0',
    id: 'a',
    error: { code: -32601, message: 'Method not found' },
  });
  assert.equal(errorResponse(0, 1, 'm', { x: 1 }).error.data, { x: 1 });
  const next = createIdAllocator();
  assert.equal([next(), next(), next()], [0, 1, 2]);
});

test('property: classify never throws, and every reply is a well-formed error response', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.anything(),
        fc.record(
          { jsonrpc: fc.constant('2.0'), id: fc.anything(), method: fc.anything(), params: fc.anything() },
          { requiredKeys: [] },
        ),
      ),
      (v) => {
        const c = classify(v);
        if (c.kind === 'invalid' && c.reply) {
          assert.is(kindOf(c.reply), 'error');
        } else if (c.kind !== 'invalid') {
          assert.is(kindOf(v), c.kind);
        }
      },
    ),
    { numRuns: 2000 },
  );
});

test.run();
