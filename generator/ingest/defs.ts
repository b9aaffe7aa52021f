/**
 * The schema.json half of ingest: `$defs` (draft-07 `definitions` rewritten), references checked
 * and followed, and the passes that reconcile schema.json with schema.ts where it lost what
 * schema.ts says (primitive types, `null`, `{@link … | …}` separators), each reported as a warning.
 */
import type ts from 'typescript';
import type { JsonSchema } from '../model.js';
import { KEEP_SCHEMA_JSON_NUMBERS } from '../overrides.js';
import { byCodeUnit } from '../util.js';
import { IngestError } from '../ingest-error.js';
import { FOLLOWED, KEPT, RESTORED } from './followed.js';
import { tsShape, type TsDecl } from './schema-ts.js';

/** Rewrites draft-07 `definitions` to 2020-12 `$defs` (and every `#/definitions/` reference). */
export function normaliseDefs(root: JsonSchema, file: string): Record<string, JsonSchema> {
  const defs = (root.$defs ?? root.definitions) as Record<string, JsonSchema> | undefined;
  if (!defs || typeof defs !== 'object') throw new IngestError(file, '$defs', 'no $defs (or definitions) object');
  const fix = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(fix);
    if (v && typeof v === 'object') {
      const o: JsonSchema = {};
      for (const [k, x] of Object.entries(v)) {
        o[k] = k === '$ref' && typeof x === 'string' ? x.replace(/^#\/definitions\//, '#/$defs/') : fix(x);
      }
      return o;
    }
    return v;
  };
  return fix(defs) as Record<string, JsonSchema>;
}

/** The definition a `#/$defs/Name` reference names. */
export const refName = (s: unknown): string | undefined => {
  const r = (s as JsonSchema | undefined)?.$ref;
  return typeof r === 'string' && r.startsWith('#/$defs/') ? r.slice('#/$defs/'.length) : undefined;
};

/** Follows `$ref`s (and single-member allOf) to the schema object they name. */
export function deref(defs: Record<string, JsonSchema>, s: unknown): JsonSchema | undefined {
  let cur = s as JsonSchema | undefined;
  for (let i = 0; cur && i < 16; i++) {
    const n = refName(cur);
    if (n) cur = defs[n];
    else if (Array.isArray(cur.allOf) && cur.allOf.length === 1) cur = cur.allOf[0] as JsonSchema;
    else return cur;
  }
  return cur;
}

/** The schema at a property path below a named type, following references. */
export function propertyAt(
  defs: Record<string, JsonSchema>,
  typeName: string,
  path: readonly string[],
): JsonSchema | undefined {
  let cur = deref(defs, defs[typeName]);
  for (const p of path) {
    const props = cur?.properties as Record<string, JsonSchema> | undefined;
    cur = props && Object.hasOwn(props, p) ? deref(defs, props[p]) : undefined;
  }
  return cur;
}

/**
 * The types one file defines and the other does not (interfaces and type aliases of schema.ts vs
 * `$defs` of schema.json), as `only in schema.json: A, B; only in schema.ts: C`, or undefined
 * when both define the same set. Two files of one upstream revision agree; a difference means
 * mixed revisions or a stale schema.json.
 */
export function typeSetMismatch(defs: Record<string, JsonSchema>, decls: Map<string, TsDecl>): string | undefined {
  const tsTypes = [...decls.values()].filter((d) => d.kind !== 'const').map((d) => d.name);
  const onlyJson = Object.keys(defs)
    .filter((n) => !decls.has(n) || decls.get(n)!.kind === 'const')
    .sort(byCodeUnit);
  const onlyTs = tsTypes.filter((n) => !Object.hasOwn(defs, n)).sort(byCodeUnit);
  const few = (names: string[]) =>
    `${names.slice(0, 5).join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}`;
  const parts = [
    onlyJson.length ? `only in schema.json: ${few(onlyJson)}` : '',
    onlyTs.length ? `only in schema.ts: ${few(onlyTs)}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : undefined;
}

/**
 * Reconciles schema.json's definitions (in place) with schema.ts: where schema.json loses what
 * schema.ts says, follows schema.ts. Returns the warnings that report each change, and the
 * differences it leaves (types only one file defines, known values widened to string).
 */
export function reconcile(
  defs: Record<string, JsonSchema>,
  decls: Map<string, TsDecl>,
  jf: string,
  tf: string,
): string[] {
  const warnings: string[] = [];
  const mismatch = typeSetMismatch(defs, decls);
  if (mismatch) warnings.push(`${jf} and ${tf} define different types (${mismatch}): are they from the same revision?`);
  const repaired = repairLinks(defs, new Set([...Object.keys(defs), ...decls.keys()]));
  if (repaired)
    warnings.push(`${jf}: ${repaired} {@link Name | text} references lost their " | " separator${RESTORED}`);
  for (const [name, d] of decls) {
    const def = defs[name];
    if (!def || !d.primitives) continue;
    const keep = KEEP_SCHEMA_JSON_NUMBERS.includes(name);
    const prims = new Set([...d.primitives].filter((p) => !(keep && p === 'number')));
    const patched = patchPrimitives(def, prims);
    if (patched.length) warnings.push(`${jf}: $defs.${name}: schema.ts allows ${patched.join(', ')}${FOLLOWED}`);
  }
  for (const name of Object.keys(defs)) {
    for (const { member, at, added } of widenMembers(name, defs[name], decls)) {
      warnings.push(`${jf}: $defs.${name}.properties.${member}${at}: schema.ts allows ${added.join(', ')}${FOLLOWED}`);
    }
  }
  for (const [name, d] of decls) {
    if (d.kind === 'type' && d.literals && d.primitives?.has('string') && d.literals.length) {
      warnings.push(
        `${tf}: ${name}: known values ${d.literals.map((l) => JSON.stringify(l)).join(', ')} widen to string in schema.json${KEPT}`,
      );
    }
  }
  return warnings;
}

/**
 * Adds to `def` (in place) the primitive types schema.ts allows but schema.json lost:
 * `null`, and `number` where schema.json narrowed it to `integer`. Returns what it added.
 */
export function patchPrimitives(def: JsonSchema, tsPrims: Set<string>): string[] {
  const holders: JsonSchema[] = [];
  const visit = (s: JsonSchema) => {
    if (s.type !== undefined) holders.push(s);
    for (const k of ['anyOf', 'oneOf'] as const)
      for (const x of (s[k] as JsonSchema[] | undefined) ?? []) if (!x.$ref) visit(x);
  };
  visit(def);
  if (holders.length === 0) return [];
  const present = new Set(holders.flatMap((h) => (Array.isArray(h.type) ? h.type : [h.type]) as string[]));
  const added: string[] = [];
  const target = holders[holders.length - 1];
  if (tsPrims.has('number') && !present.has('number') && present.has('integer')) {
    for (const h of holders) {
      if (Array.isArray(h.type)) h.type = (h.type as string[]).map((x) => (x === 'integer' ? 'number' : x));
      else if (h.type === 'integer') h.type = 'number';
    }
    added.push('non-integer numbers');
  }
  if (tsPrims.has('null') && !present.has('null')) {
    const now = (Array.isArray(target.type) ? target.type : [target.type]) as string[];
    target.type = [...now, 'null'];
    added.push('null');
  }
  return added;
}

/**
 * schema.json of some revisions writes `{@link CallToolRequest | tools/call}` as
 * `{@link CallToolRequesttools/call}`. Restores the separator (in place) where the link starts
 * with a known type name followed by more text; returns how many links it repaired.
 */
export function repairLinks(defs: Record<string, JsonSchema>, names: Set<string>): number {
  const sorted = [...names].sort((a, b) => b.length - a.length);
  let count = 0;
  const fix = (text: string) =>
    text.replace(/\{@link ([^}|]+)\}/g, (whole, body: string) => {
      if (names.has(body.trim())) return whole;
      // the lost text is a method name or code span: it starts with a lower-case letter or a backtick
      const name = sorted.find((n) => body.startsWith(n) && /^[a-z`]/.test(body.slice(n.length)));
      if (!name) return whole;
      count++;
      return `{@link ${name} | ${body.slice(name.length)}}`;
    });
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as JsonSchema;
      for (const [k, x] of Object.entries(o)) {
        if (k === 'description' && typeof x === 'string') o[k] = fix(x);
        else walk(x);
      }
    }
  };
  walk(defs);
  return count;
}

/**
 * Where a property of a schema.ts interface (own or inherited) allows `null`, or is a value
 * union allowing any number, and schema.json's definition of it lost that, widens the
 * definition in place, at any depth of maps and arrays. Named types (`$ref`) are left to their
 * own definition.
 */
export function widenMembers(
  name: string,
  def: JsonSchema,
  decls: Map<string, TsDecl>,
): Array<{ member: string; at: string; added: string[] }> {
  const found: Array<{ member: string; at: string; added: string[] }> = [];
  const props = def.properties as Record<string, JsonSchema> | undefined;
  if (!props) return found;
  const seen = new Set<string>();
  const members: Array<{ name: string; type: ts.TypeNode }> = [];
  const collect = (n: string) => {
    if (seen.has(n)) return;
    seen.add(n);
    const d = decls.get(n);
    members.push(...(d?.members ?? []));
    for (const b of d?.bases ?? []) collect(b);
  };
  collect(name);
  const done = new Set<string>();
  for (const m of members) {
    if (done.has(m.name) || !Object.hasOwn(props, m.name)) continue;
    done.add(m.name);
    const walk = (type: ts.TypeNode, s: JsonSchema, at: string) => {
      if (!s || typeof s !== 'object' || s.$ref) return;
      const shape = tsShape(type);
      // schema.ts has no integer type: a lone `number` that schema.json makes `integer` (sizes,
      // counts, codes, ms) is a deliberate narrowing. A value union (`string | number | boolean`)
      // holds user data, and there `integer` loses numbers the user may give (95.5).
      const prims = new Set(shape.prims);
      if (!prims.has('string') && !prims.has('boolean')) prims.delete('number');
      const added = patchPrimitives(s, prims);
      if (added.length) found.push({ member: m.name, at, added });
      if (shape.map && s.additionalProperties && typeof s.additionalProperties === 'object')
        walk(shape.map, s.additionalProperties as JsonSchema, `${at}.additionalProperties`);
      if (shape.array && s.items && typeof s.items === 'object')
        walk(shape.array, s.items as JsonSchema, `${at}.items`);
    };
    walk(m.type, props[m.name], '');
  }
  return found;
}

/**
 * Every `$ref` of the definitions must name one of them (`#/$defs/Name`, or `#/definitions/Name`
 * in a draft-07 file): a dangling one is refused naming where it stands and the reference as the
 * file writes them (`definitions.X.anyOf[2].$ref: "#/definitions/Y"` in a draft-07 file).
 */
export function checkRefs(root: JsonSchema, file: string): void {
  const key = root.$defs !== undefined ? '$defs' : 'definitions';
  const defs = root[key];
  if (!defs || typeof defs !== 'object') return; // normaliseDefs names what is missing
  const walk = (v: unknown, path: string): void => {
    if (Array.isArray(v))
      v.forEach((x, i) => {
        walk(x, `${path}[${i}]`);
      });
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string') {
          const target = /^#\/(\$defs|definitions)\//.test(x) ? x.slice(x.indexOf('/', 2) + 1) : undefined;
          if (!target || !Object.hasOwn(defs, target))
            throw new IngestError(file, `${path}.$ref`, `"${x}" names no definition in ${key}`);
        } else walk(x, `${path}.${k}`);
      }
    }
  };
  for (const [name, def] of Object.entries(defs)) walk(def, `${key}.${name}`);
}
