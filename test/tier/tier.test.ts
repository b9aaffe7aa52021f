/**
 * TIER.md (scripts/tier.ts): every feature of the tiering audit has a guide page, a section and an
 * example that uses it (test/docs/guide.test.ts runs the examples and tsc compiles them), and
 * TIER.md is what `npm run tier` would write now: rendered from the conformance runs of this
 * `npm test` (test/conformance/conformance.test.ts records them; a filtered run runs them here).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordedRuns } from '../conformance/run.js';
import { FEATURES, type Feature } from '../../scripts/tier/features.js';
import { TIER_FILE, auditCoverage, conformanceRows, featureProblems, renderTier } from '../../scripts/tier.js';

test('every audit feature (1–48) has exactly one row', () => {
  assert.equal(auditCoverage(), []);
  assert.equal(auditCoverage(FEATURES.filter((f) => f.n !== 7)), ['audit feature 7: 0 rows']);
});

test('every feature has its guide page, section and an example that uses it', () => {
  assert.equal(
    FEATURES.flatMap((f) => featureProblems(f)),
    [],
  );
});

test('featureProblems names a missing page, section, example, an example no page runs, and absent evidence', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-tier-'));
  try {
    const guide = join(dir, 'guide');
    const examples = join(dir, 'examples');
    mkdirSync(guide);
    mkdirSync(examples);
    writeFileSync(join(guide, 'ping.md'), '# Ping\n\n## Sending one\n');
    writeFileSync(join(examples, 'ping.ts'), "await client.ping();\nconsole.log('ok ping');\n");
    writeFileSync(join(examples, 'orphan.ts'), 'await client.ping();\n');
    const row = (over: Partial<Feature>): Feature => ({
      n: 36,
      group: 'Core',
      name: 'Ping',
      page: 'ping#sending-one',
      example: 'ping',
      evidence: [/client\.ping\(\)/],
      ...over,
    });
    assert.equal(featureProblems(row({}), guide, examples), []);
    assert.equal(featureProblems(row({ page: 'nope#x' }), guide, examples), ['Ping: no guide page docs/guide/nope.md']);
    assert.equal(featureProblems(row({ page: 'ping#receiving' }), guide, examples), [
      'Ping: docs/guide/ping.md has no section #receiving',
    ]);
    assert.equal(featureProblems(row({ example: 'gone' }), guide, examples), [
      'Ping: no example examples/guide/gone.ts',
    ]);
    assert.equal(featureProblems(row({ example: 'orphan' }), guide, examples), [
      "Ping: examples/guide/orphan.ts is no guide page's example, so npm test does not run it",
    ]);
    assert.equal(featureProblems(row({ evidence: [/server\.ping\(\)/] }), guide, examples), [
      'Ping: examples/guide/ping.ts does not use it (no match for /server\\.ping\\(\\)/)',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('renderTier: the pass rate, the auth count and a failure show; no timing or path', () => {
  const rows = [
    {
      suite: 'alpha.12',
      side: 'client' as const,
      passed: ['initialize', 'auth/metadata-default'],
      failed: ['sse-retry'],
      unscored: { 'x-ext': true },
      groups: [],
    },
  ];
  const text = renderTier(rows);
  assert.match(text, /\| 2 \/ 3 \| 66\.6 % \| 1 \/ 1 \| 1 \/ 1 \|/);
  assert.match(text, /Failed: `sse-retry`\./);
  assert.match(text, /2 of 3 scored scenarios passed \| 66\.6 % \|/);
  assert.not.match(text, /\/work\/|\d+ ?ms\b|\d{4}-\d{2}-\d{2}T/);
  assert.is(renderTier(rows), text, 'deterministic');
});

test('TIER.md is up to date (npm run tier rewrites it)', async () => {
  const rows = await conformanceRows(recordedRuns);
  const expected = renderTier(rows);
  const actual = readFileSync(TIER_FILE, 'utf8');
  if (actual !== expected) {
    const a = actual.split('\n');
    const e = expected.split('\n');
    const i = a.findIndex((line, k) => line !== e[k]);
    assert.unreachable(
      `TIER.md is out of date: run \`npm run tier\` and commit it. First difference at line ${i + 1}:\n  TIER.md:  ${a[i]}\n  expected: ${e[i]}`,
    );
  }
});

test.run();
