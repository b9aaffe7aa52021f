/**
 * The precompiled JSON Schema 2020-12 meta-schema (runtime/protocol/meta-schema.gen.js, written by
 * scripts/meta-schema.ts) against ajv compiling the same meta-schema at run time: the same verdict
 * on valid and invalid schemas, the same errors; the registration error names the tool and the
 * failing keyword; the committed file is what the script writes today.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';
import validateMeta from '../../../runtime/protocol/meta-schema.gen.js';
import { checkSchema, metaSchemaProblem } from '../../../runtime/protocol/schema-check.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const ajv = new (Ajv2020Module as unknown as typeof Ajv2020Module.default)({ strict: false, allErrors: true });

const VALID: unknown[] = [
  {},
  true,
  { type: 'object', properties: { a: { type: 'number', minimum: 0 } }, required: ['a'], additionalProperties: false },
  { type: ['string', 'null'], format: 'date-time', pattern: '^x' },
  { $defs: { n: { type: 'integer' } }, items: { $ref: '#/$defs/n' }, uniqueItems: true },
  { anyOf: [{ const: { a: [1, 2] } }, { enum: [1, '1', null] }], $dynamicAnchor: 'meta' },
  {
    if: { minLength: 1 },
    then: { maxLength: 3 },
    else: false,
    unevaluatedProperties: false,
    dependentRequired: { a: ['b'] },
  },
];
const INVALID: unknown[] = [
  { type: 'bogus' },
  { type: ['string', 'string'] },
  { required: ['a', 'a'] },
  { required: 'a' },
  { minimum: 'x' },
  { properties: { a: { type: 1 } } },
  { items: 3 },
  { anyOf: [] },
  { $defs: { n: { enum: 'x' } } },
  { dependentRequired: { a: [1] } },
  { minLength: -1 },
  { allOf: [{ maxItems: 1.5 }] },
  // property names escaped in instancePath (~0, ~1), under a map of subschemas and a dependency list
  { properties: { 'a/b~c': { type: 1 } }, $defs: { 'x~/': 3 } },
  { dependencies: { 'a~/': [1, 1] }, $vocabulary: { 'u/~': 1 } },
  'a string',
];

test("the precompiled meta-schema gives ajv's verdict and errors", () => {
  const runtime = ajv.getSchema('https://json-schema.org/draft/2020-12/schema')!;
  for (const schema of [...VALID, ...INVALID]) {
    const expected = runtime(schema);
    assert.is(validateMeta(schema), expected, JSON.stringify(schema));
    assert.equal(validateMeta.errors ?? null, runtime.errors ?? null, JSON.stringify(schema));
  }
  assert.is(VALID.filter((s) => validateMeta(s)).length, VALID.length);
  assert.is(INVALID.filter((s) => validateMeta(s)).length, 0);
});

test('a schema failing the meta-schema is refused naming what it is and the failing keyword', () => {
  assert.throws(
    () => checkSchema({ type: 'bogus' }, 'inputSchema of tool x'),
    (e: Error) =>
      e instanceof TypeError &&
      /^inputSchema of tool x is not a valid JSON Schema: schema is invalid: data\/type must be equal to one of the allowed values/.test(
        e.message,
      ),
  );
  assert.is(
    metaSchemaProblem({ properties: { a: { minimum: 'x' } } }),
    'schema is invalid: data/properties/a/minimum must be number',
  );
  // another dialect is read as 2020-12: its $schema is not what fails
  assert.is(metaSchemaProblem({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }), undefined);
});

test('runtime/protocol/meta-schema.gen.js is what scripts/meta-schema.ts writes', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/meta-schema.ts', '--check'], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.is(r.status, 0, r.stderr);
});

test.run();
