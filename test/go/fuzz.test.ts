/**
 * The Go fuzz targets (go/fuzz.ts) run briefly: each searches for 4 s (their seeds and saved
 * failing inputs also run in every `go test`); `npm run fuzz:go` runs them long.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FUZZ_TARGETS, fuzzArgs } from '../../go/fuzz.js';
import { generateGo } from '../../go/generate.js';
import { go } from './support.js';

generateGo();

for (const t of FUZZ_TARGETS) {
  test(`go test -fuzz ${t.name} (${t.module} ${t.pkg}) for 4 s finds nothing`, async () => {
    const r = await go(fuzzArgs(t, 4), t.module, 600_000);
    assert.is(r.status, 0, r.output.slice(-4000));
    assert.match(r.output, /execs: [1-9]/, `the fuzzer ran no input:\n${r.output.slice(-2000)}`);
  });
}

test.run();
