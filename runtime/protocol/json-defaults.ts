/**
 * JSON Schema `default` applied to a value before it is checked and handed to a handler (a
 * tool's arguments, a prompt's arguments), where ajv's `useDefaults` would apply it: a member of
 * `properties` absent from an object instance gets a copy of its subschema's own `default`.
 * The walk goes into the members and array items the instance has (`properties`,
 * `patternProperties`, `additionalProperties`, `items`, `prefixItems`), through `allOf` and
 * local `$ref`s (`#`, `#/$defs/…`, `#/definitions/…`), never into `anyOf`, `oneOf`, `not`, `if`,
 * `then` or `else` (which branch holds is not known before validation: ajv skips them too), and
 * it adds no array items. Pure: the value given is not changed; the parts that gain a member
 * are copies, the rest is shared. Keys are own properties only, and a `__proto__` member is
 * set as data (../jsonrpc/own.ts). Engine-independent, so that the compiled (ajv) and the
 * interpreted (@cfworker/json-schema) validators of ./json-schema.ts see the same value.
 */
import { setOwn } from '../jsonrpc/own.js';
import { isObject } from '../jsonrpc/message.js';

type Obj = Record<string, unknown>;
/** How deep `$ref`s are followed in one walk (a schema that refers to itself without an instance to consume). */
const MAX_REFS = 64;

/** Whether `schema` (or a subschema of it that {@link withDefaults} visits) holds a `default` anywhere. */
export function hasDefaults(schema: unknown): boolean {
  return JSON.stringify(schema)?.includes('"default"') ?? false;
}

/**
 * `value` with the defaults of `schema` filled in as the module doc describes (the same value
 * when nothing is filled; `value` itself is never changed). `root` is the schema `$ref`s resolve
 * against (default: `schema`).
 */
export function withDefaults(schema: unknown, value: unknown, root: unknown = schema): unknown {
  return walk(schema, value, root, 0);
}

function walk(schema: unknown, value: unknown, root: unknown, refs: number): unknown {
  if (!isObject(schema)) return value;
  let out = value;
  if (typeof schema.$ref === 'string' && refs < MAX_REFS) {
    const target = resolveRef(root, schema.$ref);
    if (target !== undefined) out = walk(target, out, root, refs + 1);
  }
  if (Array.isArray(schema.allOf)) for (const sub of schema.allOf) out = walk(sub, out, root, refs);
  if (isObject(out)) out = objectDefaults(schema, out, root, refs);
  else if (Array.isArray(out)) out = itemDefaults(schema, out, root, refs);
  return out;
}

/** An object instance: absent `properties` members defaulted, present members walked. */
function objectDefaults(schema: Obj, value: Obj, root: unknown, refs: number): Obj {
  let out = value;
  const set = (key: string, v: unknown) => {
    if (out === value) out = copy(value);
    setOwn(out, key, v);
  };
  const props = isObject(schema.properties) ? schema.properties : undefined;
  const patterns = isObject(schema.patternProperties) ? Object.entries(schema.patternProperties) : [];
  if (props) {
    for (const key of Object.keys(props)) {
      const sub = props[key];
      if (Object.hasOwn(value, key)) continue;
      if (isObject(sub) && Object.hasOwn(sub, 'default')) set(key, walk(sub, structuredClone(sub.default), root, refs));
    }
  }
  for (const key of Object.keys(out)) {
    const subs: unknown[] = [];
    if (props && Object.hasOwn(props, key)) subs.push(props[key]);
    for (const [pattern, sub] of patterns) if (matches(pattern, key)) subs.push(sub);
    if (subs.length === 0 && schema.additionalProperties !== undefined) subs.push(schema.additionalProperties);
    const before = out[key];
    let after = before;
    for (const sub of subs) after = walk(sub, after, root, refs);
    if (after !== before) set(key, after);
  }
  return out;
}

/** An array instance: its items walked with `prefixItems` (by position), then `items`. */
function itemDefaults(schema: Obj, value: unknown[], root: unknown, refs: number): unknown[] {
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  let out = value;
  for (let i = 0; i < value.length; i++) {
    const sub = i < prefix.length ? prefix[i] : schema.items;
    const after = walk(sub, value[i], root, refs);
    if (after === value[i]) continue;
    if (out === value) out = value.slice();
    out[i] = after;
  }
  return out;
}

/** A shallow copy of `o` with its own enumerable members as data (a `__proto__` member too). */
function copy(o: Obj): Obj {
  const out: Obj = {};
  for (const k of Object.keys(o)) setOwn(out, k, o[k]);
  return out;
}

/** Whether `key` matches `patternProperties` pattern `pattern` (a pattern that is no regular expression matches nothing). */
function matches(pattern: string, key: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(key);
  } catch {
    return false;
  }
}

/** The subschema a local `$ref` (`#`, `#/…` JSON Pointer) points at in `root`, else undefined. */
function resolveRef(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(at) && !Array.isArray(at)) return undefined;
    if (!Object.hasOwn(at, key)) return undefined;
    at = (at as Obj)[key];
  }
  return at;
}
