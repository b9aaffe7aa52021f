/**
 * The MCP conformance suites (0.1.16, and 0.2.0-alpha.12 at `--requirements 2025-11-25` and
 * `--requirements 2026-07-28`) against the Go reference server (go/reference/cmd/mcpgen-reference,
 * over Streamable HTTP; the dual-era endpoint for 2026-07-28) and through the Go conformance
 * client (go/reference/cmd/conformance-client), by the shared runner (test/conformance/run.ts)
 * with the Go language target. Fails on a failure not in
 * test/conformance/expected-failures.go.json and on a stale entry there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SUITES, groupKey, loadExpected, report, runConformance } from '../conformance/run.js';
import { GO } from './conformance-target.js';

const work = mkdtempSync(join(tmpdir(), 'mcpgen-go-conformance-'));
let clientCommand: string | undefined;
test.after(() => rmSync(work, { recursive: true, force: true }));

test('expected-failures.go.json: every suite and side has an entry', () => {
  const all = loadExpected('go');
  for (const suite of SUITES)
    for (const side of ['server', 'client']) assert.ok(`${suite.name} ${side}` in all, `${suite.name} ${side}`);
  for (const suite of SUITES)
    for (const g of suite.judged ?? []) assert.ok(groupKey(suite, g) in all, groupKey(suite, g));
});

for (const suite of SUITES) {
  for (const side of ['server', 'client'] as const) {
    test(`conformance go ${suite.name} ${side}`, async () => {
      if (side === 'client') clientCommand ??= await GO.clientCommand(work);
      const r = await runConformance(suite, side, { work, clientCommand, language: GO });
      console.log(report(r));
      assert.ok(r.passed.length + r.failed.length > 0, `no scenario ran:\n${r.output.slice(-3000)}`);
      assert.equal(r.unexpected, [], `unexpected failures:\n${r.output.slice(-6000)}`);
      assert.equal(r.stale, [], 'stale expected-failures.go.json entries');
      for (const g of r.groups) {
        assert.ok(g.passed.length + g.failed.length + g.skipped.length > 0, `${g.key}: no scenario ran`);
        assert.equal(g.unexpected, [], `${g.key}: unexpected failures:\n${r.output.slice(-6000)}`);
        assert.equal(g.stale, [], `${g.key}: stale expected-failures.go.json entries`);
      }
    });
  }
}

test.run();
