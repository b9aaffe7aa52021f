/**
 * The tree obeys its formatter and linter (biome.jsonc): `biome ci --error-on-warnings` reports no
 * formatting difference and no lint error or warning over every file Biome checks (generated output
 * excluded). A file
 * written against the rules, placed in a temporary tree with the same configuration, must be
 * reported, so the check cannot pass by checking nothing.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIOME = join(ROOT, 'node_modules/@biomejs/biome/bin/biome');

function biome(cwd: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIOME, 'ci', '--colors=off', ...args], { cwd, encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test('biome ci: the tree is formatted and free of lint errors and warnings', () => {
  const r = biome(ROOT, '--error-on-warnings', '.');
  assert.is(r.status, 0, r.out.slice(-4000));
  assert.match(r.out, /Checked \d+ files/);
});

test('biome ci: a misformatted file and a lint error are reported', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpgen-lint-'));
  try {
    copyFileSync(join(ROOT, 'biome.jsonc'), join(dir, 'biome.jsonc'));
    writeFileSync(join(dir, 'bad-format.ts'), 'export const a = {b:1}\n');
    writeFileSync(join(dir, 'bad-lint.ts'), "import { readFileSync } from 'node:fs';\nexport const x = 1;\n");
    const r = biome(dir, '--vcs-enabled=false', '.');
    assert.is.not(r.status, 0);
    assert.match(r.out, /bad-format\.ts/);
    assert.match(r.out, /noUnusedImports/);
    // a warning (an unused suppression) fails the check too
    writeFileSync(join(dir, 'bad-format.ts'), 'export const a = { b: 1 };\n');
    writeFileSync(
      join(dir, 'bad-lint.ts'),
      '// biome-ignore lint/suspicious/noExplicitAny: nothing to suppress\nexport const x = 1;\n',
    );
    const w = biome(dir, '--vcs-enabled=false', '--error-on-warnings', '.');
    assert.is.not(w.status, 0, w.out);
    assert.match(w.out, /suppressions\/unused/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
