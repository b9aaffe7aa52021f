/**
 * The boolean-only form of a compact validator: the same answers as the error-collecting checks
 * (`compact-check.ts`), no errors, run first on every call.
 *
 * Validity does not depend on the order in which keywords are checked, only the errors do, so
 * these closures check the cheapest conditions first, inline the type tests and stop at the
 * first failure. They read members exactly as the checks do (present: not `undefined`, and own
 * when `own`), and iterate members with `for…in` where the checks do.
 *
 * @module
 */
import { formats } from './formats.js';
import { jsonEqual } from './json-equal.js';
import type { Validator } from './table.js';
import {
  alwaysValid,
  ARRAY,
  BOOLEAN,
  CELLS,
  type Cell,
  dataOf,
  type Fast,
  hasOwn,
  INTEGER,
  isObject,
  leafOf,
  NULL,
  NUMBER,
  OBJECT,
  STRING,
  TYPE_BITS,
  typeIs,
} from './compact-data.js';

/**
 * The cell's boolean-only check, built on first call. Its error-collecting check (which rejects
 * unsupported schema data) is built first, by the validator's first call: that build reaches
 * every schema this one reaches, so the cells of the references met here are checked already.
 * A reference back to a cell being built calls through it.
 */
export function resolveFast(cell: Cell): Fast {
  if (cell.fast) return cell.fast;
  if (cell.fastBuilding) return (d) => cell.fast!(d);
  cell.fastBuilding = true;
  cell.fast = compileFast(dataOf(cell), cell.own);
  cell.fastBuilding = false;
  return cell.fast;
}

export const yes: Fast = () => true;
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
  if (!isObject(s)) return no;
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
  const max = s.maximum as number;
  const min = s.minimum as number;
  const hasMax = typeof max === 'number';
  const hasMin = typeof min === 'number';
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
export function objectFast(s: Record<string, unknown>, own: boolean, typed: boolean): Fast | null {
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
