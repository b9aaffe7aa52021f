// size: the compact validator compiler: one case per JSON Schema keyword; split pending (#36)
/**
 * Compact protocol validators: a revision's JSON Schemas, emitted as data by the generator
 * (`generated/<rev>/validators.gen.js`, `--validators compact`), turned into closures here. No
 * `eval` or `new Function`, so they work where code generation is refused (CSP, some edge
 * runtimes). Each validator builds its closures on its first call, so a program pays only for
 * the validators it uses, when it first uses them.
 *
 * Schema data is JSON Schema 2020-12 restricted to `COMPACT_KEYWORDS` (the keywords the
 * MCP schemas use), with one change: a reference is the referenced {@link Validator} itself, a JS
 * value, in place of `{ "$ref": "#/$defs/Name" }` (or as the value of `$ref` beside other
 * keywords). A bundler can then drop every definition a program does not reach.
 *
 * Generated data spells the most frequent keywords short ({@link KEYWORD_ALIASES}, expanded once
 * per validator, when its data is first read): `t` type, `p` properties, `r` required, `c`
 * const, `a` additionalProperties, `i` items, `o` anyOf, `e` enum; the other keywords
 * (`$ref`, `allOf`, `format`, `maximum`, `minimum`, `maxItems`) stay in full, and full names
 * are accepted everywhere. Under `t` the frequent types are short too ({@link TYPE_ALIASES}:
 * `o` object, `s` string, `a` array; a type under `type` is always spelt in full). So
 * `{t:"o",p:{name:{t:"s"}},r:["name"]}` reads as
 * `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`.
 *
 * Answers and `errors` are those of the ajv standalone validators the generator also emits
 * (`--validators ajv`: ajv 8, `allErrors: false`, `inlineRefs: false`, strict off): the same
 * keyword order (`$ref`, `const`, `enum`, `anyOf`, `allOf`, then the number, string, array and
 * object keywords), the same first failure, the same errors inside `anyOf` (every failing
 * branch's, then the `anyOf` error), the same `instancePath`, `schemaPath`, `keyword`, `params`
 * and `message` (test/runtime/protocol/compact.test.ts compares both on every revision).
 *
 * @module
 */
import { formats } from './formats.js';
import { jsonEqual } from './json-equal.js';
import type { ValidationError, Validator } from './table.js';

/** The keywords compact schema data may use; anything else is a generator error. */
export const COMPACT_KEYWORDS: readonly string[] = [
  '$ref',
  'additionalProperties',
  'allOf',
  'anyOf',
  'const',
  'enum',
  'format',
  'items',
  'maxItems',
  'maximum',
  'minimum',
  'properties',
  'required',
  'type',
];

/** JSON Schema type names a compact schema's `type` may list. */
export const COMPACT_TYPES: readonly string[] = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'];

/** A schema as compact data: a schema object, a boolean schema, or a reference (a Validator). */
export type CompactSchema = boolean | Validator | { readonly [keyword: string]: unknown };

/** Whether member presence means an own property (ajv `ownProperties`). */
export interface CompactOptions {
  /**
   * A member counts as present only as an own property (the generator turns this on when a
   * schema of the revision names an `Object.prototype` member such as `constructor`); otherwise
   * as a value that is not `undefined`, inherited or own.
   */
  readonly ownProperties?: boolean;
}

/** Pushes errors (instancePath relative to the checked value) and answers validity. */
type Check = (d: unknown, out: ValidationError[]) => boolean;
/** Answers validity only: no errors, no allocation; stops at the first failure. */
type Fast = (d: unknown) => boolean;

/** A compact validator's schema thunk and, once built, its check. */
interface Cell {
  readonly thunk: () => CompactSchema;
  readonly own: boolean;
  data?: CompactSchema;
  check?: Check;
  building?: boolean;
  /** The boolean-only form of `check` (same answers, no errors), run first on every call. */
  fast?: Fast;
  fastBuilding?: boolean;
}
const CELLS = new WeakMap<Validator, Cell>();

const hasOwn = Object.prototype.hasOwnProperty;
const ok: Check = () => true;
let scratch: ValidationError[] = [];

/**
 * The short keyword names of generated schema data (see the module doc); the generator's
 * emitter (generator/emit/compact.ts) writes them from the same table.
 */
export const KEYWORD_ALIASES: Readonly<Record<string, string>> = {
  t: 'type',
  p: 'properties',
  r: 'required',
  c: 'const',
  a: 'additionalProperties',
  i: 'items',
  o: 'anyOf',
  e: 'enum',
};

/**
 * The short names of the frequent types in the value of the `t` alias (see the module doc):
 * `t:"o"` and `t:["s","null"]` read as `type: "object"` and `type: ["string", "null"]`. The
 * emitter (generator/emit/compact.ts) writes them from the same table.
 */
export const TYPE_ALIASES: Readonly<Record<string, string>> = { o: 'object', s: 'string', a: 'array' };

const typeOf = (t: unknown) => (typeof t === 'string' && hasOwn.call(TYPE_ALIASES, t) ? TYPE_ALIASES[t] : t);

/** Schema data `s` with its aliased keywords in full (a copy; validators referenced stay as they are). */
function expand(s: unknown): unknown {
  if (!isObject(s)) return s;
  return Object.fromEntries(
    Object.keys(s).map((k) => {
      const name = hasOwn.call(KEYWORD_ALIASES, k) ? KEYWORD_ALIASES[k]! : k;
      const v = s[k];
      if (k === 't') return [name, Array.isArray(v) ? v.map(typeOf) : typeOf(v)];
      if (name === 'properties' && isObject(v))
        return [name, Object.fromEntries(Object.keys(v).map((n) => [n, expand(v[n])]))];
      if (name === 'additionalProperties' || name === 'items') return [name, expand(v)];
      if ((name === 'anyOf' || name === 'allOf') && Array.isArray(v)) return [name, v.map(expand)];
      return [name, v];
    }),
  );
}

const dataOf = (cell: Cell) => (cell.data ??= expand(cell.thunk()) as CompactSchema);

/**
 * The cell's check, built on first call together with those of the validators it references
 * (a reference back to a validator being built calls it through its cell).
 */
function resolve(cell: Cell): Check {
  if (cell.check) return cell.check;
  if (cell.building) return (d, out) => cell.check!(d, out);
  cell.building = true;
  cell.check = compile(dataOf(cell), false, '#', cell.own);
  cell.building = false;
  return cell.check;
}

/**
 * The cell's boolean-only check, built on first call after its error-collecting check (which
 * rejects unsupported schema data); a reference back to a cell being built calls through it.
 */
function resolveFast(cell: Cell): Fast {
  if (cell.fast) return cell.fast;
  if (cell.fastBuilding) return (d) => cell.fast!(d);
  resolve(cell);
  cell.fastBuilding = true;
  cell.fast = compileFast(dataOf(cell), cell.own);
  cell.fastBuilding = false;
  return cell.fast;
}

/**
 * The validator factory a generated validators module calls once:
 * `const v = compactValidators({ ownProperties })`, then `export const Name = v(() => schema)`
 * per definition. The thunk is called on the validator's first use (so a definition may name
 * validators declared after it, or itself); the returned function validates `data`, returns
 * true or false and sets `errors` (null when valid). It never throws for any input value.
 * @throws TypeError on first use when the schema data uses a keyword outside `COMPACT_KEYWORDS`,
 * an unknown type or format: the generator never emits such data.
 */
export function compactValidators(options: CompactOptions = {}): (schema: () => CompactSchema) => Validator {
  const own = options.ownProperties === true;
  return (thunk) => {
    const cell: Cell = { thunk, own };
    const v: Validator = (data: unknown) => {
      // the boolean pass decides; the error pass runs only to word a failure
      if ((cell.fast ?? resolveFast(cell))(data)) {
        v.errors = null;
        return true;
      }
      const out = scratch;
      if (cell.check!(data, out)) {
        out.length = 0;
        v.errors = null;
        return true;
      }
      scratch = [];
      v.errors = out;
      return false;
    };
    v.errors = null;
    CELLS.set(v, cell);
    return v;
  };
}

const isObject = (d: unknown): d is Record<string, unknown> => typeof d === 'object' && d !== null && !Array.isArray(d);

const STRING = 1;
const NUMBER = 2;
const INTEGER = 4;
const BOOLEAN = 8;
const NULL = 16;
const OBJECT = 32;
const ARRAY = 64;
const TYPE_BITS: Record<string, number> = {
  string: STRING,
  number: NUMBER | INTEGER,
  integer: INTEGER,
  boolean: BOOLEAN,
  null: NULL,
  object: OBJECT,
  array: ARRAY,
};

/** The type bit of a JSON value (`INTEGER` for a number only when the schema asks: see `typeIs`). */
function typeIs(mask: number, d: unknown): boolean {
  switch (typeof d) {
    case 'string':
      return (mask & STRING) !== 0;
    case 'number':
      return (mask & NUMBER) !== 0 || ((mask & INTEGER) !== 0 && !(d % 1) && !Number.isNaN(d));
    case 'boolean':
      return (mask & BOOLEAN) !== 0;
    case 'object':
      return d === null ? (mask & NULL) !== 0 : Array.isArray(d) ? (mask & ARRAY) !== 0 : (mask & OBJECT) !== 0;
    default:
      return false;
  }
}
const GROUP_CHECKS: Record<string, (d: unknown) => boolean> = {
  string: (d) => typeof d === 'string',
  number: (d) => typeof d === 'number',
  object: isObject,
  array: Array.isArray,
};

/** The keywords of each type group (ajv's rule groups), in ajv's order. */
const GROUPS = {
  number: ['maximum', 'minimum', 'format'],
  string: ['format'],
  array: ['maxItems', 'items'],
  object: ['required', 'additionalProperties', 'properties'],
} as const;
type Group = keyof typeof GROUPS;

/** A JSON Pointer segment (RFC 6901). */
const pointerSegment = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
const seg = (k: string) => `/${pointerSegment(k)}`;

/** Prefixes the instancePath of errors `from`… with `prefix` (on the way out of a failure). */
function under(out: ValidationError[], from: number, prefix: string): false {
  for (let i = from; i < out.length; i++) out[i]!.instancePath = prefix + out[i]!.instancePath;
  return false;
}

const err = (
  schemaPath: string,
  keyword: string,
  params: Record<string, unknown>,
  message: string,
): ValidationError => ({ instancePath: '', schemaPath, keyword, params, message });

/** No `const` in a leaf. */
const NONE = Symbol('none');
/**
 * A schema whose validity is a type test and an optional primitive `const` (`{ type: 'string' }`,
 * `{ type: 'string', const: '2.0' }`, a reference to such a schema): checked inline by the
 * object and array loops, which call the full check only to word a failure.
 */
function leafOf(s: unknown, depth = 0): { mask: number; c: unknown } | null {
  if (typeof s === 'function') {
    const cell = CELLS.get(s as Validator);
    return cell && depth < 4 ? leafOf(dataOf(cell), depth + 1) : null;
  }
  if (!isObject(s) || s.type === undefined) return null;
  for (const k of Object.keys(s)) if (k !== 'type' && k !== 'const') return null;
  if (s.const !== undefined && typeof s.const === 'object' && s.const !== null) return null;
  const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
  if (!types.every((t) => Object.hasOwn(TYPE_BITS, t))) return null;
  return { mask: types.reduce((m, t) => m | TYPE_BITS[t]!, 0), c: s.const === undefined ? NONE : s.const };
}

/** Whether `s` is always valid (ajv skips it: `true`, `{}`). */
const alwaysValid = (s: unknown) =>
  s === true || (isObject(s) && typeof s !== 'function' && Object.keys(s).length === 0);

function compile(s: unknown, composite: boolean, sp: string, own: boolean): Check {
  if (typeof s === 'function') {
    const cell = CELLS.get(s as Validator);
    if (!cell) throw new TypeError(`compact schema at ${sp}: a function that is not a compact validator`);
    return resolve(cell);
  }
  if (alwaysValid(s)) return ok;
  if (s === false) return (_d, out) => (out.push(err(sp, 'false schema', {}, 'boolean schema is false')), false);
  if (!isObject(s)) throw new TypeError(`compact schema at ${sp}: not a schema`);
  for (const k of Object.keys(s))
    if (!COMPACT_KEYWORDS.includes(k)) throw new TypeError(`compact schema at ${sp}: keyword ${k} is not supported`);

  const types = s.type === undefined ? [] : Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
  for (const t of types)
    if (!Object.hasOwn(TYPE_BITS, t)) throw new TypeError(`compact schema at ${sp}: unknown type ${String(t)}`);
  const hasRules = (g: Group) => GROUPS[g].some((k) => s[k] !== undefined);
  // ajv checks a single type inside its keyword group when the schema has keywords of that
  // group (after the untyped keywords), else before everything
  const inGroup =
    types.length === 1 && Object.hasOwn(GROUPS, types[0]!) && hasRules(types[0] as Group)
      ? (types[0] as Group)
      : undefined;
  const typePath = `${sp}/type`;
  const typeMessage = `must be ${types.join(',')}`;
  const typeError = () => err(typePath, 'type', { type: s.type }, typeMessage);
  const mask = types.reduce((m, t) => m | TYPE_BITS[t]!, 0);
  const typeOk = (d: unknown) => typeIs(mask, d);

  const untyped: Check[] = [];
  if (s.$ref !== undefined) untyped.push(compile(s.$ref, composite, `${sp}/$ref`, own));
  if (s.const !== undefined) untyped.push(constCheck(s.const, sp));
  if (s.enum !== undefined) untyped.push(enumCheck(s.enum as unknown[], sp));
  if (s.anyOf !== undefined) untyped.push(anyOfCheck(s.anyOf as unknown[], sp, own));
  if (s.allOf !== undefined) {
    (s.allOf as unknown[]).forEach((x, i) => {
      if (!alwaysValid(x)) untyped.push(compile(x, composite, `${sp}/allOf/${i}`, own));
    });
  }

  const typed: Check[] = [];
  for (const g of Object.keys(GROUPS) as Group[]) {
    if (g === 'object') {
      const step = objectCheck(s, composite, sp, own, inGroup === 'object' ? typeError : null);
      if (step) typed.push(step);
      continue;
    }
    const steps = groupSteps(g, s, composite, sp, own);
    const is = GROUP_CHECKS[g]!;
    if (inGroup === g && !steps.length) typed.push((d, out) => is(d) || (out.push(typeError()), false));
    if (!steps.length) continue;
    const all = sequence(steps);
    if (inGroup === g) typed.push((d, out) => (is(d) ? all(d, out) : (out.push(typeError()), false)));
    else typed.push((d, out) => !is(d) || all(d, out));
  }

  const first = sequence(untyped);
  const rest = sequence(typed);
  if (types.length === 0 || inGroup) {
    if (!untyped.length) return rest;
    if (!typed.length) return first;
    return (d, out) => first(d, out) && rest(d, out);
  }
  // the type is checked first; inside anyOf, ajv still runs the untyped keywords after a wrong type
  if (composite) {
    return (d, out) => {
      if (typeOk(d)) return first(d, out) && rest(d, out);
      out.push(typeError());
      first(d, out);
      return false;
    };
  }
  return (d, out) => (typeOk(d) ? first(d, out) && rest(d, out) : (out.push(typeError()), false));
}

/** Runs checks in order, stopping at the first that fails. */
function sequence(checks: Check[]): Check {
  if (checks.length === 0) return ok;
  if (checks.length === 1) return checks[0]!;
  if (checks.length === 2) {
    const [a, b] = checks as [Check, Check];
    return (d, out) => a(d, out) && b(d, out);
  }
  return (d, out) => {
    for (let i = 0; i < checks.length; i++) if (!checks[i]!(d, out)) return false;
    return true;
  };
}

function constCheck(value: unknown, sp: string): Check {
  const fail = (out: ValidationError[]) => (
    out.push(err(`${sp}/const`, 'const', { allowedValue: value }, 'must be equal to constant')), false
  );
  if (typeof value === 'object' && value !== null) return (d, out) => jsonEqual(d, value) || fail(out);
  return (d, out) => d === value || fail(out);
}

function enumCheck(values: unknown[], sp: string): Check {
  const fail = (out: ValidationError[]) => (
    out.push(err(`${sp}/enum`, 'enum', { allowedValues: values }, 'must be equal to one of the allowed values')), false
  );
  if (values.every((x) => typeof x !== 'object' || x === null)) {
    const set = new Set(values);
    return (d, out) => set.has(d) || fail(out);
  }
  return (d, out) => values.some((x) => (typeof x === 'object' && x !== null ? jsonEqual(d, x) : d === x)) || fail(out);
}

function anyOfCheck(branches: unknown[], sp: string, own: boolean): Check {
  const checks = branches.map((b, i) => compile(b, true, `${sp}/anyOf/${i}`, own));
  return (d, out) => {
    const n = out.length;
    for (let i = 0; i < checks.length; i++) {
      if (checks[i]!(d, out)) {
        if (out.length !== n) out.length = n;
        return true;
      }
    }
    out.push(err(`${sp}/anyOf`, 'anyOf', {}, 'must match a schema in anyOf'));
    return false;
  };
}

function groupSteps(g: Group, s: Record<string, unknown>, composite: boolean, sp: string, own: boolean): Check[] {
  const steps: Check[] = [];
  if (g === 'number') {
    if (typeof s.maximum === 'number') {
      const max = s.maximum;
      steps.push(
        (d, out) =>
          (d as number) <= max ||
          (out.push(err(`${sp}/maximum`, 'maximum', { comparison: '<=', limit: max }, `must be <= ${max}`)), false),
      );
    }
    if (typeof s.minimum === 'number') {
      const min = s.minimum;
      steps.push(
        (d, out) =>
          (d as number) >= min ||
          (out.push(err(`${sp}/minimum`, 'minimum', { comparison: '>=', limit: min }, `must be >= ${min}`)), false),
      );
    }
  } else if (g === 'string') {
    if (s.format !== undefined) {
      const name = String(s.format);
      if (!Object.hasOwn(formats, name)) throw new TypeError(`compact schema at ${sp}: unknown format ${name}`);
      const f = formats[name as keyof typeof formats] as (x: string) => boolean;
      steps.push(
        (d, out) =>
          f(d as string) ||
          (out.push(err(`${sp}/format`, 'format', { format: name }, `must match format "${name}"`)), false),
      );
    }
  } else if (g === 'array') {
    if (typeof s.maxItems === 'number') {
      const n = s.maxItems;
      steps.push(
        (d, out) =>
          (d as unknown[]).length <= n ||
          (out.push(err(`${sp}/maxItems`, 'maxItems', { limit: n }, `must NOT have more than ${n} items`)), false),
      );
    }
    if (s.items !== undefined && !alwaysValid(s.items)) {
      const item = compile(s.items, composite, `${sp}/items`, own);
      const leaf = leafOf(s.items);
      if (leaf) {
        const { mask, c } = leaf;
        steps.push((d, out) => {
          const a = d as unknown[];
          for (let i = 0; i < a.length; i++) {
            const x = a[i];
            if (typeIs(mask, x) && (c === NONE || x === c)) continue;
            const n = out.length;
            if (!item(x, out)) return under(out, n, `/${i}`);
          }
          return true;
        });
      } else {
        steps.push((d, out) => {
          const a = d as unknown[];
          for (let i = 0; i < a.length; i++) {
            const n = out.length;
            if (!item(a[i], out)) return under(out, n, `/${i}`);
          }
          return true;
        });
      }
    }
  }
  return steps;
}

/**
 * The object keywords of `s` (`required`, `additionalProperties`, `properties`, in that order)
 * as one check that skips non-objects, or reports them when `typeError` is given (the schema's
 * single type is `object`); null when `s` has none of them and no such type error to report.
 */
function objectCheck(
  s: Record<string, unknown>,
  composite: boolean,
  sp: string,
  own: boolean,
  typeError: (() => ValidationError) | null,
): Check | null {
  const req = Array.isArray(s.required) ? (s.required as string[]) : [];
  const props = isObject(s.properties) ? (s.properties as Record<string, unknown>) : {};
  const names = Object.keys(props);
  const ap = s.additionalProperties;
  const closed = ap === false;
  const extra =
    ap !== undefined && !closed && !alwaysValid(ap) ? compile(ap, composite, `${sp}/additionalProperties`, own) : null;
  const known = new Set(names);
  const keys: string[] = [];
  const checks: Check[] = [];
  const segs: string[] = [];
  const masks: number[] = [];
  const consts: unknown[] = [];
  for (const k of names) {
    if (alwaysValid(props[k])) continue;
    keys.push(k);
    checks.push(compile(props[k], composite, `${sp}/properties/${encodeURIComponent(pointerSegment(k))}`, own));
    segs.push(seg(k));
    const leaf = leafOf(props[k]);
    masks.push(leaf ? leaf.mask : 0);
    consts.push(leaf ? leaf.c : NONE);
  }
  if (!req.length && !closed && !extra && !keys.length && !typeError) return null;
  const nreq = req.length;
  const nkeys = keys.length;
  // A valid object (a sibling of the failure, an anyOf branch that matches) is recognised by
  // the boolean pass, built on the first failure; only a failing one is walked in ajv's order.
  let fast: Fast | undefined;
  const reqPath = `${sp}/required`;
  const apPath = `${sp}/additionalProperties`;
  return (d, out) => {
    if (typeof d !== 'object' || d === null || Array.isArray(d))
      return typeError ? (out.push(typeError()), false) : true;
    const o = d as Record<string, unknown>;
    if ((fast ??= objectFast(s, own, false) ?? yes)(o)) return true;
    for (let i = 0; i < nreq; i++) {
      const k = req[i]!;
      if (o[k] === undefined || (own && !hasOwn.call(o, k))) {
        out.push(err(reqPath, 'required', { missingProperty: k }, `must have required property '${k}'`));
        return false;
      }
    }
    if (closed) {
      for (const k in o) {
        if (!known.has(k)) {
          out.push(
            err(apPath, 'additionalProperties', { additionalProperty: k }, 'must NOT have additional properties'),
          );
          return false;
        }
      }
    } else if (extra) {
      for (const k in o) {
        if (known.has(k)) continue;
        const n = out.length;
        if (!extra(o[k], out)) return under(out, n, seg(k));
      }
    }
    for (let i = 0; i < nkeys; i++) {
      const k = keys[i]!;
      const x = o[k];
      if (x === undefined || (own && !hasOwn.call(o, k))) continue;
      const mask = masks[i]!;
      if (mask !== 0 && typeIs(mask, x)) {
        const c = consts[i];
        if (c === NONE || x === c) continue;
      }
      const n = out.length;
      if (!checks[i]!(x, out)) return under(out, n, segs[i]!);
    }
    return true;
  };
}

// ---- the boolean-only form: the same answers as the checks above, no errors ----
//
// Validity does not depend on the order in which keywords are checked, only the errors do, so
// these closures check the cheapest conditions first, inline the type tests and stop at the
// first failure. They read members exactly as the checks do (present: not `undefined`, and own
// when `own`), and iterate members with `for…in` where the checks do.

const yes: Fast = () => true;
const no: Fast = () => false;
const isString: Fast = (d) => typeof d === 'string';
const isNumber: Fast = (d) => typeof d === 'number';
const isBoolean: Fast = (d) => typeof d === 'boolean';
const isNull: Fast = (d) => d === null;
const isArray: Fast = Array.isArray;
const isInteger = (d: unknown) => typeof d === 'number' && !(d % 1) && !Number.isNaN(d);
const isStringOrInteger: Fast = (d) => typeof d === 'string' || isInteger(d);

function typeFast(mask: number): Fast {
  switch (mask) {
    case STRING:
      return isString;
    case NUMBER | INTEGER:
      return isNumber;
    case INTEGER:
      return isInteger;
    case BOOLEAN:
      return isBoolean;
    case NULL:
      return isNull;
    case OBJECT:
      return isObject;
    case ARRAY:
      return isArray;
    case STRING | INTEGER:
      return isStringOrInteger;
    default:
      return (d) => typeIs(mask, d);
  }
}

/** All of `parts`, in order, stopping at the first false. */
function allFast(parts: Fast[]): Fast {
  switch (parts.length) {
    case 0:
      return yes;
    case 1:
      return parts[0]!;
    case 2: {
      const [a, b] = parts as [Fast, Fast];
      return (d) => a(d) && b(d);
    }
    case 3: {
      const [a, b, c] = parts as [Fast, Fast, Fast];
      return (d) => a(d) && b(d) && c(d);
    }
    default:
      return (d) => {
        for (let i = 0; i < parts.length; i++) if (!parts[i]!(d)) return false;
        return true;
      };
  }
}

function compileFast(s: unknown, own: boolean): Fast {
  if (typeof s === 'function') return resolveFast(CELLS.get(s as Validator)!);
  if (alwaysValid(s)) return yes;
  if (s === false || !isObject(s)) return no;
  const types = s.type === undefined ? [] : Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
  const mask = types.reduce((m, t) => m | TYPE_BITS[t]!, 0);
  const obj = objectFast(s, own, mask === OBJECT);
  const arr = arrayFast(s, own, mask === ARRAY);
  const str = stringFast(s, mask === STRING);
  const num = numberFast(s, mask !== 0 && (mask & ~(NUMBER | INTEGER)) === 0);
  const c = s.const;
  const primitiveConst = c !== undefined && (typeof c !== 'object' || c === null);
  // a single-type group check tests the type itself; so does a primitive `const` of that type
  const typeDone =
    (mask === OBJECT && obj) ||
    (mask === ARRAY && arr) ||
    (mask === STRING && str) ||
    (primitiveConst && typeIs(mask, c));
  const parts: Fast[] = [];
  if (mask !== 0 && !typeDone) parts.push(typeFast(mask));
  if (c !== undefined) parts.push(primitiveConst ? (d) => d === c : (d) => jsonEqual(d, c));
  if (s.enum !== undefined) {
    const values = s.enum as unknown[];
    if (values.every((x) => typeof x !== 'object' || x === null)) {
      const set = new Set(values);
      parts.push((d) => set.has(d));
    } else {
      parts.push((d) => values.some((x) => (typeof x === 'object' && x !== null ? jsonEqual(d, x) : d === x)));
    }
  }
  if (s.$ref !== undefined) parts.push(compileFast(s.$ref, own));
  if (s.anyOf !== undefined) parts.push(anyOfFast(s.anyOf as unknown[], own));
  if (s.allOf !== undefined) for (const x of s.allOf as unknown[]) if (!alwaysValid(x)) parts.push(compileFast(x, own));
  if (num) parts.push(num);
  if (str) parts.push(str);
  if (arr) parts.push(arr);
  if (obj) parts.push(obj);
  return allFast(parts);
}

function numberFast(s: Record<string, unknown>, isNum: boolean): Fast | null {
  const max = typeof s.maximum === 'number' ? s.maximum : Infinity;
  const min = typeof s.minimum === 'number' ? s.minimum : -Infinity;
  const hasMax = typeof s.maximum === 'number';
  const hasMin = typeof s.minimum === 'number';
  if (!hasMax && !hasMin) return null;
  // NaN fails each bound it is compared with, as in the checks
  if (hasMax && hasMin)
    return isNum
      ? (d) => (d as number) <= max && (d as number) >= min
      : (d) => typeof d !== 'number' || (d <= max && d >= min);
  if (hasMax) return isNum ? (d) => (d as number) <= max : (d) => typeof d !== 'number' || d <= max;
  return isNum ? (d) => (d as number) >= min : (d) => typeof d !== 'number' || d >= min;
}

function stringFast(s: Record<string, unknown>, typed: boolean): Fast | null {
  if (s.format === undefined) return null;
  const f = formats[String(s.format) as keyof typeof formats] as (x: string) => boolean;
  return typed ? (d) => typeof d === 'string' && f(d) : (d) => typeof d !== 'string' || f(d);
}

function arrayFast(s: Record<string, unknown>, own: boolean, typed: boolean): Fast | null {
  const max = typeof s.maxItems === 'number' ? s.maxItems : Infinity;
  const item = s.items !== undefined && !alwaysValid(s.items) ? compileFast(s.items, own) : null;
  if (max === Infinity && !item) return null;
  if (!item) return (d) => (Array.isArray(d) ? d.length <= max : !typed);
  return (d) => {
    if (!Array.isArray(d)) return !typed;
    const n = d.length;
    if (n > max) return false;
    for (let i = 0; i < n; i++) if (!item(d[i])) return false;
    return true;
  };
}

/**
 * `required`, `properties` and `additionalProperties`: each schema member name read once from
 * a precomputed table (required names first), then, for `additionalProperties`, one `for…in`
 * over the object's keys against the names of `properties` (a Set built at compile time).
 */
function objectFast(s: Record<string, unknown>, own: boolean, typed: boolean): Fast | null {
  const req = Array.isArray(s.required) ? (s.required as string[]) : [];
  const props = isObject(s.properties) ? (s.properties as Record<string, unknown>) : {};
  const names = Object.keys(props);
  const ap = s.additionalProperties;
  const closed = ap === false;
  const extra = ap !== undefined && !closed && !alwaysValid(ap) ? compileFast(ap, own) : null;
  const known = new Set(names);
  const keys: string[] = [];
  const required: boolean[] = [];
  const checks: Array<Fast | null> = [];
  for (const k of new Set(req)) {
    keys.push(k);
    required.push(true);
    checks.push(Object.hasOwn(props, k) && !alwaysValid(props[k]) ? compileFast(props[k], own) : null);
  }
  const _nreq = keys.length;
  for (const k of names) {
    if (keys.includes(k) || alwaysValid(props[k])) continue;
    keys.push(k);
    required.push(false);
    checks.push(compileFast(props[k], own));
  }
  const n = keys.length;
  if (!n && !closed && !extra) return typed ? isObject : null;
  const rest = closed
    ? (o: Record<string, unknown>) => {
        for (const k in o) if (!known.has(k)) return false;
        return true;
      }
    : extra
      ? (o: Record<string, unknown>) => {
          for (const k in o) if (!known.has(k) && !extra(o[k])) return false;
          return true;
        }
      : null;
  const byMember = (o: Record<string, unknown>): boolean => {
    for (let i = 0; i < n; i++) {
      const k = keys[i]!;
      const x = o[k];
      if (x === undefined || (own && !hasOwn.call(o, k))) {
        if (required[i]) return false;
        continue;
      }
      const f = checks[i]!;
      if (f !== null && !f(x)) return false;
    }
    return rest === null || rest(o);
  };
  return (d) =>
    typeof d !== 'object' || d === null || Array.isArray(d) ? !typed : byMember(d as Record<string, unknown>);
}

/** The schema data behind a reference chain (a compact validator's), or `s` itself. */
function deref(s: unknown): unknown {
  for (let depth = 0; typeof s === 'function' && depth < 8; depth++) {
    const cell = CELLS.get(s as Validator);
    if (!cell) return undefined;
    s = dataOf(cell);
  }
  return s;
}

/**
 * The string a branch requires of member `p` (the branch is `type: object`, requires `p` and
 * gives it a string `const`), or undefined: data of any other `p` cannot satisfy the branch.
 */
function requiredConst(branch: unknown, p: string): string | undefined {
  const b = deref(branch);
  if (!isObject(b) || b.type !== 'object' || !Array.isArray(b.required) || !b.required.includes(p)) return undefined;
  if (!isObject(b.properties) || !Object.hasOwn(b.properties, p)) return undefined;
  const leaf = leafOf((b.properties as Record<string, unknown>)[p]);
  return leaf && typeof leaf.c === 'string' ? leaf.c : undefined;
}

/**
 * `anyOf`: true when a branch is. When branches are told apart by a member's required string
 * `const` (ContentBlock's `type`), only the branches that member's value allows are tried, and
 * the branches without such a `const`: the others cannot match, so the answer is the same.
 */
function anyOfFast(branches: unknown[], own: boolean): Fast {
  const fasts = branches.map((b) => compileFast(b, own));
  const tryAll =
    (list: Fast[]): Fast =>
    (d) => {
      for (let i = 0; i < list.length; i++) if (list[i]!(d)) return true;
      return false;
    };
  const counts = new Map<string, number>();
  for (const b of branches) {
    const x = deref(b);
    if (!isObject(x) || !Array.isArray(x.required)) continue;
    for (const p of new Set(x.required as string[]))
      if (requiredConst(b, p) !== undefined) counts.set(p, (counts.get(p) ?? 0) + 1);
  }
  let p: string | undefined;
  for (const [k, n] of counts) if (n >= 2 && (p === undefined || n > counts.get(p)!)) p = k;
  if (p === undefined) return fasts.length === 1 ? fasts[0]! : tryAll(fasts);
  const key = p;
  const consts = branches.map((b) => requiredConst(b, key));
  const loose = fasts.filter((_, i) => consts[i] === undefined);
  const byValue = new Map<string, Fast[]>();
  for (const c of consts)
    if (c !== undefined && !byValue.has(c))
      byValue.set(
        c,
        fasts.filter((_, i) => consts[i] === undefined || consts[i] === c),
      );
  const others = loose.length ? tryAll(loose) : no;
  const chosen = new Map<string, Fast>(
    [...byValue].map(([c, list]) => [c, list.length === 1 ? list[0]! : tryAll(list)]),
  );
  return (d) => {
    if (typeof d !== 'object' || d === null || Array.isArray(d)) return others(d);
    const x = (d as Record<string, unknown>)[key];
    if (typeof x !== 'string' || (own && !hasOwn.call(d, key))) return others(d);
    const f = chosen.get(x);
    return f === undefined ? others(d) : f(d);
  };
}
