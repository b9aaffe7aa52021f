/**
 * `mcpgen check`: a fresh generation passes; an edited, a missing and an extra file each fail
 * it, named in the output (an edit with its first differing lines).
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { run } from './support.js';

const test = suite('diff: mcpgen check');

let dir = '';
const REV = 'draft';

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mcpgen-check-test-'));
  const g = await run(['generate', '--rev', REV, '--out', dir]);
  assert.is(g.code, 0, g.err);
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

const check = () => run(['check', '--rev', REV, '--out', dir]);

test('a fresh generation passes', async () => {
  const r = await check();
  assert.is(r.code, 0, r.out);
  assert.match(r.out, /^check ok: \d+ file\(s\) of 1 revision\(s\) match a fresh generation$/m);
});

test('an edited file fails the check, named, with its first differing lines', async () => {
  const file = join(dir, REV, 'model.json');
  const was = readFileSync(file, 'utf8');
  try {
    writeFileSync(file, was.replace('"lifecycle": "stateless"', '"lifecycle": "handshake"'));
    const r = await check();
    assert.is(r.code, 1);
    assert.match(r.out, `changed  ${join(dir, REV, 'model.json')}`);
    assert.match(r.out, '-  "lifecycle": "handshake",');
    assert.match(r.out, '+  "lifecycle": "stateless",');
    assert.match(r.out, /^@@ -\d+,\d+ \+\d+,\d+ @@$/m);
    assert.match(r.out, /check failed: 1 file\(s\) differ/);
    assert.not.match(r.out, 'types.gen.ts', 'only the edited file is named');
  } finally {
    writeFileSync(file, was);
  }
  assert.is((await check()).code, 0, 'restored');
});

test('a missing file and an extra file fail the check', async () => {
  const gone = join(dir, REV, 'index.ts');
  const keep = readFileSync(gone, 'utf8');
  const extra = join(dir, REV, 'stale.gen.ts');
  try {
    unlinkSync(gone);
    writeFileSync(extra, 'export {};\n');
    const r = await check();
    assert.is(r.code, 1);
    assert.match(r.out, `added    ${gone}`);
    assert.match(r.out, `removed  ${extra}`);
    assert.match(r.out, /check failed: 2 file\(s\) differ/);
  } finally {
    writeFileSync(gone, keep);
    rmSync(extra, { force: true });
  }
});

test('a line appended by hand shows as one regeneration removes', async () => {
  const file = join(dir, REV, 'protocol.gen.ts');
  const was = readFileSync(file, 'utf8');
  try {
    appendFileSync(file, '// edited by hand\n');
    const r = await check();
    assert.is(r.code, 1);
    assert.match(r.out, `changed  ${file}`);
    assert.match(r.out, '-// edited by hand');
  } finally {
    writeFileSync(file, was);
  }
});

test('a folder that was never generated fails with every file added', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'mcpgen-check-empty-'));
  try {
    const r = await run(['check', '--rev', REV, '--out', empty]);
    assert.is(r.code, 1);
    assert.match(r.out, `added    ${join(empty, REV, 'model.json')}`);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test('usage errors', async () => {
  assert.is((await run(['check', '--spec-dir', 'x', '--unpinned', 'y'])).code, 2);
  assert.is((await run(['check', '--bogus'])).code, 2);
});

test.run();
