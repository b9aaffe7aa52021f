/**
 * `mcpgen init` without --runtime or --mcpgen writes the default `^<version>` specs, which npm
 * cannot install while this version is not on the registry: init says so at once, on stderr,
 * naming the flags to pass, and still writes the project; with both flags it says nothing of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../cli/main.js';
import { MCPGEN_VERSION } from '../../generator/emit/common.js';
import { SPEC_DIR, tempDir } from '../generator/support.js';

const t = tempDir('mcpgen-init-registry-');

async function init(args: string[]): Promise<{ code: number; err: string[] }> {
  const err: string[] = [];
  const code = await main(['init', ...args, '--spec-dir', SPEC_DIR], { out: () => {}, err: (l) => void err.push(l) });
  // init's own lines (generate's notes about the inputs are not its subject)
  return { code, err: err.filter((l) => l.startsWith('mcpgen init:')) };
}

test('init without --runtime and --mcpgen warns that npm install will fail, naming both flags', async () => {
  const r = await init([join(t.dir, 'none')]);
  assert.is(r.code, 0, r.err.join('\n'));
  assert.equal(r.err, [
    `mcpgen init: warning: @mcpgen/runtime ^${MCPGEN_VERSION} and mcpgen ^${MCPGEN_VERSION} are not on the npm registry yet, so npm install will fail: pass --runtime file:<the runtime tarball> and --mcpgen file:<the mcpgen tarball or checkout> (as mcpgen's README shows)`,
  ]);
  const made = JSON.parse(readFileSync(join(t.dir, 'none', 'package.json'), 'utf8'));
  assert.is(made.dependencies['@mcpgen/runtime'], `^${MCPGEN_VERSION}`);
});

test('init with one of the flags warns of the other only; with both, of neither', async () => {
  const one = await init([join(t.dir, 'one'), '--runtime', '^0.9.0']);
  assert.is(one.code, 0, one.err.join('\n'));
  assert.equal(one.err, [
    `mcpgen init: warning: mcpgen ^${MCPGEN_VERSION} is not on the npm registry yet, so npm install will fail: pass --mcpgen file:<the mcpgen tarball or checkout> (as mcpgen's README shows)`,
  ]);
  const both = await init([join(t.dir, 'both'), '--runtime', '^0.9.0', '--mcpgen', '^0.9.0']);
  assert.is(both.code, 0, both.err.join('\n'));
  assert.equal(both.err, []);
});

test.after(() => t.cleanup());

test.run();
