import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemorySessionRegistry } from '../../../../../runtime/transport/http/session/registry.js';

/** `a`, `b`, `c` added in that order, with the values `A`, `B`, `C`. */
function abc(): MemorySessionRegistry<string> {
  return new MemorySessionRegistry<string>().set('a', 'A').set('b', 'B').set('c', 'C');
}

test('sessions are held by id, least recently used first', () => {
  const r = abc();
  assert.is(r.size, 3);
  assert.is(r.get('b'), 'B');
  assert.is(r.get('d'), undefined);
  assert.ok(r.has('c'));
  assert.not.ok(r.has('d'));
  assert.equal([...r.keys()], ['a', 'b', 'c']);
  assert.equal([...r.values()], ['A', 'B', 'C']);
  assert.equal(
    [...r],
    [
      ['a', 'A'],
      ['b', 'B'],
      ['c', 'C'],
    ],
  );
  assert.is(String(r), '[object MemorySessionRegistry]');
});

test('touch moves a session to the end; an unknown id changes nothing', () => {
  const r = abc();
  r.touch('a');
  assert.equal([...r.keys()], ['b', 'c', 'a']);
  r.touch('c');
  assert.equal([...r.keys()], ['b', 'a', 'c']);
  r.touch('c'); // already the most recent
  assert.equal([...r.keys()], ['b', 'a', 'c']);
  r.touch('b');
  r.touch('nobody');
  assert.equal([...r.keys()], ['a', 'c', 'b']);
  assert.is(r.size, 3);
  // forEach walks the same order, with its thisArg and the registry as its third argument
  const seen: string[] = [];
  r.forEach(
    function (this: { tag: string }, value, key, map) {
      assert.is(map, r);
      seen.push(`${this.tag}${key}=${value}`);
    },
    { tag: '#' },
  );
  assert.equal(seen, ['#a=A', '#c=C', '#b=B']);
});

test('set of a held id replaces its session and makes it the most recent; delete unlinks it', () => {
  const r = abc();
  r.set('a', 'A2');
  assert.equal(
    [...r],
    [
      ['b', 'B'],
      ['c', 'C'],
      ['a', 'A2'],
    ],
  );
  assert.is(r.size, 3);
  assert.ok(r.delete('c'));
  assert.not.ok(r.delete('c'));
  assert.equal([...r.keys()], ['b', 'a']);
  assert.ok(r.delete('a')); // the last one
  assert.ok(r.delete('b')); // the first one
  assert.equal([...r.keys()], []);
  assert.is(r.size, 0);
  r.set('c', 'C3').set('a', 'A3');
  r.touch('c');
  assert.equal(
    [...r],
    [
      ['a', 'A3'],
      ['c', 'C3'],
    ],
  );
});

test('an iteration runs over the sessions held when it began, less those deleted since', () => {
  const r = abc().set('d', 'D');
  const visited: string[] = [];
  for (const [key] of r) {
    visited.push(key);
    if (key === 'a') {
      r.delete('b'); // not visited
      r.touch('c'); // visited once, in its old place
      r.set('e', 'E'); // added since: not visited
    }
  }
  assert.equal(visited, ['a', 'c', 'd']);
  assert.equal([...r.keys()], ['a', 'd', 'c', 'e']);
  // deleted and set again while iterating: a new entry, not visited
  const again: string[] = [];
  for (const key of r.keys()) {
    again.push(key);
    if (key === 'a') {
      r.delete('d');
      r.set('d', 'D2');
    }
  }
  assert.equal(again, ['a', 'c', 'e']);
  assert.equal([...r.values()], ['A', 'C', 'E', 'D2']);
});

test('many touches keep the order of the last touch of each id', () => {
  const r = new MemorySessionRegistry<number>();
  for (let i = 0; i < 50; i++) r.set(`s${i}`, i);
  // touch in a scrambled order, several times each
  const last = new Map<string, number>();
  for (let n = 0; n < 1000; n++) {
    const id = `s${(n * 37) % 50}`;
    if (n % 7 === 0) r.touch(id);
    else continue;
    last.set(id, n);
  }
  const untouched = [...Array(50).keys()].map((i) => `s${i}`).filter((id) => !last.has(id));
  const touched = [...last.entries()].sort((x, y) => x[1] - y[1]).map(([id]) => id);
  assert.equal([...r.keys()], [...untouched, ...touched]);
  assert.is(r.size, 50);
});

test.run();
