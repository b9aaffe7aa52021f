/**
 * Issue 44's chaos test, short form (`npm run chaos` is the full run, scripts/chaos.ts): a real
 * redis-server with its append-only file, three processes of one deployment behind a resetting
 * round-robin proxy, sessions of the runtime's client calling a tool that records each execution
 * (./chaos.ts). A Redis restart loses no call (the client's retries); under resets, a kill -9 and
 * a 10-s Redis pause no call runs twice, no result is crossed, every call the client was told did
 * not run did not, every result ran once, no call hangs, and the only calls lost without being
 * told "not run" are those whose process was killed (-32000 "ended before answering").
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runChaos } from './chaos.js';

test('chaos: Redis restart loses 0; resets, kill -9 and a 10-s Redis pause: 0 duplicate, 0 crossed, no hang', async () => {
  const { restart, chaos, resets } = await runChaos({
    sessions: 6,
    calls: 8,
    steps: 4,
    stepMs: 100,
    resetsPerSecond: 4,
    pauseMs: 10_000,
    callTimeoutMs: 60_000,
  });
  const seen = JSON.stringify({ restart, chaos, resets });
  assert.is(restart.sessionsLost, 0, seen);
  assert.is(restart.calls, 6 * 8, seen);
  assert.is(restart.ok, restart.calls, `a Redis restart lost calls: ${seen}`);
  for (const f of [restart, chaos]) {
    assert.is(f.duplicates, 0, seen);
    assert.is(f.crossed, 0, seen);
    assert.is(f.contradictions, 0, seen);
    assert.is(f.other, 0, seen);
  }
  assert.ok(chaos.ok > 0, seen);
  // a call without its result was told it did not run, or its process was killed (request
  // replay recovers every other cut: before the response head, before an event ID)
  for (const stage of Object.keys(chaos.lost))
    assert.ok(['notSent', 'refused', 'ownerEnded'].includes(stage), `lost at ${stage}: ${seen}`);
  assert.ok(chaos.ok + chaos.notProcessed + chaos.mayHaveRun === chaos.calls, seen);
});

test.run();
