/**
 * The front page and the manual (README.md, docs/*.md): README.md is a front page of at most
 * 250 lines (what, why, quick start, the languages table, links) that links every page of the
 * manual; the manual's index docs/README.md lists every page of docs/; every relative link of
 * the front page, the manual and the policy files names a file, and its `#anchor` a heading of
 * that file; every spec link names a page of `$MCP_SPEC_DIR/docs/<rev>/`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { indexProblems, linkProblems, links } from './guide-check.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
const SPEC_DIR = resolve(ROOT, process.env.MCP_SPEC_DIR ?? '../shared/mcp-spec');
const read = (file: string) => readFileSync(file, 'utf8');

/** The manual's pages: every markdown file of docs/ but its index. */
const pages = readdirSync(DOCS)
  .filter((f) => f.endsWith('.md') && f !== 'README.md')
  .map((f) => f.slice(0, -3))
  .sort();
/** The policy files beside README.md. */
const policies = readdirSync(ROOT).filter((f) => /^[A-Z_]+\.md$/.test(f));

test('README.md is a front page: at most 250 lines, with what, why, quick start, languages and the manual', () => {
  const readme = read(join(ROOT, 'README.md'));
  const lines = readme.trimEnd().split('\n').length;
  assert.ok(lines <= 250, `README.md has ${lines} lines (at most 250: the rest belongs in docs/)`);
  const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  for (const h of ['Quick start', 'Languages', 'The manual'])
    assert.ok(headings.includes(h), `README.md has a "## ${h}" section (has: ${headings.join(', ')})`);
  assert.match(readme, /\*\*Why\.\*\*/, 'README.md says why');
  assert.match(readme, /^\| language +\|/m, 'README.md has the languages table');
});

test('README.md links the manual index and every page of the manual', () => {
  const hrefs = new Set(links(read(join(ROOT, 'README.md'))).map((h) => h.split('#')[0]));
  const missing = ['README', ...pages].map((p) => `docs/${p}.md`).filter((h) => !hrefs.has(h));
  assert.equal(missing, [], 'pages of docs/ the front page does not link');
});

test('the manual index docs/README.md lists every page of docs/, and each page it lists exists', () => {
  assert.equal(indexProblems(read(join(DOCS, 'README.md')), pages), { unlisted: [], missing: [] });
});

test('every link of the front page, the manual and the policy files resolves: files, headings, spec pages', () => {
  const files = [
    ...policies.map((f) => join(ROOT, f)),
    join(DOCS, 'README.md'),
    ...pages.map((p) => join(DOCS, `${p}.md`)),
  ];
  assert.ok(files.length > 15, `the manual has pages (${files.length} files)`);
  assert.equal(
    files.flatMap((f) => linkProblems(f, read(f), SPEC_DIR)),
    [],
  );
});

test('the link check sees a moved section: a link to an anchor the front page no longer has fails', () => {
  const file = join(DOCS, 'README.md');
  const problems = linkProblems(file, '[old](../README.md#deployment) [ok](../README.md#quick-start)', SPEC_DIR);
  assert.equal(problems.length, 1);
  assert.match(problems[0], /no heading #deployment/);
});

test.run();
