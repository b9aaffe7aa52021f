/**
 * Diffs along the draft's history: each snapshot in $MCP_SPEC_DIR/history/draft against the
 * next (folder names sorted: they start with the date), and the last snapshot against the
 * pinned draft. Every step must report at least one change; the known steps must report what
 * the snapshots show changed.
 */
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Change, type DiffReport, diffModels, renderJson, renderMarkdown } from '../../../generator/diff.js';
import { HISTORY_DIR, draftSnapshots, modelFor, run } from './support.js';

const test = suite('diff: draft history');

type Expect = Array<[Change['kind'], string, Change['direction']?]>;

/** What each known step changed, keyed `from → to` (snapshot folder names; `draft` = pinned). */
const KNOWN: Record<string, Expect> = {
  '2025-12-30_693b5d36 → 2026-01-26_f1939872': [
    ['field-added', 'ClientCapabilities.extensions'],
    ['field-added', 'ServerCapabilities.extensions'],
  ],
  '2026-01-26_f1939872 → 2026-02-27_3e6c4f80': [
    ['embedded', 'sampling/createMessage', 'serverToClient'],
    ['embedded', 'elicitation/create', 'serverToClient'],
    ['embedded', 'roots/list', 'serverToClient'],
  ],
  // the constant URL_ELICITATION_REQUIRED went on 2026-02-27, its error type (the code on the wire) now
  '2026-02-27_3e6c4f80 → 2026-05-11_c2037874': [
    ['error-code-removed', 'URL_ELICITATION_REQUIRED'],
    ['method-added', 'tasks/input_response', 'clientToServer'],
    ['alt-result-added', 'tools/call', 'clientToServer'],
    ['field-added', 'tools/call result.resultType', 'clientToServer'],
    ['field-added', 'tools/call params.requestState', 'clientToServer'],
    [
      'type',
      'elicitation/create params<ElicitRequestFormParams>.requestedSchema.properties{}<NumberSchema>.minimum',
      'serverToClient',
    ],
  ],
  '2026-05-11_c2037874 → 2026-05-14_41173312': [
    ['lifecycle', 'lifecycle'],
    ['method-removed', 'initialize', 'clientToServer'],
    ['method-removed', 'ping', 'serverToClient'],
    ['method-added', 'server/discover', 'clientToServer'],
    ['method-added', 'subscriptions/listen', 'clientToServer'],
    ['notification-removed', 'notifications/initialized', 'clientToServer'],
    ['error-code-added', 'MISSING_REQUIRED_CLIENT_CAPABILITY'],
    // an UnsupportedProtocolVersionError of code INVALID_PARAMS, and no constant of its own
    ['error-code-added', 'UNSUPPORTED_PROTOCOL_VERSION'],
  ],
  '2026-05-14_41173312 → draft': [
    ['error-code-changed', 'UNSUPPORTED_PROTOCOL_VERSION'],
    ['method-removed', 'tasks/get', 'clientToServer'],
    ['method-removed', 'tasks/input_response', 'clientToServer'],
    ['result-type', 'subscriptions/listen', 'clientToServer'],
    ['notification-removed', 'notifications/elicitation/complete', 'serverToClient'],
    ['direction', 'notifications/progress'],
    ['protocol-version', 'protocolVersion'],
    ['error-code-changed', 'MISSING_REQUIRED_CLIENT_CAPABILITY'],
    ['error-code-added', 'HEADER_MISMATCH'],
  ],
};

const snapshots = draftSnapshots();
const steps: Array<[string, string]> = [];
for (let i = 0; i + 1 < snapshots.length; i++) steps.push([snapshots[i], snapshots[i + 1]]);
if (snapshots.length) steps.push([snapshots[snapshots.length - 1], 'draft']);
const input = (name: string) => (name === 'draft' ? 'draft' : join(HISTORY_DIR, name));

test('the history has snapshots to compare', () => {
  assert.ok(snapshots.length >= 2, `snapshots in ${HISTORY_DIR}`);
});

for (const [from, to] of steps) {
  const key = `${from} → ${to}`;
  test(key, () => {
    const report: DiffReport = diffModels(modelFor(input(from)), modelFor(input(to)));
    assert.is(report.from.revision, from);
    assert.is(report.to.revision, to);
    assert.ok(report.changes.length > 0, 'at least one change');
    assert.is(renderJson(report), renderJson(diffModels(modelFor(input(from)), modelFor(input(to)))), 'deterministic');
    assert.match(renderMarkdown(report), `# MCP protocol diff: ${from} → ${to}`);
    for (const [kind, subject, direction] of KNOWN[key] ?? []) {
      const hit = report.changes.some(
        (c) => c.kind === kind && c.subject === subject && (!direction || c.direction === direction),
      );
      assert.ok(hit, `${key}: expected ${kind} ${subject}${direction ? ` (${direction})` : ''}`);
    }
  });
}

test('every known step is in the history', () => {
  const seen = new Set(steps.map(([a, b]) => `${a} → ${b}`));
  for (const k of Object.keys(KNOWN)) assert.ok(seen.has(k), `${k} not found among ${[...seen].join(', ')}`);
});

test('mcpgen diff takes snapshot folders as paths', async () => {
  const [a, b] = [join(HISTORY_DIR, snapshots[0]), join(HISTORY_DIR, snapshots[1])];
  const r = await run(['diff', a, b, '--format', 'json']);
  assert.is(r.code, 0, r.err);
  const parsed = JSON.parse(r.out) as DiffReport;
  assert.is(parsed.from.revision, snapshots[0]);
  assert.is(renderJson(parsed), renderJson(diffModels(modelFor(a), modelFor(b))));
});

test.run();
