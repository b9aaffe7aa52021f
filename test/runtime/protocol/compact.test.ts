/**
 * Compact validators (runtime/protocol/compact.ts, emitted by generator/emit/compact.ts) against
 * the ajv form they replace, for every revision and every validator export of
 * generated/<rev>/validators.gen.js: both must give the same answer and the same `errors`
 * (instancePath, schemaPath, keyword, params, message; in order) on
 * - the official examples ($MCP_SPEC_DIR/schema/<rev>/examples, where the revision has them),
 *   each against every export;
 * - the messages of the fuzz regression corpus (test/fuzz/regressions), each against every export;
 * - values built from each export's schema (required members only, then every member; each
 *   `anyOf` branch in turn) and systematic mutations of them and of the examples: each member
 *   dropped, each value replaced by one of every JSON type, a bad const / enum value, numbers
 *   beyond a `minimum` / `maximum`, one item more than `maxItems`, strings that fail a format,
 *   extra members (`extra`, `constructor`, `toString`, `__proto__` as an own member).
 * Then the generator's side: the keyword lists of emitter and runtime agree, a schema with a
 * keyword compact validators lack is named with its pointer and gets the ajv form.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type Project, configEmitOptions } from '../../../cli/config.js';
import { COMPACT_KEYWORDS as EMITTED_KEYWORDS, compactUnsupported } from '../../../generator/emit/compact.js';
import { DEFAULT_EMIT_OPTIONS } from '../../../generator/emit/common.js';
import { ajvValidators, emitValidators, validatorDefs, validatorsForm } from '../../../generator/emit/validators.js';
import { generate } from '../../../generator/generate.js';
import type { ProtocolModel } from '../../../generator/model.js';
import { compactValidators } from '../../../runtime/protocol/compact.js';
import { COMPACT_KEYWORDS } from '../../../runtime/protocol/compact-data.js';
import { CELLS } from '../../../runtime/protocol/compact-data.js';
import { formats } from '../../../runtime/protocol/formats.js';
import type { Validator } from '../../../runtime/protocol/table.js';
import { ROOT, SPEC_DIR } from '../../generator/support.js';

const test = suite('compact validators: same answers and errors as ajv');

const REVISIONS = readdirSync(join(ROOT, 'generated'))
  .filter((r) => existsSync(join(ROOT, 'generated', r, 'model.json')))
  .sort();

type S = Record<string, unknown>;

/** Schema `s` with its references to `mcp#/$defs/<Name>` written `#/$defs/<Name>` (how sample reads them). */
function localRefs(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(localRefs);
  if (typeof s !== 'object' || s === null) return s;
  return Object.fromEntries(
    Object.entries(s).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' ? v.replace(/^mcp#/, '#') : localRefs(v),
    ]),
  );
}

/** A value the schema accepts, if the choices lead to one (`full`: every member, else required only). */
function sample(model: ProtocolModel, s: unknown, choice: number, full: boolean, depth = 0): unknown {
  if (depth > 8 || typeof s !== 'object' || s === null) return {};
  const o = s as S;
  if (typeof o.$ref === 'string')
    return sample(model, model.types[o.$ref.replace('#/$defs/', '')]!.schema, choice, full, depth + 1);
  if (o.const !== undefined) return o.const;
  if (Array.isArray(o.enum)) return o.enum[choice % o.enum.length];
  if (Array.isArray(o.anyOf)) return sample(model, o.anyOf[(choice + depth) % o.anyOf.length], choice, full, depth + 1);
  if (Array.isArray(o.allOf)) {
    const parts = o.allOf.map((x) => sample(model, x, choice, full, depth + 1));
    return parts.every((p) => typeof p === 'object' && p !== null && !Array.isArray(p))
      ? Object.assign({}, ...parts)
      : parts[0];
  }
  const type = Array.isArray(o.type) ? o.type[choice % o.type.length] : o.type;
  switch (type) {
    case 'object': {
      const out: S = {};
      const props = (o.properties ?? {}) as S;
      const req = new Set((o.required ?? []) as string[]);
      for (const k of Object.keys(props))
        if (full || req.has(k)) out[k] = sample(model, props[k], choice, full, depth + 1);
      return out;
    }
    case 'array':
      return o.items === undefined ? [] : [sample(model, o.items, choice, full, depth + 1)];
    case 'string':
      return o.format === 'uri'
        ? 'https://example.com/a'
        : o.format === 'byte'
          ? 'aGVsbG8='
          : o.format === 'uri-template'
            ? 'file:///{path}'
            : 'text';
    case 'integer':
      return typeof o.minimum === 'number' ? o.minimum : 1;
    case 'number':
      return typeof o.maximum === 'number' ? o.maximum : typeof o.minimum === 'number' ? o.minimum : 0.5;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}

const REPLACEMENTS: unknown[] = ['mutated', 12345, 1.5, -1, true, null, [], {}, 'a%zz', '{unclosed'];

/** Every mutation of `value`: at each place, dropped, replaced, extended. */
function* mutations(value: unknown): Generator<unknown> {
  const at = (
    root: unknown,
    path: Array<string | number>,
    f: (parent: S | unknown[], key: string | number) => void,
  ): unknown => {
    const copy = structuredClone(root);
    let cur = copy as S;
    for (const k of path.slice(0, -1)) cur = cur[k as string] as S;
    f(cur, path[path.length - 1]!);
    return copy;
  };
  const places: Array<Array<string | number>> = [];
  const walk = (v: unknown, path: Array<string | number>) => {
    if (places.length > 400) return;
    if (Array.isArray(v))
      v.forEach((x, i) => {
        places.push([...path, i]);
        walk(x, [...path, i]);
      });
    else if (v && typeof v === 'object')
      for (const k of Object.keys(v)) places.push([...path, k]), walk((v as S)[k], [...path, k]);
  };
  walk(value, []);
  for (const r of REPLACEMENTS) yield r;
  yield JSON.parse('{"__proto__": 1}');
  for (const p of places) {
    yield at(value, p, (o, k) => (Array.isArray(o) ? o.splice(k as number, 1) : delete o[k as string]));
    for (const r of REPLACEMENTS) yield at(value, p, (o, k) => ((o as S)[k as string] = r));
    yield at(value, p, (o, k) => {
      const x = (o as S)[k as string];
      if (typeof x === 'number') (o as S)[k as string] = x + 1;
      else if (typeof x === 'string') (o as S)[k as string] = `${x}x`;
      else if (Array.isArray(x) && x.length) x.push(structuredClone(x[0]), structuredClone(x[0]));
    });
  }
  for (const p of [[], ...places]) {
    const target = (root: unknown) => p.reduce<unknown>((c, k) => (c as S)[k as string], root);
    if (!target(value) || typeof target(value) !== 'object' || Array.isArray(target(value))) continue;
    for (const extra of ['extra', 'constructor', 'toString', 'hasOwnProperty']) {
      const copy = structuredClone(value);
      (target(copy) as S)[extra] = 'x';
      yield copy;
    }
    const copy = structuredClone(value);
    const t = target(copy) as S;
    Object.defineProperty(t, '__proto__', {
      value: { polluted: 1 },
      enumerable: true,
      configurable: true,
      writable: true,
    });
    yield copy;
  }
}

function examples(rev: string): Array<{ type: string; data: unknown }> {
  const dir = join(SPEC_DIR, 'schema', rev, 'examples');
  if (!existsSync(dir)) return [];
  const out: Array<{ type: string; data: unknown }> = [];
  for (const type of readdirSync(dir).sort()) {
    for (const f of readdirSync(join(dir, type)).sort())
      if (f.endsWith('.json')) out.push({ type, data: JSON.parse(readFileSync(join(dir, type, f), 'utf8')) });
  }
  return out;
}

function fuzzMessages(): unknown[] {
  const dir = join(ROOT, 'test', 'fuzz', 'regressions');
  const out: unknown[] = [];
  for (const f of readdirSync(dir).sort()) {
    const r = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { frames?: Array<{ b64?: string }> };
    for (const fr of r.frames ?? []) {
      for (const line of Buffer.from(fr.b64 ?? '', 'base64')
        .toString('utf8')
        .split(/\r?\n/)) {
        try {
          out.push(JSON.parse(line));
        } catch {
          // not JSON: the transport's case, not a validator's
        }
      }
    }
  }
  return out;
}

interface Pair {
  name: string;
  ajv: Validator;
  compact: Validator;
}
async function pairs(rev: string): Promise<{ model: ProtocolModel; list: Pair[]; exports: Record<string, string> }> {
  const model = JSON.parse(readFileSync(join(ROOT, 'generated', rev, 'model.json'), 'utf8')) as ProtocolModel;
  const { ajv, exports } = ajvValidators(model, undefined, undefined, formats);
  const compact = (await import(pathToFileURL(join(ROOT, 'generated', rev, 'validators.gen.js')).href)) as Record<
    string,
    Validator
  >;
  const list = Object.keys(exports).map((name) => ({
    name,
    ajv: ajv.getSchema(exports[name]!) as unknown as Validator,
    compact: compact[name]!,
  }));
  return { model, list, exports };
}

/** Validates `data` with both; a difference as text, or null. */
function differs(p: Pair, data: unknown): string | null {
  const a = p.ajv(data);
  const c = p.compact(data);
  const strip = (e: Validator['errors']) =>
    e
      ? e.map(({ instancePath, schemaPath, keyword, params, message }) => ({
          instancePath,
          schemaPath,
          keyword,
          params,
          message,
        }))
      : null;
  const ea = strip(p.ajv.errors);
  const ec = strip(p.compact.errors);
  if (a === c && JSON.stringify(ea) === JSON.stringify(ec)) return null;
  return `${p.name} ${JSON.stringify(data).slice(0, 300)}: ajv ${a} ${JSON.stringify(ea)?.slice(0, 600)} / compact ${c} ${JSON.stringify(ec)?.slice(0, 600)}`;
}

for (const rev of REVISIONS) {
  test(`${rev}: every export answers like ajv on examples, fuzz messages, built values and their mutations`, async () => {
    const { model, list, exports } = await pairs(rev);
    assert.ok(list.length > 50, `${rev}: ${list.length} exports`);
    assert.equal(
      list.filter((p) => typeof p.compact !== 'function').map((p) => p.name),
      [],
      'exports missing in the compact form',
    );
    const wrong: string[] = [];
    const counts = { values: 0, valid: 0, invalid: 0 };
    const check = (p: Pair, data: unknown) => {
      counts.values++;
      const d = differs(p, data);
      // the boolean-only check that answers first (written as code for the hot exports) agrees too
      const fast = CELLS.get(p.compact)?.fast;
      if (fast && fast(data) !== !p.ajv.errors)
        wrong.push(
          `${p.name} ${JSON.stringify(data).slice(0, 300)}: boolean check ${!p.ajv.errors ? 'refuses' : 'accepts'}`,
        );
      if (d) wrong.push(d);
      else if (p.ajv.errors) counts.invalid++;
      else counts.valid++;
    };
    const byName = new Map(list.map((p) => [p.name, p]));
    const ex = examples(rev);
    const shared = [...ex.map((e) => e.data), ...fuzzMessages()];
    for (const p of list) for (const d of shared) check(p, d);
    for (const e of ex) {
      const p = byName.get(e.type);
      if (!p) continue;
      for (const m of mutations(e.data)) check(p, m);
    }
    for (const p of list) {
      const ref = exports[p.name]!;
      const schema = ref.startsWith('mcp#')
        ? { $ref: ref.slice(3) }
        : ref.endsWith('$result')
          ? localRefs((p.ajv as unknown as { schema: unknown }).schema)
          : null;
      const base = schema ?? (model.types[ref.replace(/\$params$/, '')]?.schema as S | undefined)?.properties;
      const root = schema ?? (base as S | undefined)?.params;
      for (const full of [false, true]) {
        for (let choice = 0; choice < 2; choice++) {
          const v = sample(model, root, choice, full);
          check(p, v);
          for (const m of mutations(v)) check(p, m);
        }
      }
    }
    assert.equal(
      wrong.slice(0, 10),
      [],
      `${wrong.length} of ${counts.values} differ:\n${wrong.slice(0, 10).join('\n')}`,
    );
    assert.ok(counts.valid > list.length, `${rev}: only ${counts.valid} valid values`);
    assert.ok(counts.invalid > 20 * list.length, `${rev}: only ${counts.invalid} invalid values`);
  });
}

test('the emitter and the runtime name the same keywords', () => {
  assert.equal([...EMITTED_KEYWORDS].sort(), [...COMPACT_KEYWORDS].sort());
});

test('a keyword compact validators lack is named with its pointer; that revision gets ajv validators', async () => {
  const rev = REVISIONS.includes('2025-11-25') ? '2025-11-25' : REVISIONS[0]!;
  const model = JSON.parse(readFileSync(join(ROOT, 'generated', rev, 'model.json'), 'utf8')) as ProtocolModel;
  assert.is(compactUnsupported(validatorDefs(model)), null);
  const patched = structuredClone(model);
  const tool = patched.types.Tool!.schema as S;
  (tool.properties as S).name = { type: 'string', pattern: '^[a-z]+$' };
  const u = compactUnsupported(validatorDefs(patched));
  assert.equal(u && { keyword: u.keyword, pointer: u.pointer }, {
    keyword: 'pattern',
    pointer: '#/$defs/Tool/properties/name/pattern',
  });
  assert.is(validatorsForm(patched, {}).form, 'ajv');
  const warnings: string[] = [];
  const files = await generate(patched, { onWarning: (w) => warnings.push(w) });
  assert.match(files.get('validators.gen.js')!, /ajv standalone validators/);
  assert.equal(warnings, [
    'validators: ajv form, not compact: #/$defs/Tool/properties/name/pattern (pattern): keyword not implemented by compact validators',
  ]);
  const bad = structuredClone(model);
  (bad.types.Tool!.schema as S).properties = {
    ...((bad.types.Tool!.schema as S).properties as S),
    icon: { type: 'string', format: 'email' },
  };
  assert.equal(compactUnsupported(validatorDefs(bad))?.pointer, '#/$defs/Tool/properties/icon/format');
  const ref = structuredClone(model);
  (ref.types.Tool!.schema as S).properties = {
    ...((ref.types.Tool!.schema as S).properties as S),
    other: { $ref: '#/$defs/Tool/properties/name' },
  };
  assert.equal(compactUnsupported(validatorDefs(ref))?.keyword, '$ref');
  // asked for, the ajv form is written for any revision; the default is compact
  assert.match(
    emitValidators(model, { ...DEFAULT_EMIT_OPTIONS, validators: 'ajv' }).get('validators.gen.js')!,
    /ajv standalone validators/,
  );
  assert.match(emitValidators(model, DEFAULT_EMIT_OPTIONS).get('validators.gen.js')!, /compactValidators/);
});

test('config key and flag choose the form; the flag wins', () => {
  const project = (validators?: 'compact' | 'ajv') =>
    ({ config: validators ? { validators } : {} }) as unknown as Project;
  assert.equal(configEmitOptions(project('ajv')), { validators: 'ajv' });
  assert.equal(configEmitOptions(project('ajv'), undefined, 'compact'), { validators: 'compact' });
  assert.equal(configEmitOptions(project()), {});
  assert.equal(configEmitOptions(project(), 'x/y.js', 'ajv'), { runtimeImport: 'x/y.js', validators: 'ajv' });
});

test('runtime: schemas compile on first use, recursion through thunks, no keyword passes unchecked', () => {
  const v = compactValidators();
  let built = 0;
  const Node: Validator = v(
    () => (
      built++, { type: 'object', properties: { next: Node, n: { type: 'integer', minimum: 0 } }, required: ['n'] }
    ),
  );
  assert.is(built, 0);
  assert.ok(Node({ n: 1, next: { n: 2, next: { n: 3 } } }));
  assert.is(Node.errors, null);
  assert.not.ok(Node({ n: 1, next: { n: 2, next: { n: -1 } } }));
  assert.equal(Node.errors, [
    {
      instancePath: '/next/next/n',
      schemaPath: '#/properties/n/minimum',
      keyword: 'minimum',
      params: { comparison: '>=', limit: 0 },
      message: 'must be >= 0',
    },
  ]);
  Node({ n: 0 });
  assert.is(built, 1);
  const Odd = v(() => ({ type: 'string', pattern: 'x' }));
  assert.throws(() => Odd('y'), /keyword pattern is not supported/);
  const Email = v(() => ({ type: 'string', format: 'email' }));
  assert.throws(() => Email('y'), /unknown format email/);
  // own members only when asked
  const own = compactValidators({ ownProperties: true })(() => ({ type: 'object', required: ['constructor'] }));
  assert.not.ok(own({}));
  assert.ok(v(() => ({ type: 'object', required: ['constructor'] }))({}));
  // a member named with `/` or `~` is escaped in instancePath
  const esc = v(() => ({ type: 'object', additionalProperties: { type: 'string' } }));
  assert.not.ok(esc({ 'a/b~c': 1 }));
  assert.is(esc.errors![0]!.instancePath, '/a~1b~0c');
});

test.run();
