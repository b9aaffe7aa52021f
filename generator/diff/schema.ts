/**
 * Schema views for the diff: a schema with `$ref`s followed and `allOf` merged, its literal
 * values, JSON types (also through unions), discriminator, and how each constraint's change
 * affects the sender or the receiver.
 */
import type { JsonSchema, ProtocolModel } from '../model.js';
import { byCodeUnit } from '../util.js';
import type { Effect } from './report.js';

export const REF_PREFIX = '#/$defs/';
export const refName = (s: unknown): string | undefined => {
  const r = isObj(s) ? s.$ref : undefined;
  return typeof r === 'string' && r.startsWith(REF_PREFIX) ? r.slice(REF_PREFIX.length) : undefined;
};
export function isObj(v: unknown): v is JsonSchema {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

export interface View {
  /** The schema with `$ref`s followed and `allOf` members merged. */
  s: JsonSchema;
  /** Named types followed to get here, outermost first. */
  names: string[];
}

/**
 * Follows `$ref`s and merges `allOf` members. Returns 'cycle' when a named type on `stack` would
 * be entered again, undefined for a reference to a type the model does not have.
 */
export function viewOf(model: ProtocolModel, raw: unknown, stack: readonly string[]): View | 'cycle' | undefined {
  if (!isObj(raw)) return raw === true || raw === undefined ? { s: {}, names: [] } : undefined;
  const names: string[] = [];
  let cur: JsonSchema = raw;
  for (let i = 0; i < 64; i++) {
    const n = refName(cur);
    if (!n) break;
    if (stack.includes(n) || names.includes(n)) return 'cycle';
    const t = model.types[n];
    if (!t) return undefined;
    names.push(n);
    cur = t.schema;
  }
  if (!Array.isArray(cur.allOf)) return { s: cur, names };
  const merged: JsonSchema = { ...cur };
  delete merged.allOf;
  const props: JsonSchema = { ...((merged.properties as JsonSchema | undefined) ?? {}) };
  const required = new Set<string>((merged.required as string[] | undefined) ?? []);
  for (const member of cur.allOf as unknown[]) {
    const v = viewOf(model, member, [...stack, ...names]);
    if (!v || v === 'cycle') continue;
    for (const [k, x] of Object.entries(v.s)) {
      if (k === 'properties' && isObj(x)) Object.assign(props, x);
      else if (k === 'required' && Array.isArray(x)) for (const r of x) required.add(String(r));
      else if (!(k in merged)) merged[k] = x;
    }
  }
  if (Object.keys(props).length) merged.properties = props;
  if (required.size) merged.required = [...required].sort(byCodeUnit);
  return { s: merged, names };
}

export const unionOf = (s: JsonSchema): unknown[] | undefined =>
  Array.isArray(s.anyOf) ? (s.anyOf as unknown[]) : Array.isArray(s.oneOf) ? (s.oneOf as unknown[]) : undefined;

/** Literal values a schema allows (`const` or `enum`), or null when it does not list them. */
export function valuesOf(s: JsonSchema): unknown[] | null {
  if ('const' in s) return [s.const];
  return Array.isArray(s.enum) ? (s.enum as unknown[]) : null;
}

/** The JSON types a schema allows; empty means any. */
export function typesOf(s: JsonSchema): string[] {
  if (typeof s.type === 'string') return [s.type];
  if (Array.isArray(s.type)) return [...new Set(s.type as string[])].sort(byCodeUnit);
  const vals = valuesOf(s);
  if (vals) return [...new Set(vals.map(jsonTypeOf))].sort(byCodeUnit);
  if (isObj(s.properties) || s.additionalProperties !== undefined) return ['object'];
  if (s.items !== undefined) return ['array'];
  return [];
}
export function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}
export const showTypes = (t: string[]): string => (t.length ? t.join(' | ') : 'any');
export const showValue = (v: unknown): string => JSON.stringify(v) ?? 'undefined';
export const showValues = (vs: unknown[]): string => vs.map(showValue).sort(byCodeUnit).join(', ');

export const ALL_TYPES = ['array', 'boolean', 'null', 'number', 'object', 'string'];
/** A schema that constrains nothing (`{}`, or only annotations). */
export const isAny = (s: JsonSchema): boolean => typesOf(s).length === 0 && !unionOf(s);

/** The JSON types a schema allows, looking through union members; empty means any. */
export function typesDeep(model: ProtocolModel, s: JsonSchema, stack: readonly string[], depth = 0): string[] {
  const members = unionOf(s);
  if (!members) return typesOf(s);
  const out = new Set<string>();
  for (const m of members) {
    const v = viewOf(model, m, stack);
    if (!v || v === 'cycle' || depth > 4) return [];
    const t = typesDeep(model, v.s, [...stack, ...v.names], depth + 1);
    if (t.length === 0) return [];
    for (const x of t) out.add(x);
  }
  if (covers([...out], ALL_TYPES)) return [];
  return [...out].sort(byCodeUnit);
}

/** Whether every type in `narrow` is allowed by `wide` (integer is a number). */
export function covers(wide: string[], narrow: string[]): boolean {
  if (wide.length === 0) return true;
  if (narrow.length === 0) return false;
  return narrow.every((t) => wide.includes(t) || (t === 'integer' && wide.includes('number')));
}

/** The `prop=const` discriminator of an object schema (`type`, `kind`, `method`, `mode` first). */
export function discriminatorOf(model: ProtocolModel, s: JsonSchema): string | null {
  const props = isObj(s.properties) ? s.properties : {};
  const order = ['type', 'kind', 'method', 'mode'];
  const keys = Object.keys(props).sort((x, y) => {
    const ix = order.indexOf(x);
    const iy = order.indexOf(y);
    return (ix < 0 ? order.length : ix) - (iy < 0 ? order.length : iy) || byCodeUnit(x, y);
  });
  for (const k of keys) {
    const pv = viewOf(model, props[k], []);
    if (pv && pv !== 'cycle' && 'const' in pv.s) return `${k}=${String(pv.s.const)}`;
  }
  return null;
}

export const CONSTRAINTS = [
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'uniqueItems',
] as const;

export function constraintEffect(k: (typeof CONSTRAINTS)[number], a: unknown, b: unknown): Effect {
  if (a === undefined) return 'sender';
  if (b === undefined) return 'receiver';
  if (typeof a === 'number' && typeof b === 'number') {
    const lower = k.startsWith('min') || k === 'exclusiveMinimum';
    return (lower ? b > a : b < a) ? 'sender' : 'receiver';
  }
  if (k === 'uniqueItems') return b === true ? 'sender' : 'receiver';
  return 'both';
}
