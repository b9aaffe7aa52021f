/**
 * Nested numbers schema.json narrows to integer where schema.ts allows any number
 * (generator/overrides.ts WIDEN_NESTED_NUMBERS): an elicitation answer may carry 95.5.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validators as v0618 } from '../../generated/2025-06-18/index.js';
import { validators as v1125 } from '../../generated/2025-11-25/index.js';

for (const [rev, validators] of [['2025-06-18', v0618], ['2025-11-25', v1125]] as const) {
  test(`${rev}: ElicitResult content accepts non-integer numbers, still refuses objects`, () => {
    const check = validators.ElicitResult as unknown as (x: unknown) => boolean;
    assert.ok(check({ action: 'accept', content: { score: 95.5, age: 30, name: 'a', ok: true } }));
    assert.not.ok(check({ action: 'accept', content: { score: { x: 1 } } }));
  });
}

test('ids and progress tokens stay integer-or-string', () => {
  const check = v1125.JSONRPCRequest as unknown as (x: unknown) => boolean;
  assert.ok(check({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  assert.not.ok(check({ jsonrpc: '2.0', id: 1.5, method: 'ping' }));
});

test.run();
