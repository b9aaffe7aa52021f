/**
 * Go binding: a driver in the same module parses every official example with
 * `mcp.Unmarshal<Type>` and prints it back with `Marshal`, built by Debian's go.
 */
import { test } from 'uvu';
import { assertFixesMatter, roundTripExamples } from './harness.js';

test('go binding round-trips the official examples', async () => {
  await roundTripExamples('go');
});

test('each go fix is needed', async () => {
  await assertFixesMatter('go', {
    'go-interface-receivers': 'build',
    'go-keep-empty-optionals': ['empty capability flag', 'empty optional list'],
  });
});

test.run();
