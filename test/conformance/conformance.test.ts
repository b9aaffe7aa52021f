/**
 * The MCP conformance suites (0.1.16, and 0.2.0-alpha.12 at `--requirements 2025-11-25` and at
 * `--requirements 2026-07-28`), server and client side, through ./run.ts. Prints `conformance <suite> <side>: N/M`; fails on a
 * failure not in ./expected-failures.json and on a stale entry there.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildClient, judge, loadExpected, parseSummary, passedAlone, report, runConformance, SUITES } from './run.js';

test('parseSummary: scored and unscored scenario lines', () => {
  const out = [
    'noise ✓ not-a-summary: 1 passed, 0 failed',
    '=== SUMMARY ===',
    '\x1b[32m✓ ping: 2 passed, 0 failed\x1b[0m',
    '✗ tools-list: 0 passed, 1 failed',
    '✓ extra: 1 passed, 0 failed',
    'Total: 3 passed, 1 failed',
    'Not scored for 2025-11-25: 1 scenario(s) run, 0 failing.',
    '  ✓ extra (extension)',
  ].join('\n');
  const { scenarios, unscored } = parseSummary(out);
  assert.equal([...scenarios], [['ping', true], ['tools-list', false]]);
  assert.equal([...unscored], [['extra', true]]);
});

test('passedAlone: all checks passed, no warning', () => {
  assert.ok(passedAlone('Test Results:\nPassed: 3/3, 0 failed, 0 warnings\n\n✅ OVERALL: PASSED'));
  assert.not.ok(passedAlone('Passed: 2/3, 1 failed, 0 warnings'));
  assert.not.ok(passedAlone('Passed: 3/3, 0 failed, 1 warnings'));
  assert.not.ok(passedAlone('Passed: 3/3, 0 failed, 0 warnings\n⚠️  CLIENT EXITED WITH ERROR (code 1)\n❌ OVERALL: FAILED'));
  assert.not.ok(passedAlone('no summary'));
});

test('judge: unlisted failures and stale entries', () => {
  assert.equal(judge(['a', 'b'], { b: 'needs the 2026 revision' }), { unexpected: ['a'], stale: [] });
  assert.equal(judge([], { b: 'needs the 2026 revision' }), { unexpected: [], stale: ['b'] });
});

test('expected-failures.json: every entry has a written reason', () => {
  const all = loadExpected();
  for (const suite of SUITES) for (const side of ['server', 'client']) assert.ok(`${suite.name} ${side}` in all, `${suite.name} ${side}`);
});

const work = mkdtempSync(join(tmpdir(), 'mcpgen-conformance-'));
let clientCommand: string | undefined;
test.after(() => rmSync(work, { recursive: true, force: true }));

for (const suite of SUITES) {
  for (const side of ['server', 'client'] as const) {
    test(`conformance ${suite.name} ${side}`, async () => {
      if (side === 'client') clientCommand ??= await buildClient(work);
      const r = await runConformance(suite, side, { work, clientCommand });
      console.log(report(r));
      assert.ok(r.passed.length + r.failed.length > 0, `no scenario ran:\n${r.output.slice(-3000)}`);
      assert.equal(r.unexpected, [], `unexpected failures:\n${r.output.slice(-6000)}`);
      assert.equal(r.stale, [], 'stale expected-failures.json entries');
    });
  }
}

test.run();
