import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FewMap, FewSet } from '../../../runtime/jsonrpc/few.js';

test('FewMap: one entry, then several, then one again, answers as a Map does', () => {
  const few = new FewMap<string | number, string>();
  const map = new Map<string | number, string>();
  const both = (f: (m: FewMap<string | number, string> | Map<string | number, string>) => unknown) =>
    assert.equal(f(few), f(map));
  const steps: Array<[string, string | number, string?]> = [
    ['set', 'a', '1'],
    ['set', 'a', '2'],
    ['set', 1, 'n'],
    ['set', '1', 's'],
    ['delete', 'a'],
    ['set', 'b', '3'],
    ['delete', 1],
    ['delete', 'zz'],
    ['delete', '1'],
    ['delete', 'b'],
    ['set', NaN, 'nan'],
    ['set', 'c', '4'],
  ];
  for (const [op, key, value] of steps) {
    if (op === 'set') {
      few.set(key, value!);
      map.set(key, value!);
    } else assert.is(few.delete(key), map.delete(key), `delete ${String(key)}`);
    both((m) => m.size);
    for (const k of ['a', 1, '1', 'b', 'c', 'zz', NaN]) {
      both((m) => m.get(k));
      both((m) => m.has(k));
    }
    both((m) => [...m.values()].sort());
  }
  assert.is(few.get(NaN), 'nan', 'NaN is a key as in a Map');
});

test('FewMap: the lone entry comes first in values(), then the others in the order they were added', () => {
  const few = new FewMap<string, number>();
  few.set('x', 1).set('y', 2).set('z', 3);
  assert.equal([...few.values()], [1, 2, 3]);
  few.delete('x');
  few.set('w', 4); // the lone slot is free: w takes it
  assert.equal([...few.values()], [4, 2, 3]);
});

test('FewSet: one value, then several, then one again, answers as a Set does', () => {
  const few = new FewSet<string | number>();
  const set = new Set<string | number>();
  const both = (f: (m: FewSet<string | number> | Set<string | number>) => unknown) => assert.equal(f(few), f(set));
  const steps: Array<[string, string | number]> = [
    ['add', 'a'],
    ['add', 'a'],
    ['add', 1],
    ['add', '1'],
    ['delete', 'a'],
    ['add', 'b'],
    ['delete', 1],
    ['delete', 'zz'],
    ['delete', '1'],
    ['delete', 'b'],
    ['add', NaN],
    ['add', 'c'],
    ['clear', ''],
    ['add', 'd'],
  ];
  for (const [op, value] of steps) {
    if (op === 'add') {
      few.add(value);
      set.add(value);
    } else if (op === 'clear') {
      few.clear();
      set.clear();
    } else assert.is(few.delete(value), set.delete(value), `delete ${String(value)}`);
    both((m) => m.size);
    for (const v of ['a', 1, '1', 'b', 'c', 'd', 'zz', NaN]) both((m) => m.has(v));
    both((m) => [...m].map(String).sort());
  }
});

test('FewSet: the lone value comes first, then the others in the order they were added', () => {
  const few = new FewSet<string>();
  few.add('x').add('y').add('z');
  assert.equal([...few], ['x', 'y', 'z']);
  few.delete('x');
  few.add('w');
  assert.equal([...few], ['w', 'y', 'z']);
});

test.run();
