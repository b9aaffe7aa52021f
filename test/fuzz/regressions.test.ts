/**
 * Replays every minimized case the fuzz run saved (./regressions/*.json) on a fresh
 * `mcpgen serve` of its transport and era: the oracle of ./run.ts must hold on each.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type RegressionCase, replayCase } from './run.js';

const dir = new URL('./regressions/', import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();

test('fuzz regressions: the saved cases are there', () => {
  assert.ok(files.length > 0, 'test/fuzz/regressions holds cases');
});

for (const file of files) {
  const c = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as RegressionCase;
  test(`fuzz regression ${file} (${c.violation})`, async () => {
    const v = await replayCase(c);
    assert.equal(
      v.map((x) => `${x.category}: ${x.detail.slice(0, 200)}`),
      [],
      `${c.frames.map((f) => f.label).join(' | ')}`,
    );
  });
}

test.run();
