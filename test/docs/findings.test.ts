/**
 * docs/findings.md (scripts/findings.ts) is what `npm run findings` would write now: generated and
 * hand-written lines per revision, the generator's schema warnings, the error-id rule, and the
 * runtime's history up to a fixed commit. The last tests show the measures can come out otherwise.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FINDINGS_FILE, renderFindings, revisionLiterals, revisions, runtimeHistory } from '../../scripts/findings.js';

/**
 * The line-count section with its figures taken out (they become `#`), and the figures: the
 * counts move with every change of the runtime or the generator, so the check allows each figure
 * 10 % (a share 5 points) before it asks for npm run findings; everything else must be exact.
 */
function split(text: string): { shape: string; figures: number[] } {
  const start = text.indexOf('## Generated and hand-written');
  const end = text.indexOf('### Which layers');
  const figures: number[] = [];
  const section = text.slice(start, end).replace(/~?\d[\d,]*( %)?/g, (m) => {
    figures.push(Number(m.replace(/[~,%\s]/g, '')) * (m.endsWith('%') ? -1 : 1));
    return '#';
  });
  return { shape: text.slice(0, start) + section + text.slice(end), figures };
}

test('docs/findings.md is up to date (npm run findings rewrites it)', () => {
  const want = split(renderFindings());
  const have = split(readFileSync(FINDINGS_FILE, 'utf8'));
  if (have.shape !== want.shape) {
    const a = have.shape.split('\n');
    const b = want.shape.split('\n');
    const i = a.findIndex((line, n) => line !== b[n]);
    assert.unreachable(
      `docs/findings.md is out of date: run npm run findings (first difference, line ${i + 1}: ${JSON.stringify(a[i])} → ${JSON.stringify(b[i])})`,
    );
  }
  assert.is(have.figures.length, want.figures.length);
  want.figures.forEach((w, i) => {
    const h = have.figures[i];
    // shares are negative here (see split): within 5 points; line counts within 10 %
    const ok = w < 0 ? Math.abs(h - w) <= 5 : Math.abs(h - w) <= Math.max(100, 0.1 * w);
    assert.ok(ok, `docs/findings.md: a figure moved from ${Math.abs(h)} to ${Math.abs(w)}: run npm run findings`);
  });
});

test('the drift check catches a changed figure and a changed sentence', () => {
  const text = renderFindings();
  const figure = split(text.replace(/\| (\d+),(\d)00 \|/, (_m, a, b) => `| ${Number(a) * 2},${b}00 |`));
  assert.not.equal(figure.figures, split(text).figures);
  assert.is(split(text.replace('carries **no', 'carries **a')).shape === split(text).shape, false);
});

test('every generated revision appears with its warnings, and the error-id rule is stated', () => {
  const text = readFileSync(FINDINGS_FILE, 'utf8');
  for (const { rev, model } of revisions()) {
    assert.ok(text.includes(`| ${rev} |`), `${rev} has a row`);
    for (const w of model.warnings) assert.ok(text.includes(w), `${rev}: ${w}`);
  }
  assert.match(text, /carries \*\*no\s+`id` member\*\*/);
  assert.match(text, /carries \*\*that\s+id\*\*/);
});

test('the runtime history is read up to the fixed commit and counts lines', () => {
  const history = runtimeHistory();
  assert.ok(history.length > 100, `${history.length} commits`);
  assert.ok(history.every((c) => c.added + c.deleted > 0));
  assert.ok(history.some((c) => /Stateless Streamable HTTP \(2026-07-28\)/.test(c.subject)));
});

test('a revision literal in runtime code is found; one in a comment is not', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-findings-'));
  try {
    mkdirSync(join(dir, 'runtime'));
    writeFileSync(
      join(dir, 'runtime', 'a.ts'),
      "/** since '2025-06-18' */\n// '2025-03-26'\nexport const V = '2025-11-25';\nconst url = 'http://x'; // '2024-11-05'\n",
    );
    assert.equal(revisionLiterals(dir), ['runtime/a.ts: 2025-11-25']);
    assert.equal(revisionLiterals(), [], 'the runtime reads its revisions from the generated tables');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
