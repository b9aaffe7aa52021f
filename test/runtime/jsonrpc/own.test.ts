/**
 * withOwn (runtime/jsonrpc/own.ts): the same object as `{ ...source, [key]: value }`: own
 * enumerable properties in order (integer keys first, then strings, then symbols), the key last
 * unless the source had it (then in its place), an own `"__proto__"` copied as a property, the
 * prototype untouched, inherited and non-enumerable properties left out, the source unchanged.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { withOwn } from '../../../runtime/jsonrpc/own.js';

const same = (a: object, b: object): void => {
  assert.equal(Reflect.ownKeys(a), Reflect.ownKeys(b));
  for (const k of Reflect.ownKeys(b))
    assert.is((a as Record<PropertyKey, unknown>)[k], (b as Record<PropertyKey, unknown>)[k]);
  assert.is(Object.getPrototypeOf(a), Object.getPrototypeOf(b));
  assert.is(JSON.stringify(a), JSON.stringify(b));
};

test('withOwn: as the spread, for plain, keyed and odd sources', () => {
  const s = Symbol('s');
  const hidden = Symbol('hidden');
  const inherited = Object.create({ inherited: 1 }) as Record<PropertyKey, unknown>;
  inherited.b = 2;
  inherited[2] = 'two';
  inherited.a = 1;
  inherited[s] = 'sym';
  Object.defineProperty(inherited, 'ne', { value: 1, enumerable: false });
  Object.defineProperty(inherited, hidden, { value: 1, enumerable: false });
  const sources: Array<Record<PropertyKey, unknown> | undefined> = [
    { name: 'echo', arguments: { text: 'x' } },
    { name: 'echo', _meta: { old: true }, arguments: {} },
    JSON.parse('{"__proto__": {"polluted": true}, "x": 1}'),
    inherited,
    {},
    undefined,
  ];
  for (const source of sources) {
    const before = source === undefined ? undefined : JSON.stringify(source);
    const got = withOwn(source, '_meta', { v: 1 });
    same(got, { ...source, _meta: (got as Record<string, unknown>)._meta });
    assert.equal((got as Record<string, unknown>)._meta, { v: 1 });
    assert.is(source === undefined ? undefined : JSON.stringify(source), before);
    assert.is.not(got, source);
  }
  const proto = withOwn(JSON.parse('{"__proto__": 1}'), 'x', 2) as Record<string, unknown>;
  assert.is(Object.getPrototypeOf(proto), Object.prototype);
  assert.ok(Object.hasOwn(proto, '__proto__'));
  const keyProto = withOwn({ a: 1 }, '__proto__', { polluted: true }) as Record<string, unknown>;
  assert.is(Object.getPrototypeOf(keyProto), Object.prototype);
  assert.equal(Object.keys(keyProto), ['a', '__proto__']);
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

test.run();
