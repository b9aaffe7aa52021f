import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decimal } from '../../../runtime/jsonrpc/decimal.js';

test('decimal(n) is String(n), at the edges of its three-digit groups and beyond its range', () => {
  const edges = [
    0,
    1,
    7,
    10,
    99,
    100,
    999,
    1000,
    1001,
    1009,
    1010,
    1099,
    1100,
    1999,
    2000,
    9999,
    10000,
    10001,
    100000,
    100099,
    123456,
    999999,
    1000000,
    1000001,
    2 ** 31 - 2,
    2 ** 31 - 1,
    2 ** 31,
    2 ** 32,
    2 ** 53 - 1,
    2 ** 53,
    1e21,
  ];
  for (const n of edges) {
    assert.is(decimal(n), String(n), `${n}`);
    assert.is(decimal(-n), String(-n), `${-n}`);
  }
  for (const n of [-0, 0.5, 1000.5, 1e-7, 12345.000001, NaN, Infinity, -Infinity])
    assert.is(decimal(n), String(n), `${n}`);
});

test('decimal(n) is String(n) for integers all over its range', () => {
  let x = 12345;
  for (let i = 0; i < 20000; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0; // a fixed sequence, the same on every run
    const n = i % 2 === 0 ? x % 2 ** 31 : x % 5_000_000;
    assert.is(decimal(n), String(n));
  }
  for (let n = 990; n < 3100; n++) assert.is(decimal(n), String(n));
});

test.run();
