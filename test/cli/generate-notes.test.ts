/**
 * What `mcpgen generate` says about its inputs on stderr: the places where upstream's schema.json
 * says less than schema.ts (followed as schema.ts says) are one `note:` line counting them per
 * revision and naming where the list is (model.json "warnings"), never a line each; a revision
 * without such places adds none; any other warning about the inputs (here: a type only schema.ts
 * defines) is still printed on its own line. The same rule for `generate --ext apps` (what the
 * extension's published inputs needed a rule of mcpgen for: one note, listed in
 * <rev>/apps/model.json) and for `mcpgen pack`. Real CLI processes.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SPEC_DIR, cli, tempDir } from '../generator/support.js';

const test = suite('cli: generate sums up where it followed schema.ts in one note');
const work = tempDir('mcpgen-notes-');
test.after(() => work.cleanup());

const warningsOf = (out: string, rev: string): string[] =>
  (JSON.parse(readFileSync(join(out, rev, 'model.json'), 'utf8')) as { warnings: string[] }).warnings;

test('generate --rev 2024-11-05,2025-11-25,draft: one note with the count per revision; no line per place', async () => {
  const out = join(work.dir, 'pinned');
  const r = await cli(['generate', '--rev', '2024-11-05,2025-11-25,draft', '--out', out]);
  assert.is(r.code, 0, r.stderr);
  const lines = r.stderr.trimEnd().split('\n');
  const n25 = warningsOf(out, '2025-11-25').length;
  const nDraft = warningsOf(out, 'draft').length;
  assert.equal(warningsOf(out, '2024-11-05'), []);
  assert.ok(n25 >= 1 && nDraft >= 1, `${n25} ${nDraft}`);
  assert.equal(lines, [
    `note: schema.json says less than schema.ts in ${n25 + nDraft} places (2025-11-25: ${n25}, draft: ${nDraft}); the generated code follows schema.ts; the list is in ${join(out, '<rev>', 'model.json')} ("warnings")`,
  ]);
  // the list the note names says what each place is
  assert.ok(
    warningsOf(out, 'draft').some((w) =>
      w.endsWith('$defs.JSONValue: schema.ts allows non-integer numbers, null; following schema.ts'),
    ),
    warningsOf(out, 'draft').join('\n'),
  );
});

test('generate --rev 2024-11-05: nothing on stderr', async () => {
  const r = await cli(['generate', '--rev', '2024-11-05', '--out', join(work.dir, 'old')]);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stderr, '');
});

test('generate --unpinned with a type only schema.ts defines: that warning on its own line, then the note naming the one model.json', async () => {
  const dir = join(work.dir, 'mixed');
  mkdirSync(dir);
  writeFileSync(join(dir, 'schema.json'), readFileSync(join(SPEC_DIR, 'schema', '2025-11-25', 'schema.json')));
  writeFileSync(
    join(dir, 'schema.ts'),
    `${readFileSync(join(SPEC_DIR, 'schema', '2025-11-25', 'schema.ts'), 'utf8')}\n/** Only here. */\nexport interface OnlyInSchemaTs {\n  a: string;\n}\n`,
  );
  const out = join(work.dir, 'mixed-out');
  const r = await cli(['generate', '--unpinned', dir, '--out', out]);
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.stderr.trimEnd().split('\n'), [
    `warning: mixed: ${join(dir, 'schema.json')} and ${join(dir, 'schema.ts')} define different types (only in schema.ts: OnlyInSchemaTs): are they from the same revision?`,
    `note: schema.json says less than schema.ts in 1 place (mixed: 1); the generated code follows schema.ts; the list is in ${join(out, 'mixed', 'model.json')} ("warnings")`,
  ]);
});

test('generate --ext apps: one note for the extension naming <rev>/apps/model.json, which lists as many places; no warning line', async () => {
  const out = join(work.dir, 'apps');
  const r = await cli(['generate', '--rev', '2025-11-25', '--ext', 'apps', '--out', out]);
  assert.is(r.code, 0, r.stderr);
  const apps = JSON.parse(readFileSync(join(out, '2025-11-25', 'apps', 'model.json'), 'utf8')) as {
    revision: string;
    warnings: string[];
  };
  assert.match(apps.revision, /^apps@\d+\.\d+\.\d+$/);
  assert.ok(apps.warnings.length >= 1, 'the pinned apps inputs need rules of mcpgen');
  // no machine path in the list: the files are named as the package names them
  assert.ok(
    apps.warnings.every((w) => /^(schema\.json|spec\.types\.d\.ts): /.test(w)),
    apps.warnings.join('\n'),
  );
  const n25 = warningsOf(out, '2025-11-25').length;
  assert.equal(r.stderr.trimEnd().split('\n'), [
    `note: schema.json says less than schema.ts in ${n25} place${n25 === 1 ? '' : 's'} (2025-11-25: ${n25}); the generated code follows schema.ts; the list is in ${join(out, '2025-11-25', 'model.json')} ("warnings")`,
    `note: ${apps.revision}: its published inputs needed a rule of mcpgen in ${apps.warnings.length} places (local definitions hoisted, directions from generator/extension/overrides.ts, results typed as Result), applied; the list is in ${join(out, '2025-11-25', 'apps', 'model.json')} ("warnings")`,
  ]);
});

test('pack --rev 2025-11-25: the places where schema.json says less are one note naming where generate lists them; no warning line', async () => {
  const out = join(work.dir, 'packed');
  const r = await cli(['pack', '--rev', '2025-11-25', '--out', out]);
  assert.is(r.code, 0, r.stderr);
  const n25 = warningsOf(join(work.dir, 'apps'), '2025-11-25').length;
  assert.equal(r.stderr.trimEnd().split('\n'), [
    `note: schema.json says less than schema.ts in ${n25} place${n25 === 1 ? '' : 's'} (2025-11-25: ${n25}); the generated code follows schema.ts; the list is in the 2025-11-25/model.json \`mcpgen generate\` writes ("warnings")`,
  ]);
});

test.run();
