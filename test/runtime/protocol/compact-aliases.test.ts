/**
 * The short keyword names of compact schema data: the emitter's table (generator/emit/compact.ts)
 * is the inverse of the runtime's (runtime/protocol/compact.ts), names only implemented keywords,
 * and aliased data validates (answers and errors) exactly as the same schema spelt in full.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KEYWORD_ALIASES as EMITTED, TYPE_ALIASES as EMITTED_TYPES } from '../../../generator/emit/compact.js';
import { compactValidators } from '../../../runtime/protocol/compact.js';
import { COMPACT_KEYWORDS, KEYWORD_ALIASES, TYPE_ALIASES, TYPE_BITS } from '../../../runtime/protocol/compact-data.js';

const test = suite('compact keyword aliases');

/** Each case's answer from the short spelling, checked equal (answer and errors) to the full one's. */
function sameAnswers(
  short: ReturnType<ReturnType<typeof compactValidators>>,
  full: ReturnType<ReturnType<typeof compactValidators>>,
  cases: unknown[],
): boolean[] {
  return cases.map((c) => {
    const a = short(c);
    const errors = short.errors;
    assert.is(full(c), a, JSON.stringify(c));
    assert.equal(errors, full.errors, JSON.stringify(c));
    return a;
  });
}
test('the emitter and the runtime use one table, of implemented keywords, with no alias that is a keyword', () => {
  assert.equal(Object.fromEntries(Object.entries(EMITTED).map(([k, a]) => [a, k])), { ...KEYWORD_ALIASES });
  for (const [a, k] of Object.entries(KEYWORD_ALIASES)) {
    assert.ok(COMPACT_KEYWORDS.includes(k), `${a} names ${k}`);
    assert.not.ok(COMPACT_KEYWORDS.includes(a), `alias ${a} is a keyword`);
  }
});

test('aliased data validates as the full schema: answers and errors, property names never expanded', () => {
  const v = compactValidators();
  const Kind = v(() => ({ e: ['a', 'b'] }));
  // property names equal to aliases (`t`, `p`) and keywords (`type`) stay property names
  const short = v(() => ({
    t: 'object',
    p: {
      t: { t: 'string', format: 'uri' },
      p: { t: 'array', i: Kind },
      type: { c: 'x' },
      u: { o: [{ t: 'integer' }, { t: 'null' }] },
    },
    r: ['t'],
    a: false,
  }));
  const full = v(() => ({
    type: 'object',
    properties: {
      t: { type: 'string', format: 'uri' },
      p: { type: 'array', items: Kind },
      type: { const: 'x' },
      u: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
    },
    required: ['t'],
    additionalProperties: false,
  }));
  const cases: unknown[] = [
    { t: 'https://example.com/a', p: ['a', 'b'], type: 'x', u: 3 },
    { t: 'https://example.com/a', u: null },
    {},
    { t: 'not a uri' },
    { t: 'https://example.com/a', p: ['c'] },
    { t: 'https://example.com/a', type: 'y' },
    { t: 'https://example.com/a', u: 1.5 },
    { t: 'https://example.com/a', extra: 1 },
    [],
  ];
  const answers = sameAnswers(short, full, cases);
  assert.equal(answers, [true, true, false, false, false, false, false, false, false]);
  assert.not.ok(short({ t: 'not a uri' }));
  assert.is(short.errors?.[0]?.schemaPath, '#/properties/t/format');
});

test('type aliases: one table both ways, of compact types, read only under `t`; aliased types validate as the full ones', () => {
  assert.equal(Object.fromEntries(Object.entries(EMITTED_TYPES).map(([t, a]) => [a, t])), { ...TYPE_ALIASES });
  const types = Object.keys(TYPE_BITS);
  for (const [a, t] of Object.entries(TYPE_ALIASES)) {
    assert.ok(types.includes(t), `${a} names ${t}`);
    assert.not.ok(types.includes(a), `alias ${a} is a type`);
  }
  const v = compactValidators();
  const short = v(() => ({
    t: 'o',
    p: { s: { t: 's' }, a: { t: 'a', i: { t: ['s', 'null'] } }, n: { t: ['integer', 'o'] } },
    r: ['s'],
  }));
  const full = v(() => ({
    type: 'object',
    properties: {
      s: { type: 'string' },
      a: { type: 'array', items: { type: ['string', 'null'] } },
      n: { type: ['integer', 'object'] },
    },
    required: ['s'],
  }));
  const cases: unknown[] = [
    { s: 'x', a: ['y', null], n: 1 },
    { s: 'x', n: {} },
    { s: 1 },
    { s: 'x', a: [2] },
    { s: 'x', n: 'z' },
    { a: [] },
    'o',
    null,
  ];
  const answers = sameAnswers(short, full, cases);
  assert.equal(answers, [true, true, false, false, false, false, false, false]);
  assert.not.ok(short({ s: 1 }));
  assert.equal(short.errors?.[0], {
    instancePath: '/s',
    schemaPath: '#/properties/s/type',
    keyword: 'type',
    params: { type: 'string' },
    message: 'must be string',
  });
  // spelt in full, a type is the type's own name: `type: "o"` is no type
  const spelt = v(() => ({ type: 'o' }));
  assert.throws(() => spelt({}), /unknown type o/);
});

test.run();
