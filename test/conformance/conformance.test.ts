/**
 * The MCP conformance suites (0.1.16, and 0.2.0-alpha.12 at `--requirements 2025-11-25` and at
 * `--requirements 2026-07-28`), server and client side, through ./run.ts. Prints `conformance <suite> <side>: N/M`; fails on a
 * failure not in ./expected-failures.json and on a stale entry there. The same for the judged
 * groups of unscored scenarios (the tasks extension's server scenarios at 2026-07-28).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildClient,
  groupKey,
  judge,
  loadExpected,
  parseSummary,
  passedAlone,
  report,
  runConformance,
  runFailed,
  skippedScenarios,
  SUITES,
  type RunResult,
} from './run.js';

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
  assert.equal(
    [...scenarios],
    [
      ['ping', true],
      ['tools-list', false],
    ],
  );
  assert.equal([...unscored], [['extra', true]]);
});

test('passedAlone: all checks passed, no warning', () => {
  assert.ok(passedAlone('Test Results:\nPassed: 3/3, 0 failed, 0 warnings\n\n✅ OVERALL: PASSED'));
  assert.not.ok(passedAlone('Passed: 2/3, 1 failed, 0 warnings'));
  assert.not.ok(passedAlone('Passed: 3/3, 0 failed, 1 warnings'));
  assert.not.ok(
    passedAlone('Passed: 3/3, 0 failed, 0 warnings\n⚠️  CLIENT EXITED WITH ERROR (code 1)\n❌ OVERALL: FAILED'),
  );
  assert.not.ok(passedAlone('no summary'));
});

test('judge: unlisted failures and stale entries', () => {
  assert.equal(judge(['a', 'b'], { b: 'needs the 2026 revision' }), { unexpected: ['a'], stale: [] });
  assert.equal(judge([], { b: 'needs the 2026 revision' }), { unexpected: [], stale: ['b'] });
});

test('expected-failures.json: every entry has a written reason', () => {
  const all = loadExpected();
  for (const suite of SUITES)
    for (const side of ['server', 'client']) assert.ok(`${suite.name} ${side}` in all, `${suite.name} ${side}`);
  for (const suite of SUITES)
    for (const g of suite.judged ?? []) assert.ok(groupKey(suite, g) in all, groupKey(suite, g));
});

test('the tasks extension scenarios are judged at 2026-07-28, server side', () => {
  const suite = SUITES.find((s) => s.revision === '2026-07-28')!;
  assert.equal(suite.judged, [{ name: 'tasks extension', side: 'server', prefix: 'tasks-' }]);
  assert.is(groupKey(suite, suite.judged![0]), 'alpha.12 (2026-07-28) tasks extension server');
});

test('skippedScenarios: scenarios whose every check is SKIPPED, by checks.json', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-skipped-'));
  try {
    const put = (name: string, statuses: string[]) => {
      mkdirSync(join(dir, name), { recursive: true });
      writeFileSync(
        join(dir, name, 'checks.json'),
        JSON.stringify(statuses.map((status, i) => ({ id: `c${i}`, status }))),
      );
    };
    put('server-tasks-a-2026-11-29T19-08-23-675Z', ['SKIPPED']);
    put('server-tasks-ab-2026-11-29T19-08-24-000Z', ['SUCCESS', 'SKIPPED']);
    put('server-tasks-c-2026-11-29T19-08-25-000Z', []);
    put('client-tasks-d-2026-11-29T19-08-26-000Z', ['SKIPPED']);
    assert.equal(skippedScenarios(dir, 'server', ['tasks-a', 'tasks-ab', 'tasks-c', 'tasks-d', 'tasks-missing']), [
      'tasks-a',
    ]);
    assert.equal(skippedScenarios(dir, 'client', ['tasks-d']), ['tasks-d']);
    assert.equal(skippedScenarios(join(dir, 'nope'), 'server', ['tasks-a']), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('runFailed: unexpected, stale or empty, for the run and for each judged group', () => {
  const group = {
    key: 'alpha.12 (2026-07-28) tasks extension server',
    passed: ['tasks-lifecycle'],
    failed: [],
    skipped: [],
    unexpected: [],
    stale: [],
    rerun: [],
    line: '',
  };
  const base: RunResult = {
    suite: 's',
    language: 'typescript',
    side: 'server',
    passed: ['ping'],
    failed: [],
    unscored: {},
    unexpected: [],
    stale: [],
    rerun: [],
    line: '',
    groups: [group],
    output: '',
  };
  assert.is(runFailed(base), false);
  assert.is(runFailed({ ...base, unexpected: ['ping'] }), true);
  assert.is(runFailed({ ...base, groups: [{ ...group, failed: ['tasks-x'], unexpected: ['tasks-x'] }] }), true);
  assert.is(runFailed({ ...base, groups: [{ ...group, stale: ['tasks-y'] }] }), true);
  assert.is(runFailed({ ...base, groups: [{ ...group, passed: [] }] }), true);
  assert.is(runFailed({ ...base, groups: [{ ...group, passed: [], skipped: ['tasks-status-notifications'] }] }), false);
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
      assert.equal(
        r.groups.map((g) => g.key),
        (suite.judged ?? []).filter((g) => g.side === side).map((g) => groupKey(suite, g)),
      );
      for (const g of r.groups) {
        assert.ok(g.passed.length + g.failed.length > 0, `${g.key}: no scenario ran`);
        assert.equal(g.unexpected, [], `${g.key}: unexpected failures:\n${r.output.slice(-6000)}`);
        assert.equal(g.stale, [], `${g.key}: stale expected-failures.json entries`);
      }
    });
  }
}

test.run();
