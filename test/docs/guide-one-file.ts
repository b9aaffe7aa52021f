/**
 * The feature guide's pages run as a reader runs them: page `<slug>.md`'s ```ts blocks, in order,
 * saved as ONE file `<slug>.ts` of a user's project and run with `node --import tsx`. The project
 * is a temporary folder shaped like one that installed the packages from npm: `package.json`
 * (`"type": "module"`), `mcp/` (where it generates to: this checkout's generated/),
 * `node_modules/` (this checkout's packages, `mcpgen` itself among them, and
 * `node_modules/.bin/mcpgen`, so that `npx mcpgen` finds the local one and never the registry).
 * A page carrying FRAGMENTS_MARKER (./guide-typecheck.ts) is not one program and is left out.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ExampleRun, runExamples, tsBlocks } from './guide-check.js';
import { FRAGMENTS_MARKER, type GuidePage } from './guide-typecheck.js';

/** A user's project made of the checkout at `root` (see the module comment), and its removal. */
export function userProject(root: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-guide-pages-'));
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'guide-pages', private: true, type: 'module' })}\n`,
  );
  symlinkSync(join(root, 'generated'), join(dir, 'mcp'), 'dir');
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  for (const name of readdirSync(join(root, 'node_modules')))
    if (!name.startsWith('.')) symlinkSync(join(root, 'node_modules', name), join(modules, name));
  symlinkSync(root, join(modules, 'mcpgen'), 'dir');
  symlinkSync(join(root, 'bin', 'mcpgen.js'), join(modules, '.bin', 'mcpgen'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The pages that are one program: their slug and the file a reader saves (blocks joined by a newline). */
export function onePageFiles(pages: readonly GuidePage[]): Array<{ slug: string; text: string }> {
  return pages
    .filter((p) => !p.markdown.includes(FRAGMENTS_MARKER) && tsBlocks(p.markdown).length > 0)
    .map((p) => ({ slug: p.slug, text: `${tsBlocks(p.markdown).join('\n')}\n` }));
}

/**
 * Writes each page's file into `project` (`<slug>.ts`) and runs it there, `concurrency` at a
 * time, each killed after `timeoutMs`: the runs, in the order given.
 */
export async function runPages(
  project: string,
  files: ReadonlyArray<{ slug: string; text: string }>,
  options: { concurrency?: number; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<ExampleRun[]> {
  const examples = files.map(({ slug, text }) => {
    const file = join(project, `${slug}.ts`);
    writeFileSync(file, text);
    return { slug, file };
  });
  return runExamples(examples, {
    cwd: project,
    concurrency: options.concurrency ?? 2,
    timeoutMs: options.timeoutMs,
    env: options.env,
  });
}

/** What is wrong with a page's run (undefined: it exited 0 within its time). */
export function pageRunProblem(run: ExampleRun): string | undefined {
  if (run.code === 0 && !run.timedOut) return undefined;
  const how = run.timedOut
    ? `did not exit within its time limit (${run.ms.toFixed(0)} ms)`
    : `exit ${run.code ?? 'by signal'}`;
  const tail = run.stderr.trim().split('\n').slice(0, 12).join('\n');
  return `${run.slug}.md, its ts blocks saved as one file: ${how}\n${tail}`;
}
