/**
 * The own binding emitters (generator/emit/bindings/own.ts) as pure functions: the same model
 * gives byte-identical files whatever its key order; every file starts with the generated-file
 * preamble in its comment syntax, has LF endings and one trailing newline; `generate` with
 * `--target` routes these languages to them; and the shared doc pass writes the
 * `@see <rev> #/$defs/X` back-reference.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  OWN_BINDING_LANGUAGE_IDS,
  OWN_BINDING_LANGUAGES,
  TARGET_IDS,
  WITHDRAWN_TARGETS,
  emitTargets,
} from '../../../generator/emit/bindings/index.js';
import { pascal, snake, uniqueNames } from '../../../generator/emit/naming.js';
import { buildShape } from '../../../generator/emit/shape.js';
import { inputHash, preamble } from '../../../generator/emit/common.js';
import { generate } from '../../../generator/generate.js';
import type { ProtocolModel } from '../../../generator/model.js';
import { REVISIONS, loadModel } from './own.js';

function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).reverse()) out[key] = reverseKeys((value as Record<string, unknown>)[key]);
  return out;
}

const commentOf = (path: string): string => (/\.(py|toml|typed)$/.test(path) ? '#' : '//');

/**
 * The preamble line of a file: its first line, as a line comment; in an XML file (pom.xml,
 * .csproj), an XML comment after the XML declaration if there is one.
 */
function preambleOf(model: ProtocolModel, path: string, text: string): [actual: string, expected: string] {
  const lines = text.split('\n');
  if (!/\.(xml|csproj)$/.test(path)) return [lines[0], preamble(model, commentOf(path))];
  const line = lines[0].startsWith('<?xml ') ? lines[1] : lines[0];
  return [line, `<!-- ${preamble(model, '').trim()} -->`];
}

for (const id of OWN_BINDING_LANGUAGE_IDS) {
  for (const revision of REVISIONS) {
    test(`${id} ${revision}: byte-identical output whatever the model's key order`, () => {
      const model = loadModel(revision);
      const a = OWN_BINDING_LANGUAGES[id].emit(model);
      const b = OWN_BINDING_LANGUAGES[id].emit(reverseKeys(model) as ProtocolModel);
      assert.equal([...a.keys()].sort(), [...b.keys()].sort());
      for (const [path, text] of a) assert.ok(b.get(path) === text, `${path} differs`);
    });

    test(`${id} ${revision}: preamble, LF endings, one trailing newline, under bindings/${id}/`, () => {
      const model = loadModel(revision);
      const files = OWN_BINDING_LANGUAGES[id].emit(model);
      assert.ok(files.size >= 2, 'a package file and the sources');
      for (const [path, text] of files) {
        assert.ok(path.startsWith(`bindings/${id}/`), path);
        const [actual, expected] = preambleOf(model, path, text);
        assert.is(actual, expected, path);
        assert.ok(text.includes(inputHash(model)), path);
        assert.not.ok(text.includes('\r'), `${path} has CR`);
        assert.ok(text.endsWith('\n') && !text.endsWith('\n\n'), `${path}: trailing newline`);
        assert.not.match(text, /[ \t]+\n/, `${path}: trailing blanks`);
      }
      const all = [...files.values()].join('\n');
      assert.ok(all.includes(`@see ${revision} #/$defs/CallToolRequest`), 'doc back-reference');
    });
  }
}

test('generate --target routes each language to its emitter; withdrawn targets are refused with the reason', async () => {
  const model = loadModel('2025-11-25');
  const files = await generate(model, { targets: [...OWN_BINDING_LANGUAGE_IDS] });
  for (const id of OWN_BINDING_LANGUAGE_IDS) {
    for (const [path, text] of OWN_BINDING_LANGUAGES[id].emit(model)) assert.ok(files.get(path) === text, path);
  }
  const direct = await emitTargets(model, [...OWN_BINDING_LANGUAGE_IDS]);
  assert.equal(
    [...direct.keys()],
    [...files.keys()].filter((p) => p.startsWith('bindings/')),
  );
  for (const id of ['cpp', 'swift']) {
    const error = await emitTargets(model, ['python', id]).then(
      () => undefined,
      (e: Error) => e.message,
    );
    assert.is(error, WITHDRAWN_TARGETS[id]);
    assert.match(error!, /withdrawn: its quicktype-rendered binding dropped undeclared members/);
  }
  assert.is(
    await emitTargets(model, ['cobol']).then(
      () => undefined,
      (e: Error) => e.message,
    ),
    `unknown target cobol (targets: ${TARGET_IDS.join(', ')})`,
  );
});

test('the table says how each language is tested, and scripts/ci-toolchains.sh installs exactly its packages', () => {
  for (const id of OWN_BINDING_LANGUAGE_IDS) {
    const { test: t } = OWN_BINDING_LANGUAGES[id];
    assert.is(t.kind, 'round-trip', id);
    assert.ok(t.why.length > 10, `${id}: why`);
    assert.ok(t.aptPackages.length > 0, `${id}: packages`);
  }
  const script = readFileSync(fileURLToPath(new URL('../../../scripts/ci-toolchains.sh', import.meta.url)), 'utf8');
  const words = (name: string): string[] => {
    const block = new RegExp(`^${name}=\\(\\n([^]*?)^\\)$`, 'm').exec(script);
    assert.ok(block, `${name}=( … ) block`);
    return block![1]
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .flatMap((line) => line.split(/\s+/))
      .filter((word) => word !== '');
  };
  // cargo is added by the script only where no cargo is on PATH.
  assert.match(script, /packages\+=\(cargo\)/);
  const fromTable = new Set(OWN_BINDING_LANGUAGE_IDS.flatMap((id) => [...OWN_BINDING_LANGUAGES[id].test.aptPackages]));
  assert.equal([...new Set([...words('packages'), 'cargo'])].sort(), [...fromTable].sort());
  // besides the toolchains: what the tests start (browser, Redis, OCR), added to the same install
  assert.equal(words('services'), ['chromium', 'redis-server', 'tesseract-ocr', 'tesseract-ocr-eng']);
  assert.match(script, /packages\+=\("\$\{services\[@\]\}"\)/);
});

test('naming pass: pascal, snake and the clash rule', () => {
  assert.equal(['list_changed', '_meta', 'resource-link', 'io.modelcontextprotocol/clientInfo'].map(pascal), [
    'ListChanged',
    'Meta',
    'ResourceLink',
    'IoModelcontextprotocolClientInfo',
  ]);
  assert.equal(['listChanged', '_meta', 'JSONRPCRequest', 'URLElicitation', 'mimeType'].map(snake), [
    'list_changed',
    'meta',
    'jsonrpc_request',
    'url_elicitation',
    'mime_type',
  ]);
  assert.equal(uniqueNames(['a', 'a', 'from', 'b'], new Set(['from']), new Set(['b'])), ['a', 'a2', 'from_', 'b2']);
});

test('shape: discriminants found where the schema has them, none where it has not', () => {
  const shape = buildShape(loadModel('2025-11-25'));
  const tag = (name: string) => {
    const d = shape.byName.get(name);
    assert.ok(d?.kind === 'union', `${name} is a union`);
    return d.kind === 'union' ? d.tag : undefined;
  };
  assert.equal(tag('ContentBlock'), {
    kind: 'const',
    member: 'type',
    values: ['text', 'image', 'audio', 'resource_link', 'resource'],
  });
  assert.is((tag('ClientRequest') as { member: string }).member, 'method');
  assert.equal(tag('JSONRPCMessage'), { kind: 'jsonrpc', kinds: ['request', 'notification', 'result', 'error'] });
  assert.equal(tag('ServerResult'), { kind: 'none' });
  const text = shape.byName.get('TextContent');
  assert.ok(text?.kind === 'struct');
  if (text?.kind === 'struct') {
    assert.equal(
      text.fields.map((f) => [f.json, f.required]),
      [
        ['_meta', false],
        ['annotations', false],
        ['text', true],
        ['type', true],
      ],
    );
    assert.equal(text.fields[0].ty, { k: 'map', values: { k: 'any' } });
  }
});

/**
 * Golden list of the shape's declarations (the names all three emitters declare, with kind and
 * tag), per revision: a rename of a hoisted type shows as a diff here. After checking it,
 * update with UPDATE_SNAPSHOTS=1 node --import tsx test/run.ts bindings/own-emit
 */
for (const revision of REVISIONS) {
  test(`shape ${revision}: declaration names match the golden list`, () => {
    const shape = buildShape(loadModel(revision));
    const lines = shape.decls.map((d) => {
      if (d.kind === 'union')
        return `${d.name} union ${d.tag.kind === 'const' ? `tag=${d.tag.member}` : d.tag.kind === 'jsonrpc' ? 'tag=jsonrpc-kind' : 'untagged'}`;
      return `${d.name} ${d.kind}`;
    });
    const path = fileURLToPath(new URL(`./names/shape-${revision}.txt`, import.meta.url));
    const actual = `${lines.join('\n')}\n`;
    if (process.env.UPDATE_SNAPSHOTS === '1') writeFileSync(path, actual);
    assert.ok(existsSync(path), `no golden list ${path}; create it with UPDATE_SNAPSHOTS=1`);
    const expected = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    const added = lines.filter((l) => !expected.includes(l));
    const removed = expected.filter((l) => !lines.includes(l));
    assert.ok(
      added.length === 0 && removed.length === 0,
      `declarations changed (+ new, - gone):\n${[...added.map((l) => `  + ${l}`), ...removed.map((l) => `  - ${l}`)].join('\n')}`,
    );
  });
}

test.run();
