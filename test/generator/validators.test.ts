/**
 * Generated validators against the official example corpus: every example in
 * $MCP_SPEC_DIR/schema/<rev>/examples/<Type>/*.json is accepted by the validator of <Type>
 * (generated/<rev>/validators.gen.js), except entries of the skip list, which must still fail
 * (a stale entry fails the test). Then mutations derived from the schema, for every example:
 * each required property dropped, each `const` changed, each typed value replaced by a value of
 * another JSON type — each must be rejected with an error that points at the mutated place.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ProtocolModel } from '../../generator/model.js';
import type { ValidationError, Validator } from '../../runtime/protocol/table.js';
import { deref, schemaMutations, withAt as withAtSegments, wrongValue } from './mutations.js';
import { ROOT, SPEC_DIR } from './support.js';

const test = suite('generator: validators accept the example corpus, reject mutations');

/** The revisions upstream publishes examples for. */
const CORPUS_REVISIONS = ['2026-07-28', 'draft'];

/**
 * Examples known not to match their upstream schema. Each entry must still fail its validator;
 * once it passes, the entry is stale and the test fails until it is removed. (The ListRootsRequest
 * example carries an `id`, which the schema allows: its request types are open objects.)
 */
const KNOWN_MISMATCHES: ReadonlyArray<{ revision: string; type: string; file: string; why: string }> = [];

interface Example {
  revision: string;
  type: string;
  file: string;
  data: unknown;
}

function examples(revision: string): Example[] {
  const dir = join(SPEC_DIR, 'schema', revision, 'examples');
  const out: Example[] = [];
  for (const type of readdirSync(dir).sort()) {
    for (const file of readdirSync(join(dir, type)).sort()) {
      if (!file.endsWith('.json')) continue;
      out.push({ revision, type, file, data: JSON.parse(readFileSync(join(dir, type, file), 'utf8')) });
    }
  }
  return out;
}

type Validators = Record<string, Validator>;
const loaded = new Map<string, { V: Validators; model: ProtocolModel }>();
async function generated(revision: string) {
  let g = loaded.get(revision);
  if (!g) {
    const dir = join(ROOT, 'generated', revision);
    assert.ok(existsSync(join(dir, 'validators.gen.js')), `${dir} is missing: run \`npm run generate\` first`);
    const V = (await import(pathToFileURL(join(dir, 'validators.gen.js')).href)) as Validators;
    const model = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as ProtocolModel;
    g = { V, model };
    loaded.set(revision, g);
  }
  return g;
}

const key = (e: { revision: string; type: string; file: string }) => `${e.revision} ${e.type}/${e.file}`;

/** Runs the corpus: failures not on the skip list, and skip-list entries that now pass. */
function checkCorpus(list: Example[], V: Validators, skip: typeof KNOWN_MISMATCHES) {
  const skipped = new Set(skip.map(key));
  const failures: string[] = [];
  const stale: string[] = [];
  for (const e of list) {
    const v = V[e.type];
    if (typeof v !== 'function') {
      failures.push(`${key(e)}: no validator named ${e.type}`);
      continue;
    }
    const ok = v(e.data);
    if (skipped.has(key(e))) {
      if (ok) stale.push(key(e));
    } else if (!ok) failures.push(`${key(e)}: ${JSON.stringify(v.errors)}`);
  }
  const missing = [...skipped].filter((k) => !list.some((e) => key(e) === k && e.revision === k.split(' ')[0]));
  return { failures, stale, missing };
}

for (const rev of CORPUS_REVISIONS) {
  test(`${rev}: every official example is accepted by its type's validator`, async () => {
    const { V } = await generated(rev);
    const list = examples(rev);
    assert.ok(list.length >= 50, `${rev}: only ${list.length} examples found`);
    const r = checkCorpus(
      list,
      V,
      KNOWN_MISMATCHES.filter((m) => m.revision === rev),
    );
    assert.equal(r.failures, [], r.failures.join('\n'));
    assert.equal(r.stale, [], `skip-list entries that pass now (remove them): ${r.stale.join(', ')}`);
    assert.equal(r.missing, [], `skip-list entries naming no example: ${r.missing.join(', ')}`);
  });
}

test('a skip-list entry whose example passes is reported stale; an unlisted failure is reported', async () => {
  const { V } = await generated('draft');
  const list = examples('draft').filter((e) => e.type === 'ListRootsRequest' || e.type === 'TextContent');
  assert.ok(list.length >= 2);
  const passing = list[0];
  const r = checkCorpus(list, V, [{ revision: 'draft', type: passing.type, file: passing.file, why: 'probe' }]);
  assert.equal(r.stale, [key(passing)]);
  const broken = { ...list[1], data: { ...(list[1].data as object), jsonrpc: 1, type: 1 } };
  const r2 = checkCorpus([broken], V, []);
  assert.is(r2.failures.length, 1);
});

// ---- mutations derived from the schema (./mutations.ts), at JSON Pointer paths ----

/** One JSON Pointer segment (RFC 6901). */
const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
const pointer = (segs: ReadonlyArray<string | number>) => segs.map((s) => `/${esc(String(s))}`).join('');
const segments = (path: string) =>
  path
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

function getAt(data: unknown, path: string): unknown {
  let cur = data;
  for (const seg of segments(path)) cur = (cur as Record<string, unknown>)[seg];
  return cur;
}
/** A deep copy of `data` with the value at `path` replaced (or deleted with `remove`). */
const withAt = (data: unknown, path: string, value: unknown, remove = false): unknown =>
  withAtSegments(data, segments(path), value, remove);

interface Mutation {
  kind: 'drop required' | 'wrong const' | 'wrong type';
  path: string;
  data: unknown;
  /** What the error must name: the missing property, or the mutated value's path. */
  expect: { missingProperty: string; at: string } | { instancePath: string };
}

function mutations(model: ProtocolModel, e: Example): Mutation[] {
  return schemaMutations(model, e.type, e.data).map((m) => {
    const path = pointer(m.segs);
    const expect =
      m.kind === 'drop required'
        ? { missingProperty: String(m.segs[m.segs.length - 1]), at: pointer(m.segs.slice(0, -1)) }
        : { instancePath: path };
    return { kind: m.kind, path, data: m.data, expect };
  });
}

/** Whether the validator's errors point at the mutation (ajv reports the first failure). */
function pointsAt(errors: readonly ValidationError[] | null | undefined, m: Mutation): boolean {
  if (!errors?.length) return false;
  return errors.some((err) => {
    if ('missingProperty' in m.expect)
      return err.params?.missingProperty === m.expect.missingProperty && err.instancePath === m.expect.at;
    return err.instancePath !== '' && err.instancePath === m.expect.instancePath;
  });
}

for (const rev of CORPUS_REVISIONS) {
  test(`${rev}: schema-derived mutations of every example are rejected at the mutated path`, async () => {
    const { V, model } = await generated(rev);
    const list = examples(rev).filter((e) => !KNOWN_MISMATCHES.some((m) => key(m) === key(e)));
    const counts = { 'drop required': 0, 'wrong const': 0, 'wrong type': 0 };
    const wrong: string[] = [];
    const typesDropped = new Set<string>();
    for (const e of list) {
      const v = V[e.type];
      for (const m of mutations(model, e)) {
        counts[m.kind]++;
        if (m.kind === 'drop required') typesDropped.add(e.type);
        if (v(m.data)) wrong.push(`${key(e)}: ${m.kind} at ${m.path} accepted`);
        else if (!pointsAt(v.errors, m))
          wrong.push(`${key(e)}: ${m.kind} at ${m.path}: errors do not name it: ${JSON.stringify(v.errors)}`);
      }
    }
    assert.equal(
      wrong.slice(0, 20),
      [],
      `${wrong.length} mutations not rejected as expected:\n${wrong.slice(0, 20).join('\n')}`,
    );
    // the corpus exercises every kind, many times
    assert.ok(counts['drop required'] >= list.length, `drop required: ${counts['drop required']}`);
    assert.ok(counts['wrong const'] >= 50, `wrong const: ${counts['wrong const']}`);
    assert.ok(counts['wrong type'] >= list.length, `wrong type: ${counts['wrong type']}`);
    // every example type whose schema requires something had a required property dropped
    const requiring = new Set(
      list.filter((e) => Array.isArray(deref(model, { $ref: `#/$defs/${e.type}` }).required)).map((e) => e.type),
    );
    assert.equal(
      [...requiring].filter((t) => !typesDropped.has(t)),
      [],
    );
  });
}

test('mutation helpers: pointer paths with escapes, deep copies', () => {
  const data = { a: { 'b/c': [1, { d: 'x' }] } };
  assert.is(getAt(data, '/a/b~1c/1/d'), 'x');
  const changed = withAt(data, '/a/b~1c/1/d', 'y') as typeof data;
  assert.is(getAt(changed, '/a/b~1c/1/d'), 'y');
  assert.is(getAt(data, '/a/b~1c/1/d'), 'x');
  const dropped = withAt(data, '/a/b~1c', undefined, true) as { a: object };
  assert.equal(dropped.a, {});
  assert.equal(wrongValue('string'), 12345);
  assert.equal(wrongValue(['number', 'string']), true);
  assert.equal(wrongValue('object'), 'mutated');
});

test.run();
