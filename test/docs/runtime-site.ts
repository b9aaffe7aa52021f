/**
 * The runtime site of `npm run docs` (the runtime's API, the manual and the guide), built once per
 * test process into a temporary folder, with typedoc's JSON model beside the HTML: the docs
 * tests share it (test/cli/pack/docs-site.test.ts reads the model, test/docs/site.test.ts renders
 * the pages in Chromium). The folder is `<dir>/html/runtime/`, with the site's home page in
 * `<dir>/html/index.html` once the build succeeded, as `npm run docs` lays them out.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DocsResult, buildRuntimeDocs, writeHome } from '../../scripts/docs.js';
import { tempDir } from '../generator/support.js';

export interface RuntimeSite extends DocsResult {
  /** The output root: `index.html` (the home) and `runtime/`. */
  root: string;
  /** The runtime site folder. */
  html: string;
  /** typedoc's JSON model of the site (empty when the build failed). */
  project: unknown;
}

const site = tempDir('mcpgen-docs-runtime-');
// the tests that read it run one after another in one process: the folder goes when it exits
process.once('exit', () => site.cleanup());
let built: Promise<RuntimeSite> | undefined;

/** Builds the site on the first call; every call gets that one build. */
export function runtimeSite(): Promise<RuntimeSite> {
  built ??= (async () => {
    const root = join(site.dir, 'html');
    const html = join(root, 'runtime');
    const json = join(site.dir, 'model.json');
    const r = await buildRuntimeDocs({ out: html, json });
    if (r.ok) writeHome(root, { runtime: true, revisions: [] });
    return { ...r, root, html, project: r.ok ? JSON.parse(readFileSync(json, 'utf8')) : {} };
  })();
  return built;
}
