/**
 * Nested value unions schema.json narrows to integer where schema.ts allows any number
 * (ingest compares every property with schema.ts): an elicitation answer may carry 95.5, while
 * deliberate integers (sizes, codes, ms) stay integer.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validators as v0618 } from '../../generated/2025-06-18/index.js';
import { validators as v1125 } from '../../generated/2025-11-25/index.js';

for (const [rev, validators] of [
  ['2025-06-18', v0618],
  ['2025-11-25', v1125],
] as const) {
  test(`${rev}: ElicitResult content accepts non-integer numbers, still refuses objects`, () => {
    const check = validators.ElicitResult as unknown as (x: unknown) => boolean;
    assert.ok(check({ action: 'accept', content: { score: 95.5, age: 30, name: 'a', ok: true } }));
    assert.not.ok(check({ action: 'accept', content: { score: { x: 1 } } }));
  });
}

test('deliberate integers stay integer: error codes, sizes, maxTokens', () => {
  const err = v1125.JSONRPCErrorResponse as unknown as (x: unknown) => boolean;
  assert.ok(err({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'x' } }));
  assert.not.ok(err({ jsonrpc: '2.0', id: 1, error: { code: -32600.5, message: 'x' } }));
  const res = v1125.Resource as unknown as (x: unknown) => boolean;
  assert.ok(res({ uri: 'file:///a', name: 'a', size: 10 }));
  assert.not.ok(res({ uri: 'file:///a', name: 'a', size: 10.5 }));
});

test('ids and progress tokens stay integer-or-string', () => {
  const check = v1125.JSONRPCRequest as unknown as (x: unknown) => boolean;
  assert.ok(check({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  assert.not.ok(check({ jsonrpc: '2.0', id: 1.5, method: 'ping' }));
});

test.run();
