/**
 * Every page of the feature guide runs as ONE file, the way a reader copies it: its ```ts blocks
 * in order, saved as `<slug>.ts` in a project that installed mcpgen and @mcpgen/runtime
 * (./guide-one-file.ts), run with `node --import tsx`: exit 0 within the time limit. The
 * examples (guide.test.ts) hold each block verbatim but may order them otherwise and add what
 * the page lacks; this run is what a page read from top to bottom does. The last test shows it
 * fails on docs/guide/content.md as it was before 4b52f08 (its resource and prompt registered
 * after the server read the capabilities: readResource failed).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { guideSlugs } from './guide-check.js';
import { onePageFiles, pageRunProblem, runPages, userProject } from './guide-one-file.js';
import { pulledCache } from './pulled-cache.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GUIDE = join(ROOT, 'docs', 'guide');
const SPEC_DIR = resolve(ROOT, process.env.MCP_SPEC_DIR ?? '../shared/mcp-spec');
const pages = guideSlugs(GUIDE).map((slug) => ({ slug, markdown: readFileSync(join(GUIDE, `${slug}.md`), 'utf8') }));

test('every page, its ts blocks saved as one file of a user project, runs to exit 0', async () => {
  const files = onePageFiles(pages);
  assert.ok(files.length >= 25, `only ${files.length} pages are one program`);
  // the user's cache as `mcpgen pull` fills it (pinning reads its inputs there)
  const cache = await pulledCache(SPEC_DIR);
  const project = userProject(ROOT);
  try {
    const t0 = performance.now();
    // the toolchain pages (bindings: three compilers) need minutes on a loaded runner; a hang is still caught
    const runs = await runPages(project.dir, files, {
      concurrency: 2,
      timeoutMs: 300_000,
      env: { ...process.env, MCPGEN_CACHE: cache.dir },
    });
    const slowest = [...runs]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 3)
      .map((r) => `${r.slug} ${(r.ms / 1000).toFixed(1)}s`);
    console.log(
      `  guide pages as one file: ${runs.length} in ${((performance.now() - t0) / 1000).toFixed(1)}s (slowest: ${slowest.join(', ')})`,
    );
    assert.equal(
      runs.map(pageRunProblem).filter((p) => p !== undefined),
      [],
    );
  } finally {
    project.cleanup();
    cache.cleanup();
  }
});

test('check: content.md before 4b52f08 (resource and prompt registered after the server was made) fails the run', async () => {
  const markdown = readFileSync(join(ROOT, 'test', 'docs', 'fixtures', 'content-before-4b52f08.md'), 'utf8');
  const project = userProject(ROOT);
  try {
    const [run] = await runPages(project.dir, onePageFiles([{ slug: 'content', markdown }]), { timeoutMs: 120_000 });
    const problem = pageRunProblem(run);
    assert.ok(problem !== undefined, 'the faulty page ran to exit 0');
    assert.match(problem, /^content\.md, its ts blocks saved as one file: exit 1\n/);
  } finally {
    project.cleanup();
  }
});

test.run();
