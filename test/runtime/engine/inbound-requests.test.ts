/**
 * InboundRequests (runtime/engine/cancellation.ts): the one request in flight is held apart from
 * the id Map, and the set behaves the same as one Map of every request in flight, whatever the
 * order of begins and ends (ids compare by type and value).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InboundRequests } from '../../../runtime/engine/cancellation.js';

test('one, then two, then one again: has, size, end and cancel find each request by its id', () => {
  const set = new InboundRequests();
  const a = set.begin(1, 'tools/call');
  assert.ok(set.has(1));
  assert.not.ok(set.has('1'), 'a string id is another id');
  assert.is(set.size, 1);
  const b = set.begin('1', 'ping');
  assert.is(set.size, 2);
  assert.ok(set.has(1) && set.has('1'));
  set.end(a);
  assert.ok(a.finished);
  assert.not.ok(set.has(1));
  assert.is(set.size, 1);
  assert.ok(set.cancel('1', 'stop'));
  assert.ok(b.cancelled);
  assert.not.ok(set.cancel(1, 'stop'), 'an ended request is not cancelled');
  set.end(b);
  assert.is(set.size, 0);
  const c = set.begin(2n, 'ping');
  assert.ok(set.has(2n));
  assert.not.ok(set.has(2), 'a bigint id is not the number');
  set.end(c);
  assert.is(set.size, 0);
  assert.not.ok(set.has(2n));
});

test('ending a request that is not the current holder of its id leaves the holder', () => {
  const set = new InboundRequests();
  const first = set.begin(7, 'ping');
  set.end(first);
  const second = set.begin(7, 'ping');
  set.end(first);
  assert.ok(set.has(7), 'the second request with id 7 is still in flight');
  assert.not.ok(second.finished);
  const other = set.begin(8, 'ping');
  set.end(first);
  assert.ok(set.has(7) && set.has(8));
  set.end(second);
  set.end(other);
  assert.is(set.size, 0);
});

test('cancelAll cancels the lone request and every one of several', () => {
  const lone = new InboundRequests();
  const r = lone.begin(1, 'ping');
  lone.cancelAll('closed');
  assert.ok(r.cancelled);
  assert.is(lone.size, 0);
  const many = new InboundRequests();
  const all = [1, 2, 3].map((id) => many.begin(id, 'ping'));
  many.cancelAll('closed');
  assert.ok(all.every((x) => x.cancelled));
  assert.is(many.size, 0);
  assert.not.ok(many.has(2));
});

test.run();
