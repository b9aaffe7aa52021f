/**
 * The shared pass of the emitters of other languages (go/, python/, rust/): the ProtocolModel's
 * schemas turned into one language-neutral shape (structs, unions, aliases, with every inline
 * object and union hoisted to a name), the method tables, and the doc-comment lines (naming.ts
 * names them).
 *
 * Pure and deterministic: declarations are sorted by name (code-unit order), hoisted names are
 * `<Parent><Property>` with the fixed clash rule `<Name>2`, `<Name>3`, …
 */
import type { JsonSchema, ProtocolModel } from '../model.js';
import { byCodeUnit } from '../util.js';
import { pascal } from './naming.js';

/** A value's type. `ref` names a declaration; everything else is a JSON value kind. */
export type Ty =
  | { k: 'ref'; name: string }
  | { k: 'string'; enum?: string[] }
  | { k: 'integer'; min?: number; max?: number }
  | { k: 'number'; min?: number; max?: number }
  | { k: 'boolean' }
  | { k: 'null' }
  | { k: 'const'; value: string | number | boolean }
  /** Any JSON value. */
  | { k: 'any' }
  | { k: 'array'; items: Ty; maxItems?: number }
  /** An object used as a map: string keys, `values` values. */
  | { k: 'map'; values: Ty }
  /** A JSON value of one of these primitive kinds (`type: ["string", "integer"]`). */
  | { k: 'prims'; kinds: PrimKind[] };

export type PrimKind = 'string' | 'integer' | 'number' | 'boolean' | 'null';

export interface Field {
  /** The member's name in JSON. */
  json: string;
  ty: Ty;
  required: boolean;
  doc: string[];
}

export interface StructDecl {
  kind: 'struct';
  name: string;
  fields: Field[];
  /** Members not declared: kept (typed `Ty`, `any` when the schema says nothing) or refused. */
  extra: Ty | 'refuse';
  doc: string[];
}

/**
 * How a union picks its variant: by a member whose value is a distinct constant in every
 * variant (`type`, `method`, …), by the JSON-RPC message kind (which members are present), or
 * not at all (the first variant that decodes).
 */
export type Tag =
  | { kind: 'const'; member: string; values: string[] }
  | { kind: 'jsonrpc'; kinds: JsonRpcKind[] }
  | { kind: 'none' };
export type JsonRpcKind = 'request' | 'notification' | 'result' | 'error';

export interface UnionDecl {
  kind: 'union';
  name: string;
  variants: Ty[];
  tag: Tag;
  doc: string[];
}

export interface AliasDecl {
  kind: 'alias';
  name: string;
  ty: Ty;
  doc: string[];
}

export type Decl = StructDecl | UnionDecl | AliasDecl;

export interface Shape {
  revision: string;
  /** Every declaration, sorted by name. */
  decls: Decl[];
  byName: Map<string, Decl>;
}

/**
 * The doc-comment lines of a declaration: the schema's description, then the back-reference
 * `@see <rev> #/$defs/<Name>` and `@deprecated` where the spec says so. Language renderers
 * only add their comment markers (and escape their comment terminator).
 */
export function docLines(
  model: ProtocolModel,
  name: string,
  description: string | undefined,
  defName?: string,
): string[] {
  const lines = description ? description.replace(/\r\n?/g, '\n').trimEnd().split('\n') : [];
  const def = defName ?? name;
  const out = [...lines];
  if (Object.hasOwn(model.types, def)) {
    if (out.length) out.push('');
    out.push(`@see ${model.revision} #/$defs/${def}`);
    const dep = model.types[def].deprecated;
    if (dep !== undefined)
      out.push(...(dep ? `@deprecated ${dep}` : '@deprecated').replace(/\r\n?/g, '\n').split('\n'));
  }
  return out;
}

const refName = (ref: string): string => ref.replace(/^#\/\$defs\//, '');

const isObj = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Builds the shape of a revision. */
// size: one case per schema construct of the language-neutral shape
export function buildShape(model: ProtocolModel): Shape {
  const decls = new Map<string, Decl>();
  const reserved = new Set(Object.keys(model.types));
  const hoistedNames = new Set<string>();

  const hoistName = (base: string): string => {
    let name = base;
    for (let i = 2; reserved.has(name) || hoistedNames.has(name); i++) name = `${base}${i}`;
    hoistedNames.add(name);
    return name;
  };

  /** A schema's object members, with `allOf` parts merged (later parts win). */
  const objectParts = (
    s: JsonSchema,
    seen: Set<string> = new Set(),
  ): { props: Record<string, JsonSchema>; required: Set<string>; extra: unknown } => {
    const props: Record<string, JsonSchema> = {};
    const required = new Set<string>();
    let extra: unknown = s.additionalProperties;
    const parts: JsonSchema[] = [];
    for (const part of (s.allOf as JsonSchema[] | undefined) ?? []) {
      if (typeof part.$ref === 'string') {
        const n = refName(part.$ref);
        if (!seen.has(n)) parts.push(model.types[n].schema);
      } else parts.push(part);
    }
    for (const p of parts) {
      const sub = objectParts(p, seen);
      Object.assign(props, sub.props);
      for (const r of sub.required) required.add(r);
      if (sub.extra !== undefined) extra = sub.extra;
    }
    for (const [k, v] of Object.entries((s.properties as Record<string, JsonSchema> | undefined) ?? {})) {
      props[k] = v;
    }
    for (const r of (s.required as string[] | undefined) ?? []) required.add(r);
    if (s.additionalProperties !== undefined) extra = s.additionalProperties;
    return { props, required, extra };
  };

  const isStructSchema = (s: JsonSchema): boolean =>
    Array.isArray(s.allOf) ||
    (isObj(s.properties) && Object.keys(s.properties).length > 0) ||
    (s.type === 'object' && Array.isArray(s.required));

  /** The type of a schema; inline objects and unions get a declaration named `hint`. */
  const tyOf = (s: JsonSchema, hint: string): Ty => {
    if (typeof s.$ref === 'string') return { k: 'ref', name: refName(s.$ref) };
    if (s.const !== undefined) return { k: 'const', value: s.const as string | number | boolean };
    if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
      const name = hoistName(hint);
      declare(name, s, []);
      return { k: 'ref', name };
    }
    if (isStructSchema(s)) {
      const name = hoistName(hint);
      declare(name, s, []);
      return { k: 'ref', name };
    }
    const type = s.type;
    if (Array.isArray(type)) return { k: 'prims', kinds: [...(type as PrimKind[])].sort(byCodeUnit) };
    switch (type) {
      case 'string':
        return Array.isArray(s.enum) ? { k: 'string', enum: (s.enum as string[]).slice() } : { k: 'string' };
      case 'integer':
      case 'number': {
        const t: { k: 'integer' | 'number'; min?: number; max?: number } = { k: type };
        if (typeof s.minimum === 'number') t.min = s.minimum;
        if (typeof s.maximum === 'number') t.max = s.maximum;
        return t;
      }
      case 'boolean':
        return { k: 'boolean' };
      case 'null':
        return { k: 'null' };
      case 'array': {
        const items = isObj(s.items) ? tyOf(s.items, `${hint}Item`) : { k: 'any' as const };
        return typeof s.maxItems === 'number' ? { k: 'array', items, maxItems: s.maxItems } : { k: 'array', items };
      }
      case 'object': {
        const ap = s.additionalProperties;
        return { k: 'map', values: isObj(ap) && Object.keys(ap).length > 0 ? tyOf(ap, `${hint}Value`) : { k: 'any' } };
      }
      default:
        if (Array.isArray(s.enum)) return { k: 'string', enum: (s.enum as string[]).slice() };
        return { k: 'any' };
    }
  };

  const resolveStruct = (t: Ty): StructDecl | undefined => {
    if (t.k !== 'ref') return undefined;
    const d = decls.get(t.name);
    return d?.kind === 'struct' ? d : undefined;
  };

  const unionTag = (name: string, variants: Ty[]): Tag => {
    const structs = variants.map(resolveStruct);
    if (structs.some((s) => s === undefined)) return { kind: 'none' };
    const ss = structs as StructDecl[];
    if (ss.every((s) => s.name.startsWith('JSONRPC'))) {
      const kinds = ss.map((s): JsonRpcKind | undefined => {
        const has = (m: string) => s.fields.some((f) => f.json === m && f.required);
        if (has('method') && has('id')) return 'request';
        if (has('method')) return 'notification';
        if (has('result')) return 'result';
        if (has('error')) return 'error';
        return undefined;
      });
      if (kinds.every((k) => k !== undefined) && new Set(kinds).size === kinds.length)
        return { kind: 'jsonrpc', kinds: kinds as JsonRpcKind[] };
    }
    const candidates = new Set(ss[0].fields.map((f) => f.json));
    const order = ['type', 'method', 'resultType', 'kind', 'mode'];
    const members = [...candidates].sort((a, b) => {
      const ia = order.indexOf(a) < 0 ? order.length : order.indexOf(a);
      const ib = order.indexOf(b) < 0 ? order.length : order.indexOf(b);
      return ia - ib || byCodeUnit(a, b);
    });
    for (const m of members) {
      const values = ss.map((s) => {
        const f = s.fields.find((x) => x.json === m);
        return f?.required && f.ty.k === 'const' && typeof f.ty.value === 'string' ? f.ty.value : undefined;
      });
      if (values.every((v) => v !== undefined) && new Set(values).size === values.length)
        return { kind: 'const', member: m, values: values as string[] };
    }
    void name;
    return { kind: 'none' };
  };

  const pending: UnionDecl[] = [];

  function declare(name: string, s: JsonSchema, doc: string[]): void {
    if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
      const list = (s.anyOf ?? s.oneOf) as JsonSchema[];
      const variants = list.map((v, i) => tyOf(v, `${name}Variant${i + 1}`));
      const u: UnionDecl = { kind: 'union', name, variants, tag: { kind: 'none' }, doc };
      decls.set(name, u);
      pending.push(u);
      return;
    }
    if (isStructSchema(s)) {
      const { props, required, extra } = objectParts(s);
      const fields: Field[] = Object.keys(props)
        .sort(byCodeUnit)
        .map((json) => {
          const p = props[json];
          const d =
            typeof p.description === 'string' ? p.description.replace(/\r\n?/g, '\n').trimEnd().split('\n') : [];
          return { json, ty: tyOf(p, `${name}${pascal(json)}`), required: required.has(json), doc: d };
        });
      const ex: Ty | 'refuse' =
        extra === false
          ? 'refuse'
          : isObj(extra) && Object.keys(extra).length > 0
            ? tyOf(extra, `${name}Value`)
            : { k: 'any' };
      decls.set(name, { kind: 'struct', name, fields, extra: ex, doc });
      return;
    }
    decls.set(name, { kind: 'alias', name, ty: tyOf(s, `${name}Value`), doc });
  }

  for (const name of Object.keys(model.types).sort(byCodeUnit)) {
    const t = model.types[name];
    declare(name, t.schema, docLines(model, name, t.description));
  }
  // Tags need every struct declared first.
  for (const u of pending) u.tag = unionTag(u.name, u.variants);

  const sorted = [...decls.values()].sort((a, b) => byCodeUnit(a.name, b.name));
  return { revision: model.revision, decls: sorted, byName: new Map(sorted.map((d) => [d.name, d])) };
}

/** Follows alias declarations to the type underneath. */
export function resolveAlias(shape: Shape, t: Ty): Ty {
  for (let i = 0; i < 16 && t.k === 'ref'; i++) {
    const d = shape.byName.get(t.name);
    if (d?.kind !== 'alias') break;
    t = d.ty;
  }
  return t;
}

/** Request and notification tables of a revision, sorted by method. */
export function methodTables(model: ProtocolModel) {
  const requests = [...model.requests].sort(
    (a, b) => byCodeUnit(a.method, b.method) || byCodeUnit(a.direction, b.direction),
  );
  const notifications = [...model.notifications].sort(
    (a, b) => byCodeUnit(a.method, b.method) || byCodeUnit(a.direction, b.direction),
  );
  return { requests, notifications };
}
