/** ingest restores `{@link Name | text}` links that schema.json printed without the separator. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repairLinks } from '../../generator/ingest.js';

const names = new Set(['Tool', 'ToolAnnotations', 'CallToolRequest', 'MetaObject']);
const run = (description: string) => {
  const defs = { X: { description, properties: { a: { description } } } };
  const n = repairLinks(defs as never, names);
  return { n, top: defs.X.description, nested: defs.X.properties.a.description };
};

test('a lost separator before a method name or code span is restored, at every depth', () => {
  const r = run('see {@link CallToolRequesttools/call} and {@link MetaObject`_meta` rules}');
  assert.is(r.top, 'see {@link CallToolRequest | tools/call} and {@link MetaObject | `_meta` rules}');
  assert.is(r.nested, r.top);
  assert.is(r.n, 4);
});

test('whole names, longer names sharing a prefix, and links that already have text are kept', () => {
  for (const text of [
    '{@link Tool}',
    '{@link ToolAnnotations}',
    '{@link CallToolRequest | tools/call}',
    '{@link Unknownthing}',
  ]) {
    const r = run(text);
    assert.is(r.top, text);
    assert.is(r.n, 0);
  }
});

test.run();
