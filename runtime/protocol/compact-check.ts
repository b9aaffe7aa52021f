/**
 * The error-collecting form of a compact validator: schema data compiled into checks that push
 * ajv's errors (same keyword order, first failure, `instancePath`, `schemaPath`, `params` and
 * `message`) and answer validity. A compact validator runs it only to word a failure that the
 * boolean-only form (`compact-fast.ts`) has found.
 *
 * @module
 */
import { formats } from './formats.js';
import { jsonEqual } from './json-equal.js';
import type { ValidationError, Validator } from './table.js';
import {
  alwaysValid,
  CELLS,
  COMPACT_KEYWORDS,
  type Cell,
  type Check,
  dataOf,
  type Fast,
  hasOwn,
  isObject,
  TYPE_BITS,
  typeIs,
} from './compact-data.js';
import { objectFast, yes } from './compact-fast.js';

const ok: Check = () => true;

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

/**
 * The cell's check, built on first call together with those of the validators it references
 * (a reference back to a validator being built calls it through its cell).
 */
export function resolve(cell: Cell): Check {
  if (cell.check) return cell.check;
  if (cell.building) return (d, out) => cell.check!(d, out);
  cell.building = true;
  cell.check = compile(dataOf(cell), false, '#', cell.own);
  cell.building = false;
  return cell.check;
}

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
  for (const k of names) {
    if (alwaysValid(props[k])) continue;
    keys.push(k);
    checks.push(compile(props[k], composite, `${sp}/properties/${encodeURIComponent(pointerSegment(k))}`, own));
    segs.push(seg(k));
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
      const n = out.length;
      if (!checks[i]!(x, out)) return under(out, n, segs[i]!);
    }
    return true;
  };
}
