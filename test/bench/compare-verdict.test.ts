/**
 * bench:compare's reading of two medians (bench/compare-verdict.ts): the direction of each kind of
 * figure bench/http.ts and bench/stdio.ts print, and the band a change must leave to count.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { betterRatio, higherIsBetter, worseThanNoise } from '../../bench/compare-verdict.js';

test('rates and "ours over theirs" comparisons are better higher; costs and cpu_cost ratios lower', () => {
  assert.is(higherIsBetter('http.ours.clients16.throughput', 'calls/s'), true);
  assert.is(higherIsBetter('http.ours.clients16.cpu_per_call', 'us'), false);
  assert.is(higherIsBetter('http.ours.sequential.p50', 'us'), false);
  assert.is(higherIsBetter('http.stateless.json.ours_vs_bare_limit.throughput', 'x'), true);
  assert.is(higherIsBetter('http.json.ours_vs_sdk2.cpu_per_call', 'x'), true);
  assert.is(higherIsBetter('http.json.ours_vs_bare_limit.cpu_cost', 'x'), false);
  assert.is(higherIsBetter('http.sse_vs_json.ours_server_vs_bare_server.cpu_cost', 'x'), false);
  // a name that only contains the word is not a cost ratio
  assert.is(higherIsBetter('http.cpu_cost_share.ours_vs_sdk', 'x'), true);
});

test('a cost ratio that grew from 1.17x to 1.48x reads as worse (0.79x), as a throughput that fell does', () => {
  assert.is(betterRatio('http.sse.ours_server_vs_bare_server.cpu_cost', 'x', 1.48, 1.17)?.toFixed(2), '0.79');
  assert.is(betterRatio('http.progress.ours.clients16.throughput', 'calls/s', 4897, 5515)?.toFixed(2), '0.89');
  assert.is(betterRatio('http.progress.ours.clients16.cpu_per_call', 'us', 345.2, 326.7)?.toFixed(2), '0.95');
  assert.is(betterRatio('http.ours_vs_sdk.throughput', 'x', 5.04, 4.33)?.toFixed(2), '1.16');
});

test('no ratio without a unit, for load figures, or against a zero median', () => {
  assert.is(betterRatio('http.events_total', '', 3, 2), undefined);
  assert.is(betterRatio('http.loadavg.start', 'x', 3, 2), undefined);
  assert.is(betterRatio('http.ours.clients16.throughput', 'calls/s', 10, 0), undefined);
  assert.is(betterRatio('http.ours.clients16.throughput', 'calls/s', 0, 10), undefined);
});

test('worse than noise: below 1 and farther from 1 than the control moved, either way', () => {
  assert.is(worseThanNoise(0.89, 1.01), true);
  assert.is(worseThanNoise(0.89, 0.88), false);
  assert.is(worseThanNoise(0.89, 1.12), false);
  assert.is(worseThanNoise(0.97, 1.0), true);
  assert.is(worseThanNoise(1.2, 1.0), false);
  assert.is(worseThanNoise(1, 1), false);
});

test.run();
