/**
 * Mutations of an example derived from its schema (generated/<rev>/model.json), for the tests
 * that check a decoder refuses them at the mutated place: the generated validators
 * (./validators.test.ts) and the own bindings (./bindings/own.ts). Per example:
 * - `drop required`: each required member present in an object is removed;
 * - `wrong const`: each `const` value below the root is changed;
 * - `wrong type`: each value below the root with a `type` keyword becomes a JSON value of a type
 *   the keyword does not allow.
 * Only places whose schema is known without choosing a branch are mutated: the root, then down
 * `properties`, `items` and `additionalProperties`, never into anyOf / oneOf / allOf / if, where
 * a mutated value may match another branch.
 */
import type { JsonSchema, ProtocolModel } from '../../generator/model.js';

/** Path segments into a JSON value: member names and array indices. */
export type Segments = Array<string | number>;

const JSON_VALUES: Array<[string, unknown]> = [
  ['string', 'mutated'],
  ['integer', 12345],
  ['number', 1.5],
  ['boolean', true],
  ['null', null],
  ['array', []],
  ['object', { mutated: true }],
];
/** A JSON value whose type the schema's `type` keyword does not allow, if there is one. */
export function wrongValue(type: unknown): unknown {
  const allowed = new Set((Array.isArray(type) ? type : [type]) as string[]);
  if (allowed.has('number')) allowed.add('integer');
  const hit = JSON_VALUES.find(([t]) => !allowed.has(t));
  return hit ? hit[1] : undefined;
}

/** Follows `$ref`s to the named definition (stops at composed schemas). */
export function deref(model: ProtocolModel, s: JsonSchema): JsonSchema {
  let cur = s;
  for (let i = 0; i < 16 && typeof cur.$ref === 'string'; i++)
    cur = model.types[(cur.$ref as string).replace(/^#\/\$defs\//, '')]?.schema ?? {};
  return cur;
}

/** A place in an example: its path segments and its schema (never inside a union). */
interface Site {
  segs: Segments;
  schema: JsonSchema;
}
function sites(model: ProtocolModel, schema: JsonSchema, data: unknown, segs: Segments = []): Site[] {
  const s = deref(model, schema);
  const out: Site[] = [{ segs, schema: s }];
  if (s.anyOf || s.oneOf || s.allOf || s.if) return out;
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    const props = (s.properties ?? {}) as Record<string, JsonSchema>;
    for (const [k, v] of Object.entries(data)) {
      const sub = Object.hasOwn(props, k)
        ? props[k]
        : typeof s.additionalProperties === 'object'
          ? (s.additionalProperties as JsonSchema)
          : undefined;
      if (sub) out.push(...sites(model, sub, v, [...segs, k]));
    }
  } else if (Array.isArray(data) && s.items && typeof s.items === 'object' && !Array.isArray(s.items)) {
    data.forEach((v, i) => {
      out.push(...sites(model, s.items as JsonSchema, v, [...segs, i]));
    });
  }
  return out;
}

/** A deep copy of `data` with the value at `segs` replaced (or deleted with `remove`); throws when the parent is missing. */
export function withAt(data: unknown, segs: ReadonlyArray<string | number>, value: unknown, remove = false): unknown {
  if (segs.length === 0) return value;
  const copy = structuredClone(data);
  let parent = copy as Record<string | number, unknown>;
  for (const s of segs.slice(0, -1)) parent = parent?.[s] as Record<string | number, unknown>;
  if (!parent || typeof parent !== 'object')
    throw new Error(`withAt: no parent for ${JSON.stringify(segs)} in ${JSON.stringify(data).slice(0, 300)}`);
  const last = segs[segs.length - 1];
  if (remove) delete parent[last];
  else parent[last] = value;
  return copy;
}

export interface SchemaMutation {
  kind: 'drop required' | 'wrong const' | 'wrong type';
  /** Where the mutation is: the dropped member, or the changed value. */
  segs: Segments;
  /** The mutated example. */
  data: unknown;
}

/** Every mutation of one example of `type` (see the module doc), in the order of the example's places. */
export function schemaMutations(model: ProtocolModel, type: string, data: unknown): SchemaMutation[] {
  const out: SchemaMutation[] = [];
  for (const site of sites(model, { $ref: `#/$defs/${type}` }, data)) {
    let value: unknown = data;
    for (const s of site.segs) value = (value as Record<string | number, unknown>)[s];
    const s = site.schema;
    if (value && typeof value === 'object' && !Array.isArray(value) && Array.isArray(s.required)) {
      for (const r of s.required as string[]) {
        if (!Object.hasOwn(value, r)) continue;
        const segs = [...site.segs, r];
        out.push({ kind: 'drop required', segs, data: withAt(data, segs, undefined, true) });
      }
    }
    if (site.segs.length && s.const !== undefined) {
      const wrong =
        typeof s.const === 'string' ? `${s.const}-mutated` : typeof s.const === 'number' ? s.const + 1 : 'mutated';
      out.push({ kind: 'wrong const', segs: site.segs, data: withAt(data, site.segs, wrong) });
    }
    if (site.segs.length && s.type !== undefined) {
      const wrong = wrongValue(s.type);
      if (wrong !== undefined) out.push({ kind: 'wrong type', segs: site.segs, data: withAt(data, site.segs, wrong) });
    }
  }
  return out;
}
