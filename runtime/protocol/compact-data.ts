/**
 * Compact schema data as both validator forms read it: the keyword and type tables, the short
 * names of generated data and their expansion, the cell each compact validator keeps its data
 * and built checks in, the type tests the two forms share, and the leaf schemas of the boolean form
 * (`compact-check.ts`: errors in ajv's order; `compact-fast.ts`: validity only).
 *
 * @module
 */
import { isObject } from '../jsonrpc/message.js';

export { isObject };
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

/** A schema as compact data: a schema object, a boolean schema, or a reference (a Validator). */
export type CompactSchema = boolean | Validator | { readonly [keyword: string]: unknown };

/** Pushes errors (instancePath relative to the checked value) and answers validity. */
export type Check = (d: unknown, out: ValidationError[]) => boolean;
/** Answers validity only: no errors, no allocation; stops at the first failure. */
export type Fast = (d: unknown) => boolean;

/** A compact validator's schema thunk and, once built, its check. */
export interface Cell {
  readonly thunk: () => CompactSchema;
  readonly own: boolean;
  data?: CompactSchema;
  check?: Check;
  building?: boolean;
  /** The boolean-only form of `check` (same answers, no errors), run first on every call. */
  fast?: Fast;
  fastBuilding?: boolean;
}
export const CELLS = new WeakMap<Validator, Cell>();

export const hasOwn = Object.prototype.hasOwnProperty;

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
export function expand(s: unknown): unknown {
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

export const dataOf = (cell: Cell) => (cell.data ??= expand(cell.thunk()) as CompactSchema);

export const STRING = 1;
export const NUMBER = 2;
export const INTEGER = 4;
export const BOOLEAN = 8;
export const NULL = 16;
export const OBJECT = 32;
export const ARRAY = 64;
/** The JSON Schema type names a compact schema's `type` may list, each with its bits (`number` includes `integer`). */
export const TYPE_BITS: Record<string, number> = {
  string: STRING,
  number: NUMBER | INTEGER,
  integer: INTEGER,
  boolean: BOOLEAN,
  null: NULL,
  object: OBJECT,
  array: ARRAY,
};

/** The type bit of a JSON value (`INTEGER` for a number only when the schema asks: see `typeIs`). */
export function typeIs(mask: number, d: unknown): boolean {
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
/** No `const` in a leaf. */
export const NONE = Symbol('none');
/**
 * A schema whose validity is a type test and an optional primitive `const` (`{ type: 'string' }`,
 * `{ type: 'string', const: '2.0' }`, a reference to such a schema): its type bits and `const`
 * (`NONE` without one). `anyOfFast` (compact-fast.ts) reads the `const` a branch requires of a member.
 */
export function leafOf(s: unknown, depth = 0): { mask: number; c: unknown } | null {
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
export const alwaysValid = (s: unknown) => s === true || (isObject(s) && Object.keys(s).length === 0);
