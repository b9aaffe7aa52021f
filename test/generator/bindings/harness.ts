/**
 * Shared by the binding tests: the check that a file a toolchain needs is installed, and temp
 * folders that live as long as the test process.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';

const scratch = new Map<string, string>();
process.on('exit', () => {
  for (const dir of scratch.values()) rmSync(dir, { recursive: true, force: true });
});

/** A temp folder shared by this test process under `name` (e.g. cargo's target folder). */
export function scratchDir(name: string): string {
  let dir = scratch.get(name);
  if (dir === undefined) {
    dir = mkdtempSync(join(tmpdir(), `mcpgen-bindings-${name}-`));
    scratch.set(name, dir);
  }
  return dir;
}

/** Fails, naming the Debian package, when a file a toolchain needs is missing. */
export function requireFile(language: string, path: string, aptPackage: string): void {
  assert.ok(
    existsSync(path),
    `${language}: ${path} is missing; install it with: apt-get install -y --no-install-recommends ${aptPackage} (or run scripts/ci-toolchains.sh)`,
  );
}
