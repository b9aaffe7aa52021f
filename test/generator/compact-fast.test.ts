/**
 * The boolean checks the generator writes as code for the hot compact validators
 * (generator/emit/compact-fast.ts) against the ones the runtime builds from the same data
 * (runtime/protocol/compact-fast.ts): one set of definitions using every keyword the code form
 * covers (types, several types, const and enum of each JSON type, bounds with and without a
 * type, formats, arrays with items and maxItems, closed objects, additionalProperties schemas,
 * object keywords without a type, required members without a schema, anyOf with references and
 * inline branches, allOf with object parts, false schemas, references to validators without
 * code, aliases, recursion) is emitted twice, with code for every definition and with none;
 * both modules must answer alike (validity and `errors`) on thousands of random JSON values,
 * and the written checks alike with the runtime's. The real revisions' hot validators are held
 * to ajv by test/runtime/protocol/compact.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emitCompactValidators } from '../../generator/emit/compact.js';
import { HOT_VALIDATORS } from '../../generator/emit/compact-fast.js';
import type { ProtocolModel } from '../../generator/model.js';
import { CELLS } from '../../runtime/protocol/compact-data.js';
import type { Validator } from '../../runtime/protocol/table.js';
import { ROOT } from './support.js';

const ref = (n: string) => ({ $ref: `#/$defs/${n}` });
const DEFS: Record<string, unknown> = {
  Leafy: { type: ['string', 'integer', 'null'] },
  Num: { type: 'number', minimum: 0, maximum: 10 },
  Bounds: { maximum: 3 },
  IntBounds: { type: ['integer', 'null'], minimum: 1 },
  Kind: { type: 'string', enum: ['a', 'b'] },
  EnumMixed: { enum: ['a', 1, null, true] },
  EnumTyped: { type: 'string', enum: ['a', 1] },
  Const2: { const: 2 },
  ConstTyped: { type: 'integer', const: 'x' },
  ConstNull: { type: 'null', const: null },
  Uri: { type: 'string', format: 'uri' },
  UriLoose: { format: 'uri' },
  Bytes: { type: ['string', 'null'], format: 'byte' },
  List: { type: 'array', items: ref('Kind'), maxItems: 2 },
  ListLoose: { items: { type: 'integer' } },
  Max: { maxItems: 1 },
  Closed: {
    type: 'object',
    properties: { a: { type: 'string' }, b: {} },
    required: ['a', 'c', 'a'],
    additionalProperties: false,
  },
  Empty: { type: 'object', additionalProperties: false },
  Map: { type: 'object', properties: { x: { type: 'boolean' } }, additionalProperties: ref('Num') },
  AnyMap: { additionalProperties: { type: 'string' } },
  Loose: { properties: { n: { type: 'integer' } }, required: ['n'] },
  Union: {
    anyOf: [ref('Closed'), { type: 'object', properties: { t: { const: 'u' } }, required: ['t'] }, { type: 'string' }],
  },
  Both: {
    allOf: [ref('Loose'), { type: 'object', properties: { m: { type: 'string' } }, required: ['m'] }],
    properties: { z: { type: 'number' } },
  },
  AllLeaf: { allOf: [{ type: 'number' }, { maximum: 2 }] },
  Never: { properties: { x: false } },
  Nothing: false,
  Anything: true,
  Deep: {
    type: 'object',
    properties: {
      inner: {
        type: 'object',
        properties: {
          list: { type: 'array', items: { type: 'object', properties: { v: ref('Leafy') }, required: ['v'] } },
        },
      },
    },
  },
  Plain: { type: 'object', required: ['p'], properties: { p: { type: 'string', format: 'uri-template' } } },
  UsesPlain: { type: 'object', properties: { p: ref('Plain'), q: { anyOf: [ref('Plain'), ref('Kind')] } } },
  Alias: ref('Union'),
  RefBeside: { $ref: '#/$defs/Loose', type: 'object', required: ['k'] },
  Rec: { type: 'object', properties: { next: ref('Rec'), v: { type: 'number' } } },
  Odd: { type: 'object', properties: { 'a-b': { type: 'string' }, constructor: { type: 'string' } } },
};
const CODE = Object.keys(DEFS).filter((n) => n !== 'Plain');

const dir = mkdtempSync(join(tmpdir(), 'mcpgen-compact-fast-'));
const model = {
  revision: 'test',
  inputs: { schemaJson: { sha256: '0' }, schemaTs: { sha256: '0' } },
} as unknown as ProtocolModel;
const opts = { runtimeImport: pathToFileURL(join(ROOT, 'runtime', 'codegen', 'v1.ts')).href };

async function load(name: string, roots: readonly string[]) {
  const js = emitCompactValidators(model, opts, DEFS, [], false, { roots, reached: [] });
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, js);
  return { js, V: (await import(pathToFileURL(file).href)) as Record<string, Validator> };
}

/** Random JSON (a fixed seed): members named as in DEFS, leaves of every type and edge values. */
function values(n: number): unknown[] {
  let seed = 0x1234567;
  const rand = (k: number) => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return (seed >>> 8) % k;
  };
  const keys = ['a', 'b', 'c', 'x', 'n', 'm', 't', 'v', 'p', 'q', 'k', 'z', 'next', 'inner', 'list', 'extra', 'a-b'];
  const leaves = [
    null,
    true,
    false,
    0,
    1,
    -1,
    1.5,
    2,
    3,
    10,
    11,
    'a',
    'b',
    'u',
    'x',
    '',
    'http://e.x/y',
    'no uri',
    'aGk=',
  ];
  const value = (depth: number): unknown => {
    const r = rand(depth > 2 ? 1 : 4);
    if (r === 0) return leaves[rand(leaves.length)];
    if (r === 1) return Array.from({ length: rand(4) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = rand(5); i > 0; i--) o[keys[rand(keys.length)]!] = value(depth + 1);
    return o;
  };
  return Array.from({ length: n }, () => value(0));
}

test('written checks answer as the runtime-built ones, with the same errors, on every keyword they cover', async () => {
  const code = await load('code', CODE);
  const data = await load('data', []);
  // every definition but Plain has code; Plain is reached through the runtime's check
  for (const n of CODE) assert.match(code.js, `v(() => `, n);
  assert.not.match(data.js, /^function /m);
  assert.match(code.js, /compactFast\(Plain\)/);
  assert.not.match(code.js, /v\(\(\) => \(\{[^\n]*\}\), \$c_Plain\)/);
  const list = values(4000);
  list.push({ a: 'x', c: 1 }, { a: 'x', c: 1, b: [] }, { t: 'u' }, { n: 1, m: 'x', z: 1 }, { n: 1, m: 'x', k: 0 });
  list.push({ x: true, y: 3 }, { x: true, y: 11 }, { inner: { list: [{ v: 1 }, { v: 'x' }] } }, { p: { p: 'a{b}' } });
  const counts = { valid: 0, invalid: 0 };
  const wrong: string[] = [];
  for (const n of Object.keys(DEFS)) {
    const withCode = code.V[n]!;
    const without = data.V[n]!;
    for (const d of list) {
      const a = withCode(d);
      const b = without(d);
      if (a !== b || JSON.stringify(withCode.errors) !== JSON.stringify(without.errors))
        wrong.push(`${n} ${JSON.stringify(d)}: code ${a} ${JSON.stringify(withCode.errors)} / data ${b}`);
      const fast = CELLS.get(withCode)!.fast!;
      if (CODE.includes(n) && fast(d) !== b) wrong.push(`${n} ${JSON.stringify(d)}: written check ${!b}`);
      if (b) counts.valid++;
      else counts.invalid++;
    }
    // the export with code answers through its written function, not a runtime-built one
    if (CODE.includes(n)) assert.is(CELLS.get(withCode)!.fast!.name, `$c_${n}`, n);
  }
  assert.equal(wrong.slice(0, 10), [], `${wrong.length} differ`);
  assert.ok(counts.valid > 3000 && counts.invalid > 3000, JSON.stringify(counts));
});

test('the hot list names the validators of tools/call and ping, and the revisions give them code', async () => {
  assert.ok(HOT_VALIDATORS.includes('CallToolRequestParams') && HOT_VALIDATORS.includes('CallToolRequest$result'));
  for (const rev of ['2024-11-05', '2025-11-25', 'draft']) {
    const V = (await import(pathToFileURL(join(ROOT, 'generated', rev, 'validators.gen.js')).href)) as Record<
      string,
      Validator
    >;
    for (const n of ['CallToolRequestParams', 'CallToolRequest$result', 'CallToolResult', 'RequestParams', 'Result'])
      if (V[n]) assert.is(CELLS.get(V[n]!)!.fast?.name, `$c_${n}`, `${rev} ${n}`);
  }
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
