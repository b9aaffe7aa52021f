/**
 * Python binding: every official example is parsed with `<type>_from_dict` and printed back
 * with `<type>_to_dict`, by python3 with the standard library only. Python needs no fixes; the
 * fix cases still round-trip.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { roundTripExamples, runFixCases } from './harness.js';

test('python binding round-trips the official examples', async () => {
  await roundTripExamples('python');
});

test('python binding round-trips the fix cases', async () => {
  assert.equal(await runFixCases('python'), { failing: [] });
});

test.run();
