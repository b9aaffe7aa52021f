/**
 * C# binding: a driver parses every official example with `<Type>.FromJson` and prints it back
 * with `Serialize.ToJson`, built by mono's mcs against Debian's Newtonsoft.Json and run by mono.
 */
import { test } from 'uvu';
import { assertFixesMatter, roundTripExamples } from './harness.js';

test('csharp binding round-trips the official examples', async () => {
  await roundTripExamples('csharp');
});

test('each csharp fix is needed', async () => {
  await assertFixesMatter('csharp', {
    'csharp-distinct-tojson': 'build',
    'csharp-omit-null-objects': ['absent any field'],
  });
});

test.run();
