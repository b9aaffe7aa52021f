// Guide: diff-in-ci (docs/guide/diff-in-ci.md). The CI step `mcpgen diff <shipped> <new>
// --fail-on breaking --format json`, run as CI runs it (a process, its exit code and its JSON).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';

interface Side {
  revision: string;
  protocolVersion: string;
  lifecycle: 'handshake' | 'stateless';
}
interface Change {
  section: string;
  kind: string;
  subject: string;
  method: string | null;
  breaking: { client: boolean; server: boolean };
  detail: string;
}
interface DiffReport {
  from: Side;
  to: Side;
  changes: Change[];
  summary: { total: number; breaking: number; breakingForClient: number; breakingForServer: number };
}

/** Runs `npx mcpgen <args>` in this project, as a CI job's step does. */
function mcpgen(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile('npx', ['mcpgen', ...args], { maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

// the revision you ship against the one you are moving to: both at once, as two CI jobs would
const [breaking, compatible, usage] = await Promise.all([
  mcpgen(['diff', '2025-11-25', 'draft', '--fail-on', 'breaking', '--format', 'json']),
  mcpgen(['diff', '2026-07-28', 'draft', '--fail-on', 'breaking', '--format', 'json']),
  mcpgen(['diff', '2025-11-25', 'draft', '--fail-on', 'anything']),
]);

// 2025-11-25 → draft breaks clients and servers: exit 1, and the report says what
assert.equal(breaking.code, 1);
const report = JSON.parse(breaking.stdout) as DiffReport;
assert.deepEqual([report.from.revision, report.to.revision], ['2025-11-25', 'draft']);
assert.deepEqual([report.from.lifecycle, report.to.lifecycle], ['handshake', 'stateless']);
assert.equal(report.summary.breaking, report.changes.filter((c) => c.breaking.client || c.breaking.server).length);
assert.ok(report.summary.breakingForClient > 0 && report.summary.breakingForServer > 0);
const removed = report.changes.filter((c) => c.kind === 'method-removed').map((c) => c.method);
assert.ok(removed.includes('initialize') && removed.includes('logging/setLevel'));

// 2026-07-28 → the pinned draft: no change at all, exit 0
assert.equal(compatible.code, 0);
const none = JSON.parse(compatible.stdout) as DiffReport;
assert.equal(none.summary.total, 0);

// a wrong flag is a usage error (exit 2), never taken for "no breaking change"
assert.equal(usage.code, 2);
assert.match(usage.stderr, /--fail-on anything: expected breaking/);

console.log('ok diff-in-ci');
