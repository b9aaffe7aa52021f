/**
 * Java binding: a driver parses every official example with `Converter.<Type>FromJsonString`
 * and prints it back with `Converter.<Type>ToJsonString`, built by javac against Debian's
 * Jackson jars.
 */
import { test } from 'uvu';
import { assertFixesMatter, roundTripExamples } from './harness.js';

test('java binding round-trips the official examples', async () => {
  await roundTripExamples('java');
});

test('each java fix is needed', async () => {
  await assertFixesMatter('java', {
    'java-tojson-throws': 'build',
    'java-omit-null-fields': [
      'empty capability flag',
      'empty optional list',
      'empty map value',
      'absent any field',
      'null inside an any value',
    ],
  });
});

test.run();
