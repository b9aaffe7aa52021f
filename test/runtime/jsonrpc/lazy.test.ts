/**
 * ../../../runtime/jsonrpc/lazy.ts: one import per process, joined by concurrent callers, kept
 * once in (`loaded()`), forgotten when it fails so that the next call imports again.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lazy } from '../../../runtime/jsonrpc/lazy.js';

const dir = mkdtempSync(join(tmpdir(), 'mcpgen-lazy-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('concurrent loads share one import; loaded() is undefined until it resolves, then the module', async () => {
  let imports = 0;
  const file = join(dir, 'one.mjs');
  writeFileSync(file, 'export const answer = 42;\n');
  const m = lazy(() => (imports++, import(pathToFileURL(file).href) as Promise<{ answer: number }>));
  assert.is(m.loaded(), undefined);
  const [a, b] = [m.load(), m.load()];
  assert.is(a, b, 'the second call joins the import under way');
  assert.is(m.loaded(), undefined, 'not in before the import resolves');
  assert.is((await a).answer, 42);
  assert.is(m.loaded()?.answer, 42);
  assert.is(await m.load(), await a);
  assert.is(imports, 1);
});

test('a failed import rejects with its error and is tried again by the next load', async () => {
  const file = join(dir, 'later.mjs');
  let imports = 0;
  // a query string per attempt: node caches a failed import of one URL
  const m = lazy(() => import(`${pathToFileURL(file).href}?${++imports}`) as Promise<{ ok: boolean }>);
  await m.load().then(
    () => assert.unreachable('the file is not there yet'),
    (e: NodeJS.ErrnoException) => assert.is(e.code, 'ERR_MODULE_NOT_FOUND'),
  );
  assert.is(m.loaded(), undefined);
  writeFileSync(file, 'export const ok = true;\n');
  assert.is((await m.load()).ok, true);
  assert.is(m.loaded()?.ok, true);
  assert.is(imports, 2);
});

test.run();
