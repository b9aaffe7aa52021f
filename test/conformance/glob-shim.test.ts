/** The fs.globSync stand-in the conformance suites get on Node 20 (./fs-glob.mjs). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
// @ts-expect-error plain JavaScript module without declarations
import { globSync } from './fs-glob.mjs';

const glob = globSync as (pattern: string | string[], options?: { cwd?: string }) => string[];

test('**/name, *, ? and literal segments relative to cwd', () => {
  const dir = mkdtempSync(join(tmpdir(), 'glob-'));
  try {
    for (const p of ['checks.json', 'a/checks.json', 'a/b/checks.json', 'a/other.json', 'b/x1.txt', 'b/x22.txt']) {
      mkdirSync(join(dir, p, '..'), { recursive: true });
      writeFileSync(join(dir, p), '');
    }
    assert.equal(
      glob('**/checks.json', { cwd: dir }).sort(),
      ['a/b/checks.json', 'a/checks.json', 'checks.json'].map((p) => p.split('/').join(sep)),
    );
    assert.equal(
      glob('a/*.json', { cwd: dir }).sort(),
      ['a/checks.json', 'a/other.json'].map((p) => p.split('/').join(sep)),
    );
    assert.equal(glob('b/x?.txt', { cwd: dir }), [['b', 'x1.txt'].join(sep)]);
    assert.equal(glob('nothing/**/x', { cwd: dir }), []);
    assert.equal(glob('**/checks.json', { cwd: join(dir, 'missing') }), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
