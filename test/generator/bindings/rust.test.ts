/**
 * Rust binding: a driver parses every official example with `serde_json::from_str::<Type>` and
 * prints it back with `serde_json::to_string`. Built offline by cargo, with crates.io replaced by
 * the serde crates Debian ships in /usr/share/cargo/registry.
 */
import { test } from 'uvu';
import { assertFixesMatter, roundTripExamples } from './harness.js';

test('rust binding round-trips the official examples', async () => {
  await roundTripExamples('rust');
});

test('each rust fix is needed', async () => {
  await assertFixesMatter('rust', {
    'rust-skip-none': ['absent any field'],
  });
});

test.run();
