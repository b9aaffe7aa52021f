/**
 * `npm run docs`: typedoc HTML for a generated revision builds with no warning and no error.
 * The draft revision is the one whose schema.json carries fused `{@link …}` tags and links into
 * inline object members: it is generated into a temporary folder, then the docs script runs on it
 * as a process (time-bounded) into another temporary folder. Every other pinned revision's
 * reference is built from generated/ (what `npm run generate` wrote) in one more process, with
 * the link check and the home page linking each.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT, SPEC_DIR, cli, tempDir, tempOutput } from '../../generator/support.js';

const test = suite('docs: typedoc HTML of a generated revision, no warnings');
const REV = 'draft';

/** `scripts/docs.ts` with `args`, killed after `ms` (typedoc took 99 s of wall time for 10 s of CPU on a loaded runner). */
function docs(args: string[], ms = 300_000): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'docs.ts'), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, out });
    });
  });
}

test(`docs of ${REV}: exit 0, no warning, pages for Client, Server and the linked types`, async () => {
  const gen = tempOutput();
  const html = tempDir('mcpgen-docs-test-');
  try {
    const g = await cli(['generate', '--rev', REV, '--out', gen.out], { MCP_SPEC_DIR: SPEC_DIR });
    assert.is(g.code, 0, g.stderr);
    const r = await docs([REV, '--generated', gen.out, '--out', html.dir]);
    assert.is(r.code, 0, r.out);
    assert.not.match(r.out, /\[(warning|error)\]/, r.out);
    assert.match(r.out, `docs: 1 revision(s), no warnings`);
    const site = join(html.dir, REV);
    for (const page of ['index.html', 'classes/Client.html', 'classes/Server.html', 'types/CallToolRequest.html']) {
      assert.ok(existsSync(join(site, page)), `${page} missing`);
    }
    // a fused link of schema.json renders as a link to its type, with the method as text
    const page = readFileSync(join(site, 'types', 'ResourceListChangedNotification.html'), 'utf8');
    assert.match(page, /<a href="SubscriptionsListenRequest\.html"[^>]*>subscriptions\/listen<\/a>/);
  } finally {
    gen.cleanup();
    html.cleanup();
  }
});

test('docs of every other pinned revision (generated/ as npm run generate made it): exit 0, no warning, no broken link', async () => {
  const generated = join(ROOT, 'generated');
  const revisions = readdirSync(generated)
    .filter((d) => d !== REV && existsSync(join(generated, d, 'index.ts')))
    .sort();
  assert.ok(revisions.length >= 4, `only ${revisions.join(', ')} in ${generated}: run npm run generate`);
  const html = tempDir('mcpgen-docs-all-');
  try {
    // one process for all of them: about 10 s of CPU each on top of typedoc's start
    const r = await docs(['--rev', revisions.join(','), '--out', html.dir], 900_000);
    assert.is(r.code, 0, r.out);
    assert.not.match(r.out, /\[(warning|error)\]|broken link/, r.out);
    assert.match(r.out, `docs: ${revisions.length} revision(s), no warnings`);
    for (const rev of revisions)
      for (const page of ['index.html', 'classes/Client.html', 'classes/Server.html', 'types/CallToolRequest.html'])
        assert.ok(existsSync(join(html.dir, rev, page)), `${rev}/${page} missing`);
    const home = readFileSync(join(html.dir, 'index.html'), 'utf8');
    for (const rev of revisions) assert.match(home, `href="${rev}/index.html"`);
  } finally {
    html.cleanup();
  }
});

test('docs: a revision that was not generated fails, naming it', async () => {
  const empty = tempDir('mcpgen-docs-none-');
  try {
    const r = await docs(['2025-11-25', '--generated', empty.dir, '--out', join(empty.dir, 'html')], 120_000);
    assert.is.not(r.code, 0);
    assert.match(r.out, join(empty.dir, '2025-11-25', 'index.ts'));
  } finally {
    empty.cleanup();
  }
});

test.run();
