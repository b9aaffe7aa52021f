/**
 * C++ binding: a driver parses every official example with `json::parse(text).get<mcp::Type>()`
 * and prints it back with `json(value).dump()`, built by g++ (C++17) against Debian's
 * nlohmann/json.
 */
import { test } from 'uvu';
import { assertFixesMatter, roundTripExamples } from './harness.js';

test('cpp binding round-trips the official examples', async () => {
  await roundTripExamples('cpp');
});

test('each cpp fix is needed', async () => {
  await assertFixesMatter('cpp', {
    'cpp-json-member-guards': ['absent any field', 'null inside an any value', 'any field with a scalar'],
  });
});

test.run();
