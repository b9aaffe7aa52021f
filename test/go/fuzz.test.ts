/**
 * The Go fuzz targets (go/fuzz.ts) run briefly: each tries 20,000 inputs (their seeds and saved
 * failing inputs also run in every `go test`); `npm run fuzz:go` runs them long. A budget of
 * inputs, not of seconds: with `-fuzztime 4s` Go 1.26's fuzz coordinator can report its own
 * deadline as a failure ("context deadline exceeded", no failing input) when a worker is still
 * in a call as the time runs out on a loaded machine (go.dev/issue/75804, fixed in Go 1.27).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FUZZ_TARGETS, fuzzArgs } from '../../go/fuzz.js';
import { generateGo } from '../../go/generate.js';
import { go } from './support.js';

generateGo();

for (const t of FUZZ_TARGETS) {
  test(`go test -fuzz ${t.name} (${t.module} ${t.pkg}) over 20,000 inputs finds nothing`, async () => {
    const r = await go(fuzzArgs(t, { inputs: 20_000 }), t.module, 600_000);
    assert.is(r.status, 0, r.output.slice(-4000));
    assert.match(r.output, /execs: [1-9]/, `the fuzzer ran no input:\n${r.output.slice(-2000)}`);
  });
}

test.run();
