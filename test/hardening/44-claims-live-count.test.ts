/**
 * Issue 44, request replay: the bound on a session's request claims counts the requests in
 * flight only. A finished request's claim is kept (`ttlMs`, for its re-sends) but holds no
 * slot, so that a session that ran many requests is not refused "too many requests in flight"
 * for the claims' lifetime; requests still running are bounded as before. Memory event store.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClaimLimitError } from '../../runtime/stores/events.js';
import { MemoryEventStore } from '../../runtime/stores/events-memory.js';

test('memory store: finished requests hold no claim slot; running ones are bounded by maxClaims', () => {
  let now = 0;
  const store = new MemoryEventStore({ ttlMs: 60_000, maxClaims: 2, now: () => now });
  // five requests one after another, each finished before the next: none is refused
  for (let i = 1; i <= 5; i++) {
    const primed = store.storeEvent('s', `a.${i}`, null);
    assert.is(store.claimRequest('s', `k${i}`, `d ${primed}`, `a.${i}`), undefined, `request ${i} claimed`);
    now += 10;
    store.streamFinished('s', `a.${i}`);
  }
  // their claims are kept for re-sends
  assert.is(typeof store.claimRequest('s', 'k1', 'other', 'a.9'), 'string', 'a finished claim still answers');
  // two running: a third is refused, nothing claimed
  const p6 = store.storeEvent('s', 'a.6', null);
  const p7 = store.storeEvent('s', 'a.7', null);
  assert.is(store.claimRequest('s', 'k6', `d ${p6}`, 'a.6'), undefined);
  assert.is(store.claimRequest('s', 'k7', `d ${p7}`, 'a.7'), undefined);
  const p8 = store.storeEvent('s', 'a.8', null);
  assert.throws(
    () => store.claimRequest('s', 'k8', `d ${p8}`, 'a.8'),
    (e: Error) => e instanceof ClaimLimitError,
  );
  // one finishes: room again
  store.streamFinished('s', 'a.6');
  assert.is(store.claimRequest('s', 'k8', `d ${p8}`, 'a.8'), undefined);
  // a session cleared and begun again starts with no live claim
  store.clear('s');
  const q1 = store.storeEvent('s', 'b.1', null);
  const q2 = store.storeEvent('s', 'b.2', null);
  assert.is(store.claimRequest('s', 'm1', `d ${q1}`, 'b.1'), undefined);
  assert.is(store.claimRequest('s', 'm2', `d ${q2}`, 'b.2'), undefined);
});

test.run();
