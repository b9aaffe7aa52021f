/**
 * Canonical form of a revision's `$defs` for quicktype-core.
 *
 * quicktype-core names types by input order, merges identical unions, drops keys of open objects
 * and recurses forever on self-referential JSON types. Everything it sees therefore passes
 * through `canonicalSchema`, which makes the input a function of the schema's meaning only:
 *
 * - object keys sorted by code unit (and `required` sorted), so input key order never matters;
 * - `$ref: "#/$defs/X"` rewritten to `#/definitions/X`, the form quicktype names types after;
 * - definitions on a reference cycle (JSONValue, JSONObject, JSONArray) cut at the cycle: a
 *   cyclic reference becomes `{}` (any), a cyclic union becomes any as a whole;
 * - open objects (explicit `additionalProperties` next to `properties`, objects with no
 *   properties, and every schema used as a `_meta` value) become maps, so unknown keys survive;
 * - `allOf` of objects merged into one object, so each definition keeps a class of its own;
 * - an inline union that contains every member of a named union of references uses that union;
 * - every inline type that quicktype would name gets a `title` made of its definition's name and
 *   its property path (`ClientCapabilitiesElicitation`), never a `Purple…`.
 */

/** A JSON Schema node as read from schema.json. */
export type Schema = { [key: string]: unknown };

/** The `$defs` of one revision's schema.json. */
export type Definitions = Record<string, { [key: string]: unknown }>;

const DEFS_PREFIX = '#/$defs/';
const DEFINITIONS_PREFIX = '#/definitions/';

/** Code-unit comparison, never locale-dependent. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isObject(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep copy with object keys in code-unit order. */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (!isObject(value)) return value;
  const out: Schema = {};
  for (const key of Object.keys(value).sort(compareCodeUnits)) out[key] = sortKeysDeep(value[key]);
  return out;
}

function refTarget(schema: Schema): string | undefined {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return undefined;
  if (ref.startsWith(DEFS_PREFIX)) return ref.slice(DEFS_PREFIX.length);
  if (ref.startsWith(DEFINITIONS_PREFIX)) return ref.slice(DEFINITIONS_PREFIX.length);
  return undefined;
}

/** Calls `visit` on every schema node below `schema` (not on `schema` itself). */
function forEachSubschema(schema: Schema, visit: (child: Schema, segment: string[]) => void): void {
  for (const key of ['properties', 'patternProperties', '$defs', 'definitions'] as const) {
    const map = schema[key];
    if (isObject(map)) {
      for (const name of Object.keys(map)) {
        const child = map[name];
        if (isObject(child)) visit(child, [key, name]);
      }
    }
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) {
      list.forEach((child, i) => {
        if (isObject(child)) visit(child, [key, String(i)]);
      });
    }
  }
  for (const key of ['items', 'additionalProperties', 'not', 'if', 'then', 'else'] as const) {
    const child = schema[key];
    if (isObject(child)) visit(child, [key]);
  }
}

function collectRefs(schema: Schema, into: Set<string>): void {
  const target = refTarget(schema);
  if (target !== undefined) into.add(target);
  forEachSubschema(schema, (child) => collectRefs(child, into));
}

/**
 * Definitions that lie on a reference cycle (Tarjan's strongly connected components, iterated in
 * sorted order so the result does not depend on input order).
 */
export function cyclicDefinitions(defs: Definitions): Set<string> {
  const names = Object.keys(defs).sort(compareCodeUnits);
  const edges = new Map<string, string[]>();
  for (const name of names) {
    const refs = new Set<string>();
    collectRefs(defs[name], refs);
    edges.set(name, [...refs].filter((r) => r in defs).sort(compareCodeUnits));
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cyclic = new Set<string>();
  let counter = 0;
  const strong = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) {
        for (const c of component) cyclic.add(c);
      }
    }
  };
  for (const name of names) if (!index.has(name)) strong(name);
  return cyclic;
}

/** Definitions used as the value of a `_meta` property: open by the protocol's rules. */
export function metaDefinitions(defs: Definitions): Set<string> {
  const out = new Set<string>();
  const walk = (schema: Schema): void => {
    const props = schema.properties;
    if (isObject(props) && isObject(props._meta)) {
      const target = refTarget(props._meta);
      if (target !== undefined) out.add(target);
    }
    forEachSubschema(schema, walk);
  };
  for (const name of Object.keys(defs)) walk(defs[name]);
  return out;
}

/** `elicitation` → `Elicitation`, `io.modelcontextprotocol/logLevel` → `IoModelcontextprotocolLogLevel`. */
export function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}

/** The name segment a schema path element contributes to an inline type's title. */
function titleSegment(segment: string[]): string {
  const [key, arg] = segment;
  switch (key) {
    case 'properties':
    case 'patternProperties':
      return pascalCase(arg);
    case 'items':
      return 'Item';
    case 'prefixItems':
      return `Item${arg}`;
    case 'additionalProperties':
      return 'Value';
    case 'anyOf':
    case 'oneOf':
    case 'allOf':
      return `Case${arg}`;
    default:
      return pascalCase(key);
  }
}

function schemaTypes(schema: Schema): string[] {
  const t = schema.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  return [];
}

function isObjectSchema(schema: Schema): boolean {
  const types = schemaTypes(schema);
  if (types.length > 0) return types.length === 1 && types[0] === 'object';
  return isObject(schema.properties) || schema.additionalProperties !== undefined;
}

/** Does quicktype give this inline schema a type of its own that it must name? */
function isNamedKind(schema: Schema): boolean {
  if (refTarget(schema) !== undefined) return false;
  if (isObjectSchema(schema)) return true;
  if (Array.isArray(schema.enum) || schema.const !== undefined) return true;
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) return true;
  return schemaTypes(schema).length > 1;
}

const ANNOTATIONS = ['title', 'description', 'deprecated'] as const;

function annotationsOf(schema: Schema): Schema {
  const out: Schema = {};
  for (const key of ANNOTATIONS) if (schema[key] !== undefined) out[key] = schema[key];
  return out;
}

/** An object schema as a map from string to `values` (any when omitted). */
function asMap(schema: Schema, values: unknown = {}): Schema {
  return { ...annotationsOf(schema), type: 'object', additionalProperties: values };
}

/** Open objects become maps; closed ones and classes without extra keys stay as they are. */
function openObjectAsMap(schema: Schema): Schema {
  if (!isObjectSchema(schema)) return schema;
  const props = isObject(schema.properties) ? schema.properties : {};
  const extra = schema.additionalProperties;
  if (extra === false) return schema;
  if (Object.keys(props).length === 0) {
    return asMap(schema, extra === undefined || extra === true ? {} : extra);
  }
  if (extra === undefined) return schema;
  return asMap(schema);
}

/**
 * Definitions that are a plain union of two or more references (`ContentBlock`), as sorted
 * lists of their members, largest first.
 */
function referenceUnions(defs: Definitions): Array<{ name: string; members: string[] }> {
  const out: Array<{ name: string; members: string[] }> = [];
  for (const name of Object.keys(defs).sort(compareCodeUnits)) {
    const cases = defs[name].anyOf ?? defs[name].oneOf;
    if (!Array.isArray(cases) || cases.length < 2) continue;
    const members = cases.map((c) => (isObject(c) && Object.keys(c).length === 1 ? refTarget(c) : undefined));
    if (members.every((m): m is string => m !== undefined)) {
      out.push({ name, members: [...new Set(members)].sort(compareCodeUnits) });
    }
  }
  return out.sort((a, b) => b.members.length - a.members.length || compareCodeUnits(a.name, b.name));
}

/**
 * An inline union whose cases include every member of a named reference union gets that union
 * in their place: `TextContent | … | ToolResultContent | SamplingMessageContentBlock[]` becomes
 * `SamplingMessageContentBlock | SamplingMessageContentBlock[]`, so the class quicktype merges
 * from those cases carries the definition's name.
 */
function factorUnion(cases: unknown[], owner: string, unions: Context['unions']): unknown[] {
  let out = cases;
  for (const union of unions) {
    if (union.name === owner) continue;
    const present = new Set(
      out
        .map((c) => (isObject(c) && Object.keys(c).length === 1 ? refTarget(c) : undefined))
        .filter((x) => x !== undefined),
    );
    if (!union.members.every((m) => present.has(m))) continue;
    const members = new Set(union.members);
    const kept = out.filter((c) => {
      const target = isObject(c) && Object.keys(c).length === 1 ? refTarget(c) : undefined;
      return target === undefined || !members.has(target);
    });
    out = [{ $ref: DEFS_PREFIX + union.name }, ...kept];
  }
  return out;
}

/** Only annotations: a schema that any JSON value satisfies. */
function isAnnotationOnly(schema: Schema): boolean {
  return Object.keys(schema).every((key) => (ANNOTATIONS as readonly string[]).includes(key));
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeysDeep(a)) === JSON.stringify(sortKeysDeep(b));
}

/** The schemas two `allOf` parts give one property, as one schema. */
function mergeTwo(a: Schema, b: Schema, defs: Definitions, seen: ReadonlySet<string>): Schema {
  if (sameJson(a, b)) return a;
  if (isAnnotationOnly(b)) return { ...annotationsOf(b), ...a };
  if (isAnnotationOnly(a)) return { ...annotationsOf(a), ...b };
  const merged = mergeAllOf({ allOf: [a, b] }, defs, seen);
  if (merged !== undefined) return merged;
  const ta = a.type;
  const tb = b.type;
  const clash = Object.keys(a).some(
    (key) => key in b && !(ANNOTATIONS as readonly string[]).includes(key) && !sameJson(a[key], b[key]),
  );
  if (typeof ta === 'string' && ta === tb && !clash) return { ...a, ...b };
  return { allOf: [a, b] };
}

/**
 * `allOf` whose parts are all objects (inline, or references to object definitions, or
 * annotation-only) merged into one object: properties side by side, `required` joined, open
 * only when every part is explicitly open. quicktype otherwise intersects the parts into a
 * type that it shares between every definition with the same parts (CancelTaskResult and
 * GetTaskResult are both `Result & Task`), so one of the two names is never declared.
 * Returns undefined when a part is not an object.
 */
function mergeAllOf(schema: Schema, defs: Definitions, seen: ReadonlySet<string> = new Set()): Schema | undefined {
  const parts = schema.allOf;
  if (!Array.isArray(parts)) return undefined;
  const objects: Schema[] = [];
  for (const part of parts) {
    if (!isObject(part)) return undefined;
    let resolved: Schema = part;
    const target = refTarget(part);
    if (target !== undefined) {
      if (
        seen.has(target) ||
        !(target in defs) ||
        Object.keys(part).some((k) => k !== '$ref' && !(ANNOTATIONS as readonly string[]).includes(k))
      ) {
        return undefined;
      }
      resolved = defs[target];
      if (Array.isArray(resolved.allOf)) {
        const inner = mergeAllOf(resolved, defs, new Set([...seen, target]));
        if (inner === undefined) return undefined;
        resolved = inner;
      }
    } else if (Array.isArray(part.allOf)) {
      const inner = mergeAllOf(part, defs, seen);
      if (inner === undefined) return undefined;
      resolved = inner;
    }
    if (isAnnotationOnly(resolved)) continue;
    if (
      !isObjectSchema(resolved) ||
      resolved.anyOf !== undefined ||
      resolved.oneOf !== undefined ||
      resolved.$ref !== undefined
    ) {
      return undefined;
    }
    objects.push(resolved);
  }
  const properties: Schema = {};
  const required = new Set<string>();
  for (const object of objects) {
    const props = isObject(object.properties) ? object.properties : {};
    for (const name of Object.keys(props)) {
      const prop = props[name];
      if (!isObject(prop)) continue;
      properties[name] = isObject(properties[name]) ? mergeTwo(properties[name] as Schema, prop, defs, seen) : prop;
    }
    if (Array.isArray(object.required)) for (const name of object.required) required.add(String(name));
  }
  const out: Schema = { ...annotationsOf(schema), type: 'object', properties };
  if (required.size > 0) out.required = [...required].sort(compareCodeUnits);
  const extras = objects.map((o) => o.additionalProperties);
  if (extras.some((x) => x === false)) out.additionalProperties = false;
  else if (objects.length > 0 && extras.every((x) => x === true || (isObject(x) && Object.keys(x).length === 0))) {
    out.additionalProperties = {};
  }
  return out;
}

interface Context {
  /** Every definition, for `allOf` references. */
  defs: Definitions;
  /** Definitions on a reference cycle. */
  cyclic: Set<string>;
  /** Plain unions of references, for `factorUnion`. */
  unions: Array<{ name: string; members: string[] }>;
  /** The definition being rewritten. */
  owner: string;
  /** The cycle members of the definition being rewritten (empty when it is not cyclic). */
  cutAt: Set<string>;
}

function rewrite(schema: Schema, title: string, ctx: Context, top: boolean): Schema {
  const target = refTarget(schema);
  if (target !== undefined) {
    if (ctx.cutAt.has(target)) return { ...annotationsOf(schema) };
    return { ...schema, $ref: DEFINITIONS_PREFIX + target };
  }
  let node: Schema = openObjectAsMap(mergeAllOf(schema, ctx.defs) ?? { ...schema });
  const out: Schema = {};
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (
      (key === 'properties' || key === 'patternProperties' || key === '$defs' || key === 'definitions') &&
      isObject(value)
    ) {
      const map: Schema = {};
      for (const name of Object.keys(value)) {
        const child = value[name];
        map[name] = isObject(child) ? rewrite(child, title + titleSegment([key, name]), ctx, false) : child;
      }
      out[key] = map;
    } else if (
      (key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'prefixItems') &&
      Array.isArray(value)
    ) {
      const cases = key === 'anyOf' || key === 'oneOf' ? factorUnion(value, ctx.owner, ctx.unions) : value;
      out[key] = cases.map((child, i) =>
        isObject(child) ? rewrite(child, title + titleSegment([key, String(i)]), ctx, false) : child,
      );
    } else if (['items', 'additionalProperties', 'not', 'if', 'then', 'else'].includes(key) && isObject(value)) {
      out[key] = rewrite(value, title + titleSegment([key]), ctx, false);
    } else if (key === 'required' && Array.isArray(value)) {
      out[key] = [...value].sort((a, b) => compareCodeUnits(String(a), String(b)));
    } else {
      out[key] = value;
    }
  }
  node = out;
  if (!top && node.title === undefined && isNamedKind(node)) node.title = title;
  return node;
}

/** A definition on a reference cycle, with the cycle cut: any, or a map/array of any. */
function cutCycle(name: string, schema: Schema, ctx: Context): Schema {
  const cut = rewrite(schema, name, { ...ctx, cutAt: ctx.cyclic }, true);
  if (Array.isArray(cut.anyOf) || Array.isArray(cut.oneOf) || schemaTypes(cut).length > 1) {
    return annotationsOf(cut);
  }
  return cut;
}

/**
 * The quicktype input document for a revision: `{ definitions: { … } }` in canonical form, as
 * a value whose serialisation does not depend on the key order of `defs`.
 */
export function canonicalSchema(defs: Definitions): { definitions: Record<string, Schema> } {
  const cyclic = cyclicDefinitions(defs);
  const meta = metaDefinitions(defs);
  const unions = referenceUnions(defs);
  const definitions: Record<string, Schema> = {};
  for (const name of Object.keys(defs).sort(compareCodeUnits)) {
    const schema = defs[name];
    const ctx: Context = { defs, cyclic, unions, owner: name, cutAt: new Set() };
    let out: Schema;
    if (cyclic.has(name)) out = cutCycle(name, schema, ctx);
    else if (meta.has(name)) out = asMap(schema);
    else out = rewrite(schema, name, ctx, true);
    definitions[name] = out;
  }
  return sortKeysDeep({ definitions }) as { definitions: Record<string, Schema> };
}

/** A property that must be present and may hold any JSON value, `null` included. */
export interface RequiredAnyProperty {
  /** The object's type name: its title, or its definition's name. */
  owner: string;
  /** The property's JSON name. */
  property: string;
}

/**
 * Required properties of any JSON value in a canonical document (LoggingMessageNotification's
 * `data`). Fixes that leave absent values out must keep `null` in these.
 */
export function requiredAnyProperties(document: { definitions: Record<string, Schema> }): RequiredAnyProperty[] {
  const { definitions } = document;
  const isAny = (schema: unknown): boolean => {
    if (!isObject(schema)) return schema === true;
    const target = refTarget(schema);
    if (target !== undefined) return isObject(definitions[target]) && isAnnotationOnly(definitions[target]);
    return isAnnotationOnly(schema);
  };
  const out: RequiredAnyProperty[] = [];
  const walk = (schema: Schema, owner: string): void => {
    const props = schema.properties;
    if (isObject(props) && Array.isArray(schema.required)) {
      for (const name of schema.required) {
        if (typeof name === 'string' && isAny(props[name])) out.push({ owner, property: name });
      }
    }
    forEachSubschema(schema, (child) => walk(child, typeof child.title === 'string' ? child.title : owner));
  };
  for (const name of Object.keys(definitions).sort(compareCodeUnits)) walk(definitions[name], name);
  return out.sort((a, b) => compareCodeUnits(a.owner, b.owner) || compareCodeUnits(a.property, b.property));
}
