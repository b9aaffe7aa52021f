/**
 * The feature guide (docs/guide/) is real code: every page `docs/guide/<slug>.md` (README.md is
 * the index) has its example `examples/guide/<slug>.ts` (type-checked by `npm test`'s tsc), every
 * ```ts block of the page is in it (or in a companion `<slug>.<part>.ts`) verbatim (with `../../generated/` written `./mcp/`), and every
 * example runs to exit 0 with `ok <slug>` as its last stdout line (two at a time, 30 s each). The
 * index lists every page and only pages that exist; every relative link resolves (anchors to
 * headings), every spec link names a page under $MCP_SPEC_DIR/docs/<rev>/. The checks are
 * test/docs/guide-check.ts; the last tests show that each one fails on bad input.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  INDEX,
  exampleSource,
  guideSlugs,
  headingAnchors,
  indexProblems,
  linkProblems,
  pageProblems,
  runExamples,
  runProblem,
  closeLineProblems,
  snippetSyntaxProblems,
  teardownLines,
  teardownProblems,
  tsBlocks,
} from './guide-check.js';
import { FRAGMENTS_MARKER, snippetTypeProblems } from './guide-typecheck.js';
import { pulledCache } from './pulled-cache.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GUIDE = join(ROOT, 'docs', 'guide');
const EXAMPLES = join(ROOT, 'examples', 'guide');
const SPEC_DIR = resolve(ROOT, process.env.MCP_SPEC_DIR ?? '../shared/mcp-spec');
const slugs = guideSlugs(GUIDE);
const read = (file: string) => readFileSync(file, 'utf8');
const exampleOf = (slug: string) => join(EXAMPLES, `${slug}.ts`);
/** A new folder under the system's temporary folder, and its removal. */
function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test('the guide has pages', () => {
  assert.ok(slugs.length >= 1, `no pages in ${GUIDE}`);
  assert.ok(existsSync(join(GUIDE, INDEX)), `no index ${join(GUIDE, INDEX)}`);
  assert.ok(
    existsSync(join(SPEC_DIR, 'docs')),
    `no spec pages in ${join(SPEC_DIR, 'docs')}: set MCP_SPEC_DIR to the spec checkout`,
  );
});

test('every page has its example, holding each ts block of the page verbatim', () => {
  const problems = slugs.flatMap((slug) => {
    return pageProblems(slug, read(join(GUIDE, `${slug}.md`)), exampleSource(EXAMPLES, slug));
  });
  assert.equal(problems, []);
});

test("every page's ts blocks, read in order, parse as one program (none left open)", () => {
  assert.equal(
    slugs.flatMap((slug) => snippetSyntaxProblems(slug, read(join(GUIDE, `${slug}.md`)))),
    [],
  );
});

test("every page's ts blocks, saved as one file of a user's project, typecheck (fragment pages are named, few)", () => {
  const pages = slugs.map((slug) => ({ slug, markdown: read(join(GUIDE, `${slug}.md`)) }));
  const fragments = pages.filter((p) => p.markdown.includes(FRAGMENTS_MARKER)).map((p) => p.slug);
  // pages whose blocks are several files (a client and the server it spawns) or another language's peer
  assert.equal(fragments, ['go', 'python', 'stdio']);
  assert.equal(snippetTypeProblems(ROOT, pages), []);
});

test("every page's code ends as its example does: the example's closes are on the page (saved as one file, it exits)", () => {
  const problems = slugs.flatMap((slug) =>
    existsSync(exampleOf(slug)) ? teardownProblems(slug, read(join(GUIDE, `${slug}.md`)), read(exampleOf(slug))) : [],
  );
  assert.equal(problems, []);
});

test('the Go and Python pages show the closes of their examples (examples/guide/go, python)', () => {
  const files = [
    ['go.md', 'go', 'go/client/main.go'],
    ['go.md', 'go', 'go/server/main.go'],
    ['python.md', 'python', 'python/client.py'],
    ['python.md', 'python', 'python/server.py'],
  ];
  const problems = files.flatMap(([page, lang, file]) =>
    closeLineProblems(page, read(join(GUIDE, page)), lang, file, read(join(EXAMPLES, file))),
  );
  assert.equal(problems, []);
});

test('the index lists every page', () => {
  assert.equal(
    indexProblems(read(join(GUIDE, INDEX)), slugs).unlisted,
    [],
    `docs/guide/${INDEX} does not list these pages`,
  );
});

test('every page the index lists exists', () => {
  assert.equal(
    indexProblems(read(join(GUIDE, INDEX)), slugs).missing,
    [],
    `docs/guide/${INDEX} lists these pages, which do not exist`,
  );
});

test('every link of the guide resolves: files, headings, spec pages', () => {
  const problems = [INDEX, ...slugs.map((s) => `${s}.md`)].flatMap((name) =>
    linkProblems(join(GUIDE, name), read(join(GUIDE, name)), SPEC_DIR),
  );
  assert.equal(problems, []);
});

test('README.md links the guide', () => {
  assert.ok(
    read(join(ROOT, 'README.md')).includes('](docs/guide/README.md)'),
    'README.md has no link to docs/guide/README.md',
  );
});

test('every example runs: exit 0, last line "ok <slug>"', async () => {
  const examples = slugs.filter((s) => existsSync(exampleOf(s))).map((slug) => ({ slug, file: exampleOf(slug) }));
  const t0 = performance.now();
  // the toolchain pages run the CLI several times (each a Node start-up): a loaded runner needs
  // minutes for them; a hang is still caught
  // pinning's inputs are what `mcpgen pull` leaves in the user cache
  const cache = await pulledCache(SPEC_DIR);
  const runs = await runExamples(examples, {
    cwd: ROOT,
    concurrency: 2,
    timeoutMs: 300_000,
    env: { ...process.env, MCPGEN_CACHE: cache.dir },
  }).finally(cache.cleanup);
  const problems = runs.map(runProblem).filter((p) => p !== undefined);
  const slowest = [...runs]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 3)
    .map((r) => `${r.slug} ${(r.ms / 1000).toFixed(1)}s`);
  console.log(
    `  guide: ${runs.length} examples in ${((performance.now() - t0) / 1000).toFixed(1)}s (slowest: ${slowest.join(', ')})`,
  );
  assert.equal(problems, []);
});

// ---- each check fails on bad input ----------------------------------------------------------

const page = [
  '# Echo',
  '',
  'See [the spec](https://modelcontextprotocol.io/specification/2025-11-25/server/tools) and [Errors](#errors).',
  '',
  '```ts',
  "import { Client } from './mcp/2025-11-25/index.js';",
  'const client = new Client({ clientInfo: { name: "app", version: "1.0.0" } });',
  '```',
  '',
  '## Errors',
  '',
  '`[not a link](nowhere.md)` in code is not a link.',
  '',
].join('\n');
const example = [
  "import { Client } from '../../generated/2025-11-25/index.js';",
  'const client = new Client({ clientInfo: { name: "app", version: "1.0.0" } });',
  "console.log('ok echo');",
  '',
].join('\n');

test('check: a ts block must be in the example verbatim, and a page needs an example', () => {
  assert.equal(tsBlocks(page).length, 1);
  assert.equal(pageProblems('echo', page, example), [], 'a good page passes');
  const broken = example.replace('"app"', '"app2"');
  const problems = pageProblems('echo', page, broken);
  assert.is(problems.length, 1);
  assert.match(problems[0], 'ts block 1 is not in examples/guide/echo.ts (or echo.*.ts) verbatim');
  assert.match(problems[0], 'its line 2 is nowhere in it');
  // the import path is the one mapping: an example importing ./mcp/ itself does not match
  assert.is(pageProblems('echo', page, example.replace('../../generated/', '../generated/')).length, 1);
  assert.equal(pageProblems('echo', page, undefined), ['echo.md: no example examples/guide/echo.ts']);
  assert.equal(pageProblems('echo', '# Echo\n\nno code\n', example), [
    'echo.md: no ```ts block (the page shows its example)',
  ]);
});

test('check: a block may come from a companion file <slug>.<part>.ts, never across two files', () => {
  const { dir, cleanup } = tempDir('mcpgen-guide-src-');
  try {
    writeFileSync(join(dir, 'echo.ts'), example);
    writeFileSync(join(dir, 'echo.server.ts'), "const server = 'S';\n");
    writeFileSync(join(dir, 'echoes.ts'), "const other = 'O';\n"); // another slug's file
    const source = exampleSource(dir, 'echo');
    assert.ok(source?.includes("const server = 'S';") && !source.includes('other'), 'echo.ts and echo.server.ts only');
    assert.equal(pageProblems('echo', "```ts\nconst server = 'S';\n```\n", source), []);
    assert.is(pageProblems('echo', "```ts\nconsole.log('ok echo');\nconst server = 'S';\n```\n", source).length, 1);
    assert.is(exampleSource(dir, 'missing'), undefined);
  } finally {
    cleanup();
  }
});

test('check: ts blocks that leave a block open (or hold broken syntax) are named', () => {
  const page = ['# P', '', '```ts', "const tmp = 'x';", 'try {', '  work(tmp);', '```', '', 'More text.', ''].join(
    '\n',
  );
  const problems = snippetSyntaxProblems('p', page);
  assert.equal(problems.length, 1, problems.join('\n'));
  assert.match(problems[0], /^p\.md: '}' expected\. \(line 4 of its ts blocks\)$/);
  const closed = page.replace('```\n\nMore', '```\n\n```ts\n} finally {\n  done();\n}\n```\n\nMore');
  assert.equal(snippetSyntaxProblems('p', closed), []);
  assert.equal(snippetSyntaxProblems('p', '```ts\nconst a = ;\n```\n').length, 1);
});

test('check: the closes at the end of an example must be on its page', () => {
  const ending = [
    "import { Client } from '../../generated/2025-11-25/index.js';",
    'const client = new Client({ clientInfo: { name: "app", version: "1.0.0" } });',
    'await client.close(); // not the last one: a call follows',
    'const result = await client.ping();',
    'try {',
    '  await use(result);',
    '  await other.close();',
    '} finally {',
    '  for (const s of servers) {',
    '    s.closeAllConnections();',
    '    await new Promise((done) => s.close(done));',
    '  }',
    "  child.kill('SIGTERM');",
    '  await exited;',
    '}',
    '// done',
    'await Promise.all([a.close(), b.end()]);',
    'assert.equal(a.closed, true);',
    "console.log('ok echo');",
    '',
  ].join('\n');
  assert.equal(teardownLines(ending), [
    'await other.close();',
    'for (const s of servers) {',
    's.closeAllConnections();',
    'await new Promise((done) => s.close(done));',
    '}',
    "child.kill('SIGTERM');",
    'await Promise.all([a.close(), b.end()]);',
  ]);
  const shown = ['```ts', ...teardownLines(ending).map((line) => `  ${line}`), '```', ''].join('\n');
  assert.equal(teardownProblems('echo', shown, ending), [], 'every line shown (indented as it likes): no problem');
  const without = shown.replace("  child.kill('SIGTERM');\n", '');
  assert.equal(teardownProblems('echo', without, ending), [
    `echo.md: the example's teardown line "child.kill('SIGTERM');" is not on the page`,
  ]);
  assert.equal(teardownProblems('echo', page, example), [], 'an example that closes nothing asks for nothing');
  const commented = shown.replace("child.kill('SIGTERM');", "child.kill('SIGTERM'); // ends it");
  assert.equal(teardownProblems('echo', commented, ending), [], 'a comment after the statement is allowed');
  assert.is(
    teardownProblems(
      'echo',
      page,
      `${example.replace("console.log('ok echo');", 'await client.close();')}console.log('ok echo');\n`,
    ).length,
    1,
  );
});

test('check: a page whose blocks, as one file, use a name it never declares (or too early) fails the type check', () => {
  const good = [
    "import { Client } from './mcp/2025-11-25/index.js';",
    "const client = new Client({ clientInfo: { name: 'app', version: '1.0.0' } });",
    'await client.close();',
  ];
  const md = (lines: string[]) => ['# P', '', '```ts', ...lines, '```', ''].join('\n');
  const [ok, closesOther, early, marked] = [
    md(good),
    md([...good, 'await live.close();']),
    md(['await client.close();', ...good.slice(0, 2)]),
    `${FRAGMENTS_MARKER}\n${md(['await live.close();'])}`,
  ];
  const problems = snippetTypeProblems(ROOT, [
    { slug: 'ok', markdown: ok },
    { slug: 'closes-other', markdown: closesOther },
    { slug: 'early', markdown: early },
    { slug: 'marked', markdown: marked },
  ]);
  assert.equal(problems.length, 3, problems.join('\n'));
  assert.match(problems[0], /^closes-other\.md: TS2304 Cannot find name 'live'\. \(line 4 of its ts blocks\)$/);
  assert.match(problems[1], /^early\.md: TS2448 Block-scoped variable 'client' used before its declaration/);
  assert.match(problems[2], /^early\.md: TS2454 /);
});

test('check: of the closes at the end of an example, a page needs only those of what it opened', () => {
  const ending = [
    "import { Client } from '../../generated/2025-11-25/index.js';",
    "const client = new Client({ clientInfo: { name: 'app', version: '1.0.0' } });",
    "const live = new Client({ clientInfo: { name: 'admin', version: '1.0.0' } });",
    'await client.close();',
    'await live.close();',
    "console.log('ok echo');",
    '',
  ].join('\n');
  const page = (lines: string[]) => ['```ts', ...lines, '```', ''].join('\n');
  const opensClient = ["const client = new Client({ clientInfo: { name: 'app', version: '1.0.0' } });"];
  assert.equal(teardownProblems('echo', page([...opensClient, 'await client.close();']), ending), []);
  assert.equal(teardownProblems('echo', page(opensClient), ending), [
    'echo.md: the example\'s teardown line "await client.close();" is not on the page',
  ]);
  assert.is(
    teardownProblems('echo', page([...opensClient, 'const live = 1;']), ending).length,
    2,
    'a page opening live must close it',
  );
});

test('check: the Go and Python pages must show the closes of their examples', () => {
  const go =
    'func main() {\n\tclient := connect()\n\tdefer client.Close() // at exit\n\t// client.Close() is deferred\n\tuse(client)\n}\n';
  const shown = `# Go\n\n\`\`\`go\n${go}\`\`\`\n`;
  assert.equal(closeLineProblems('go.md', shown, 'go', 'main.go', go), []);
  assert.equal(
    closeLineProblems('go.md', shown.replace('\tdefer client.Close() // at exit\n', ''), 'go', 'main.go', go),
    ['go.md: main.go\'s line "defer client.Close() // at exit" is in no ```go block of the page'],
  );
  assert.is(
    closeLineProblems('go.md', shown.replace('```go', '```sh'), 'go', 'main.go', go).length,
    1,
    'only go blocks count',
  );
  const py = 'async def main():\n    client = await connect()\n    await client.close()\n';
  assert.is(
    closeLineProblems('python.md', '```python\nclient = await connect()\n```\n', 'python', 'client.py', py).length,
    1,
  );
});

test('check: the index must list every page, and list only pages that exist', () => {
  const index =
    '# Guide\n\n## Basics\n\n- [stdio](stdio.md): over stdio\n- [http](./http.md#top): over HTTP\n\n```md\n[in code](code.md)\n```\n';
  assert.equal(indexProblems(index, ['http', 'stdio']), { unlisted: [], missing: [] });
  assert.equal(indexProblems(index, ['http', 'stdio', 'tools']), { unlisted: ['tools'], missing: [] });
  assert.equal(indexProblems(index, ['stdio']), { unlisted: [], missing: ['http'] });
});

test('check: relative links, anchors and spec links must resolve', () => {
  const { dir, cleanup } = tempDir('mcpgen-guide-');
  try {
    mkdirSync(join(dir, 'guide'));
    mkdirSync(join(dir, 'spec', 'docs', '2025-11-25', 'server'), { recursive: true });
    writeFileSync(join(dir, 'spec', 'docs', '2025-11-25', 'server', 'tools.mdx'), '# Tools\n');
    writeFileSync(join(dir, 'spec', 'docs', '2025-11-25', 'index.mdx'), '# Spec\n');
    writeFileSync(
      join(dir, 'guide', 'other.md'),
      '# Other page\n\n## The rules, in short (2025-11-25)\n\n## Errors\n\n## Errors\n',
    );
    const file = join(dir, 'guide', 'echo.md');
    const spec = join(dir, 'spec');
    const check = (md: string) => linkProblems(file, md, spec);
    assert.equal(check(page), [], 'a good page passes (its code span holds no link)');
    assert.equal(
      check(
        '[a](other.md) [b](other.md#the-rules-in-short-2025-11-25) [c](other.md#errors-1) [d](https://modelcontextprotocol.io/specification/2025-11-25) [e](https://example.com/x)',
      ),
      [],
    );
    const bad = check(
      '[a](missing.md) [b](other.md#nope) [c](#nowhere) [d](https://modelcontextprotocol.io/specification/2025-11-25/server/nope#x) [e](/docs/x.md) [f](https://modelcontextprotocol.io/specification/1999-01-01/server/tools)\n\nSee [the other][o].\n\n[o]: gone.md\n',
    );
    assert.is(bad.length, 7, bad.join('\n'));
    assert.match(bad[0], 'missing.md: no such file');
    assert.match(bad[1], 'no heading #nope');
    assert.match(bad[2], 'no heading #nowhere');
    assert.match(bad[3], 'no spec page 2025-11-25/server/nope');
    assert.match(bad[4], 'a site-absolute path');
    assert.match(bad[5], 'no spec page 1999-01-01/server/tools');
    assert.match(bad[6], 'gone.md: no such file');
    assert.equal([...headingAnchors('# A `code` title\n')], ['a-code-title']);
    assert.equal(
      [...headingAnchors('# Hello, World!\n\n```sh\n# not a heading\n```\n## Hello, World!\n')],
      ['hello-world', 'hello-world-1'],
    );
  } finally {
    cleanup();
  }
});

test('check: an example must exit 0 and print "ok <slug>" last, in time', async () => {
  const { dir, cleanup } = tempDir('mcpgen-guide-run-');
  try {
    const write = (name: string, code: string) => (writeFileSync(join(dir, name), code), join(dir, name));
    // generous limits for the runs that end (a loaded machine starts tsx slowly), a short one for the hang
    const [runs, [hang]] = await Promise.all([
      runExamples(
        [
          { slug: 'good', file: write('good.ts', "console.log('working');\nconsole.log('ok good');\n") },
          { slug: 'fails', file: write('fails.ts', "console.log('ok fails');\nprocess.exitCode = 1;\n") },
          {
            slug: 'throws',
            file: write(
              'throws.ts',
              "import assert from 'node:assert/strict';\nassert.equal(1 + 1, 3);\nconsole.log('ok throws');\n",
            ),
          },
          { slug: 'wrong', file: write('wrong.ts', "console.log('ok other');\n") },
          { slug: 'late', file: write('late.ts', "console.log('ok late');\nconsole.log('done');\n") },
        ],
        { cwd: ROOT, concurrency: 2, timeoutMs: 30_000 },
      ),
      runExamples(
        [{ slug: 'hangs', file: write('hangs.ts', "setInterval(() => {}, 1000);\nconsole.log('ok hangs');\n") }],
        { cwd: ROOT, timeoutMs: 1_500 },
      ),
    ]);
    const verdicts = [...runs, hang].map(runProblem);
    assert.is(verdicts[0], undefined, verdicts[0]);
    assert.match(verdicts[1] ?? '', 'fails: exit 1');
    assert.match(verdicts[2] ?? '', 'throws: exit 1');
    assert.match(verdicts[2] ?? '', 'AssertionError');
    assert.match(verdicts[3] ?? '', 'wrong: last stdout line is "ok other", not "ok wrong"');
    assert.match(verdicts[4] ?? '', 'late: last stdout line is "done"');
    assert.match(verdicts[5] ?? '', 'hangs: did not finish within its time limit');
  } finally {
    cleanup();
  }
});

test.run();
