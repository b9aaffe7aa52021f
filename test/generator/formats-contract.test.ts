/**
 * The formats contract between generated validators and the runtime: the generator compiles
 * against the names in generator/emit/formats.ts, the generated code calls the predicates of
 * runtime/protocol/formats.ts (through runtime/codegen/v1). Both must name the same formats, and
 * every format the generated validators call must be one of them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FORMAT_NAMES } from '../../generator/emit/formats.js';
import { formats } from '../../runtime/codegen/v1.js';
import { ROOT } from './support.js';

test('the generator and the runtime name the same formats', () => {
  assert.equal([...FORMAT_NAMES], Object.keys(formats).sort());
  for (const name of FORMAT_NAMES) assert.type((formats as Record<string, unknown>)[name], 'function', name);
});

test('generated validators call only the runtime formats, and each revision calls some', () => {
  const dir = join(ROOT, 'generated');
  const revisions = readdirSync(dir).filter((r) => /^(\d{4}-\d{2}-\d{2}|draft)$/.test(r));
  assert.ok(revisions.length >= 2, 'run mcpgen generate first');
  for (const rev of revisions) {
    const code = readFileSync(join(dir, rev, 'validators.gen.js'), 'utf8');
    // the ajv form calls `formats.<name>` / `formats["<name>"]`; the compact form names `format:"<name>"`
    const used = [...code.matchAll(/\bformats(?:\.([\w$]+)|\["([^"]+)"\])|\bformat:"([^"]+)"/g)].map(
      (m) => m[1] ?? m[2] ?? m[3],
    );
    assert.ok(used.length > 0, `${rev}: no format is checked`);
    for (const name of used)
      assert.ok(
        FORMAT_NAMES.includes(name),
        `${rev}: validators call formats.${name}, which the runtime does not define`,
      );
  }
});

test.run();
