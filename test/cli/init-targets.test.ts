/**
 * `mcpgen init` refuses what it cannot make, at once, with a message naming the thing and the
 * cause, and leaves nothing behind:
 * - a folder that cannot be made or written (/proc, a file in its path, a file where the folder
 *   should be) is exit 3 naming the folder; under /proc a recursive mkdir loops forever, so these
 *   run as processes with a deadline: a hang fails the test instead of stopping the suite;
 * - `--rev` takes one revision: a list is named as one, with a hint for each unknown item;
 * - `--http` for a revision without Streamable HTTP (2024-11-05: HTTP+SSE) is exit 2.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../cli/main.js';
import { ROOT, SPEC_DIR, tempDir } from '../generator/support.js';

const work = tempDir('mcpgen-init-targets-');
const LIMIT = 60_000;

/** `mcpgen init …` as a process: its exit code (null: killed at the deadline) and stderr. */
function initProcess(args: string[]): Promise<{ code: number | null; err: string }> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [join(ROOT, 'bin', 'mcpgen.js'), 'init', ...args, '--spec-dir', SPEC_DIR],
      { timeout: LIMIT, killSignal: 'SIGKILL' },
      (_error, _stdout, stderr) => done({ code: child.exitCode, err: String(stderr) }),
    );
  });
}

async function init(args: string[]): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const code = await main(['init', ...args, '--spec-dir', SPEC_DIR], { out: () => undefined, err: (l) => err.push(l) });
  return { code, err: err.join('\n') };
}

test('a folder that cannot be made is exit 3 naming it and the cause, never a hang', async () => {
  const file = join(work.dir, 'a-file');
  writeFileSync(file, 'mine');
  const cases: Array<[string, RegExp]> = [
    [join(file, 'sub'), /exists and is not a folder/],
    [file, /exists and is not a folder/],
  ];
  if (existsSync('/proc/self')) {
    cases.push(['/proc/mcpgen-init-x', /cannot create \/proc\/mcpgen-init-x: \/proc does not accept new entries/]);
    cases.push(['/proc/mcpgen-init-x/y', /cannot create \/proc\/mcpgen-init-x/]);
  }
  const runs = await Promise.all(cases.map(([dir]) => initProcess([dir])));
  runs.forEach((r, i) => {
    const [dir, why] = cases[i];
    assert.is(r.code, 3, `${dir}: exit ${r.code} (null: still running after ${LIMIT} ms)\n${r.err}`);
    assert.match(r.err, `mcpgen init: ${dir}: `);
    assert.match(r.err, why);
    assert.not.match(r.err, /\n\s+at /, 'no stack');
  });
  assert.equal(readdirSync(work.dir), ['a-file'], 'nothing left behind');
});

test('--rev takes one revision: a list is named as one, each unknown item with its hint', async () => {
  const dir = join(work.dir, 'list');
  const bad = await init([dir, '--rev', '2025-11-25,drfat']);
  assert.is(bad.code, 2);
  assert.match(
    bad.err,
    '--rev: one revision, not the list "2025-11-25,drfat"; unknown revision "drfat"; did you mean draft? (revisions: ',
  );
  const two = await init([dir, '--rev', '2025-11-25,2025-06-18']);
  assert.is(two.code, 2);
  assert.match(two.err, '--rev: one revision, not the list "2025-11-25,2025-06-18" (revisions: ');
  assert.not.match(two.err, 'unknown revision');
  // serve, call and tools load one generated revision the same way
  const serve = await main(['serve', '--stdio', '--rev', '2025-11-25,drfat'], {
    out: () => undefined,
    err: (l) =>
      assert.match(l, 'one revision, not the list "2025-11-25,drfat"; unknown revision "drfat"; did you mean draft?'),
  });
  assert.is(serve, 2);
  assert.not.ok(existsSync(dir), 'nothing written');
});

test('--http for a revision whose HTTP transport is HTTP+SSE (2024-11-05) is refused, nothing left behind', async () => {
  const dir = join(work.dir, 'old-http');
  const r = await init([dir, '--rev', '2024-11-05', '--http']);
  assert.is(r.code, 2, r.err);
  assert.match(r.err, '--http: revision 2024-11-05 has no Streamable HTTP transport');
  assert.match(r.err, /use --stdio .*2025-03-26, 2025-06-18, 2025-11-25/);
  assert.not.match(r.err, /2024-11-05, /, 'not offered as a Streamable HTTP revision');
  assert.not.ok(existsSync(dir), 'the folder made for it is removed');
  // an empty folder the user made stays
  const mine = join(work.dir, 'mine');
  mkdirSync(mine);
  assert.is((await init([mine, '--rev', '2024-11-05', '--http'])).code, 2);
  assert.ok(existsSync(mine));
});

test.after(() => work.cleanup());
test.run();
