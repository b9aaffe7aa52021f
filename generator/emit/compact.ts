/**
 * Compact validators emitter (`validators: 'compact'`, the default): the revision's schemas as
 * data, annotations stripped, one `const` per named definition whose references are JS
 * references to the other consts (a sub-schema written more than once, such as `{t:"string"}`,
 * is a plain const of its own, named where it occurs); runtime/protocol/compact.ts (`compactValidators` of
 * `codegen/v1`) turns each into closures on its first call. Every definition is a
 * side-effect-free call (`/* @__PURE__ *\/`), so a bundler keeps only the definitions a program
 * reaches from the validators it uses.
 *
 * The data may use only {@link COMPACT_KEYWORDS} (what the runtime implements: the keywords
 * of every MCP revision so far), `$ref`s of the form `#/$defs/<Name>`, the JSON types and the
 * formats of ./formats.ts. {@link compactUnsupported} names the first thing a revision's
 * schemas use beyond that; the validators emitter then writes the ajv form for that revision
 * and generate reports why (never a validator that silently accepts what it cannot check).
 */
import type { ProtocolModel } from '../model.js';
import { byCodeUnit } from '../util.js';
import { type EmitOptions, preamble } from './common.js';
import { codeExports, type FastNames, fastFunctions, HOT, type HotNames, objectTestSource } from './compact-fast.js';
import { FORMAT_NAMES } from './formats.js';

/**
 * The keywords the runtime's compact validators implement (runtime/protocol/compact.ts
 * `COMPACT_KEYWORDS`; test/runtime/protocol/compact.test.ts checks both lists agree).
 */
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
const TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
const REF = /^#\/\$defs\/([^/~%]+)$/;

/** What a compact emitter cannot express: the keyword (or value) and the JSON Pointer of the schema that has it. */
export interface Unsupported {
  keyword: string;
  pointer: string;
  why: string;
}

const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The first keyword or keyword value in `defs` (the revision's definitions, annotations
 * stripped) that compact validators do not implement, with its pointer (`#/$defs/Tool/properties/x`);
 * null when every schema is covered.
 */
export function compactUnsupported(defs: Record<string, unknown>): Unsupported | null {
  const names = new Set(Object.keys(defs));
  const walk = (s: unknown, at: string): Unsupported | null => {
    if (typeof s === 'boolean') return null;
    if (!s || typeof s !== 'object' || Array.isArray(s))
      return { keyword: '(schema)', pointer: at, why: 'a schema must be an object or a boolean' };
    const o = s as Record<string, unknown>;
    for (const k of Object.keys(o).sort(byCodeUnit)) {
      const v = o[k];
      const here = `${at}/${esc(k)}`;
      const bad = (why: string): Unsupported => ({ keyword: k, pointer: here, why });
      switch (k) {
        case '$ref':
          if (typeof v !== 'string' || !REF.test(v) || !names.has(REF.exec(v)![1]!))
            return bad(`only references to a definition (#/$defs/<Name>) are compact; found ${JSON.stringify(v)}`);
          break;
        case 'type':
          for (const t of Array.isArray(v) ? v : [v])
            if (typeof t !== 'string' || !TYPES.has(t)) return bad(`unknown type ${JSON.stringify(t)}`);
          break;
        case 'format':
          if (typeof v !== 'string' || !FORMAT_NAMES.includes(v))
            return bad(`format ${JSON.stringify(v)} has no runtime check`);
          break;
        case 'required':
          if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return bad('must be an array of names');
          break;
        case 'minimum':
        case 'maximum':
        case 'maxItems':
          if (typeof v !== 'number') return bad('must be a number');
          break;
        case 'enum':
          if (!Array.isArray(v)) return bad('must be an array');
          break;
        case 'const':
          break;
        case 'properties':
          if (!v || typeof v !== 'object' || Array.isArray(v)) return bad('must be an object');
          for (const [name, x] of Object.entries(v)) {
            const r = walk(x, `${here}/${esc(name)}`);
            if (r) return r;
          }
          break;
        case 'additionalProperties':
        case 'items': {
          const r = walk(v, here);
          if (r) return r;
          break;
        }
        case 'anyOf':
        case 'allOf':
          if (!Array.isArray(v) || !v.length) return bad('must be a non-empty array');
          for (let i = 0; i < v.length; i++) {
            const r = walk(v[i], `${here}/${i}`);
            if (r) return r;
          }
          break;
        default:
          return bad('keyword not implemented by compact validators');
      }
    }
    return null;
  };
  for (const name of Object.keys(defs).sort(byCodeUnit)) {
    const r = walk(defs[name], `#/$defs/${esc(name)}`);
    if (r) return r;
  }
  return null;
}

const IDENT = /^[A-Za-z_$][\w$]*$/;
/**
 * The short names the data spells keywords with (runtime/protocol/compact.ts `KEYWORD_ALIASES`,
 * which expands them; test/runtime/protocol/compact-aliases.test.ts checks both tables agree).
 */
export const KEYWORD_ALIASES: Readonly<Record<string, string>> = {
  type: 't',
  properties: 'p',
  required: 'r',
  const: 'c',
  additionalProperties: 'a',
  items: 'i',
  anyOf: 'o',
  enum: 'e',
};
/**
 * The short names of frequent types under the `t` alias (runtime/protocol/compact.ts
 * `TYPE_ALIASES`, which expands them; test/runtime/protocol/compact-aliases.test.ts checks both
 * tables agree).
 */
export const TYPE_ALIASES: Readonly<Record<string, string>> = { object: 'o', string: 's', array: 'a' };
const typeAlias = (t: unknown) => (typeof t === 'string' && Object.hasOwn(TYPE_ALIASES, t) ? TYPE_ALIASES[t]! : t);
const alias = (k: string) => (Object.hasOwn(KEYWORD_ALIASES, k) ? KEYWORD_ALIASES[k]! : key(k));
const key = (k: string) => (IDENT.test(k) ? k : JSON.stringify(k));

/**
 * How {@link source} writes sub-schemas: `shared` names objects that are consts of their own by
 * identity (inline params); `names` names sub-schemas by their text (the repeated ones, see
 * {@link repeatedSchemas}); `seen` counts, per text, the sub-schemas written in full.
 */
interface Writer {
  readonly shared: Map<unknown, string>;
  readonly names: ReadonlyMap<string, string>;
  readonly seen?: Map<string, number>;
  /** Counts, per text of `names`, the sub-schemas written as its name. */
  readonly uses?: Map<string, number>;
  /** Full text by object, memoized (the data is not changed while it is written). */
  readonly full: Map<object, string>;
}

/**
 * JS source of schema `s`: references become the referenced definition's const name, objects in
 * `w.shared` the name of their own const, sub-schemas whose text `w.names` names that name (never
 * `s` itself when `root`); `const` and `enum` values stay JSON data.
 */
function source(s: unknown, w: Writer, root = false): string {
  if (!root && w.shared.has(s)) return w.shared.get(s)!;
  if (typeof s !== 'object' || s === null) return JSON.stringify(s);
  if (!root && w.names.size) {
    const text = fullText(s, w);
    const name = w.names.get(text);
    if (name !== undefined) {
      w.uses?.set(text, (w.uses.get(text) ?? 0) + 1);
      return name;
    }
  }
  const o = s as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1 && typeof o.$ref === 'string') return REF.exec(o.$ref)![1]!;
  const parts = keys.map((k) => {
    const v = o[k];
    switch (k) {
      case '$ref':
        return `$ref:${REF.exec(v as string)![1]}`;
      case 'properties':
        return `${alias(k)}:{${Object.entries(v as object)
          .map(([n, x]) => `${key(n)}:${source(x, w)}`)
          .join(',')}}`;
      case 'additionalProperties':
      case 'items':
        return `${alias(k)}:${source(v, w)}`;
      case 'anyOf':
      case 'allOf':
        return `${alias(k)}:[${(v as unknown[]).map((x) => source(x, w)).join(',')}]`;
      case 'type':
        return `${alias(k)}:${JSON.stringify(Array.isArray(v) ? v.map(typeAlias) : typeAlias(v))}`;
      default:
        return `${alias(k)}:${JSON.stringify(v)}`;
    }
  });
  const text = `{${parts.join(',')}}`;
  if (w.seen && !root) w.seen.set(text, (w.seen.get(text) ?? 0) + 1);
  return text;
}

/** The text of object schema `s` with no sub-schema named by its text. */
function fullText(s: object, w: Writer): string {
  let text = w.full.get(s);
  if (text === undefined) {
    text = source(s, { shared: w.shared, names: new Map(), full: w.full }, true);
    w.full.set(s, text);
  }
  return text;
}

/**
 * The sub-schemas written more than once (`{t:"string"}`, `_meta`'s `{a:{},t:"object"}`, …)
 * that are shorter as a const of their own: by text, each the text of its const. A sub-schema
 * naming an object of `shared` stays inline (its const is declared last). Kept: a text written
 * `n` times in the file once the others are consts, where `n` copies are longer than the const
 * and `n` names (counted as minified, 2 characters each, 9 for `const x=;`).
 */
function repeatedSchemas(
  roots: readonly unknown[],
  shared: Map<unknown, string>,
  full: Map<object, string>,
): Set<string> {
  const sharedNames = [...shared.values()];
  const naive = new Map<string, number>();
  for (const r of roots) source(r, { shared, names: new Map(), seen: naive, full }, true);
  let kept = new Set(
    [...naive].filter(([t, n]) => worth(t, n) && !sharedNames.some((x) => t.includes(x))).map(([t]) => t),
  );
  // each round: how often each kept text is named once the kept ones are consts (in the roots
  // and in the bodies of the consts); the ones not worth a const are dropped, until none is
  for (;;) {
    const uses = new Map<string, number>();
    const w: Writer = { shared, names: new Map([...kept].map((t) => [t, t])), uses, full };
    for (const r of roots) source(r, w, true);
    for (const node of nodesOf(roots, w, kept).values()) source(node, w, true);
    const next = new Set([...kept].filter((t) => worth(t, uses.get(t) ?? 0)));
    if (next.size === kept.size) return kept;
    kept = next;
  }
}

const worth = (text: string, n: number) => n > 1 && n * text.length > text.length + 9 + 2 * n;

/** One sub-schema object per text of `kept` reachable from `roots`. */
function nodesOf(roots: readonly unknown[], w: Writer, kept: ReadonlySet<string>): Map<string, object> {
  const out = new Map<string, object>();
  const walk = (s: unknown, root = false): void => {
    if (typeof s !== 'object' || s === null || (!root && w.shared.has(s))) return;
    const text = fullText(s, w);
    if (kept.has(text)) {
      if (out.has(text)) return;
      out.set(text, s);
    }
    const o = s as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const v = o[k];
      if (k === 'properties' && v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
      else if (k === 'additionalProperties' || k === 'items') walk(v);
      else if ((k === 'anyOf' || k === 'allOf') && Array.isArray(v)) for (const x of v) walk(x);
    }
  };
  for (const r of roots) walk(r, true);
  return out;
}

/** One validator export: a named definition, a request's inline params, or a request's result union. */
export interface CompactExport {
  name: string;
  /** The schema (annotations stripped; `$ref`s as in the model). */
  schema: unknown;
  /** Plain-data const name for a schema that is also inline in a definition (inline params). */
  shared?: string;
}

/**
 * validators.gen.js in compact form: `defs` are the revision's definitions (annotations
 * stripped, covered by {@link compactUnsupported}); `extra` the params and result exports that
 * are not definitions; `ownProperties` as for ajv. Sub-schemas written more than once become
 * consts of their own ({@link repeatedSchemas}), equal inline params data one const. The
 * exports `hot` names get their boolean check written as code (./compact-fast.ts).
 */
export function emitCompactValidators(
  model: ProtocolModel,
  opts: EmitOptions,
  defs: Record<string, unknown>,
  extra: readonly CompactExport[],
  ownProperties: boolean,
  hot: HotNames = HOT,
): string {
  const shared = new Map<unknown, string>();
  for (const e of extra) if (e.shared) shared.set(e.schema, e.shared);
  const lines = [
    preamble(model),
    `// Validators of MCP ${model.revision} as schema data, compiled on first use by the runtime; each export validates one named type.`,
    '', // the import, once what the module uses is known
    `const v = /* @__PURE__ */ compactValidators({ ownProperties: ${ownProperties} });`,
  ];
  const all: CompactExport[] = [...Object.keys(defs).map((name) => ({ name, schema: defs[name] })), ...extra].sort(
    (a, b) => byCodeUnit(a.name, b.name),
  );
  const plain = [...extra].filter((x) => x.shared).sort((a, b) => byCodeUnit(a.shared!, b.shared!));
  const full = new Map<object, string>();
  const roots = [...all.filter((e) => !e.shared).map((e) => e.schema), ...plain.map((e) => e.schema)];
  // repeated sub-schemas as consts of their own, shortest first (a longer one may name a shorter
  // one, never the reverse), named `_0`, `_1`… (a prefix no export starts with)
  const repeated = [...repeatedSchemas(roots, shared, full)].sort((a, b) => a.length - b.length || byCodeUnit(a, b));
  let prefix = '_';
  while (all.some((e) => e.name.startsWith(prefix) || e.shared?.startsWith(prefix))) prefix += '_';
  const names = new Map(repeated.map((t, i) => [t, `${prefix}${i}`]));
  const w: Writer = { shared, names, full };
  // the hot validators' boolean checks as code (./compact-fast.ts), named by prefixes no export
  // or other const starts with
  const taken = (p: string) => all.some((e) => e.name.startsWith(p) || e.shared?.startsWith(p)) || prefix.startsWith(p);
  let codePrefix = '$c_';
  while (taken(codePrefix)) codePrefix = `$${codePrefix}`;
  let runtimePrefix = '$r_';
  while (taken(runtimePrefix)) runtimePrefix = `$${runtimePrefix}`;
  const withCode = codeExports(new Map(all.map((e) => [e.name, e.schema])), ownProperties, hot);
  const fastNames: FastNames = {
    code: new Map(withCode.map((n) => [n, `${codePrefix}${n}`])),
    runtime: new Map(),
    runtimePrefix,
    formats: 'formats',
    isObject: `${codePrefix}object`,
  };
  if (fastNames.code.has('object')) throw new Error(`${model.revision}: an export named object`);
  const functions = withCode.flatMap((n) => fastFunctions(n, all.find((e) => e.name === n)!.schema, fastNames));
  if (all.some((e) => e.name === 'formats' || e.shared === 'formats'))
    throw new Error(`${model.revision}: an export named formats`);
  for (const e of all) {
    const body = e.shared ?? source(e.schema, w, true);
    const code = fastNames.code.get(e.name);
    lines.push(
      `export const ${e.name} = /* @__PURE__ */ v(() => ${body.startsWith('{') ? `(${body})` : body}${code ? `, ${code}` : ''});`,
    );
  }
  // the repeated sub-schemas, then the plain data used inline by a definition and as an export
  // of its own: after every validator const (which they may name), read only by thunks
  const nodes = nodesOf(roots, w, new Set(repeated));
  for (const t of repeated) {
    const node = nodes.get(t);
    if (node === undefined) throw new Error(`${model.revision}: repeated sub-schema ${t} not found`);
    lines.push(`const ${names.get(t)} = ${source(node, w, true)};`);
  }
  // equal data is written once: a later const with the text of an earlier one names it
  const written = new Map<string, string>();
  for (const e of plain) {
    const body = source(e.schema, w, true);
    lines.push(`const ${e.shared} = ${written.get(body) ?? body};`);
    if (!written.has(body)) written.set(body, e.shared!);
  }
  // the runtime checks that written code calls, then the written code (functions, hoisted)
  for (const [target, name] of [...fastNames.runtime].sort((a, b) => byCodeUnit(a[0], b[0])))
    lines.push(`const ${name} = /* @__PURE__ */ compactFast(${target});`);
  if (functions.length) lines.push(objectTestSource(fastNames.isObject), ...functions);
  const used = ['compactValidators'];
  if (fastNames.runtime.size) used.unshift('compactFast');
  if (functions.some((f) => f.includes('formats['))) used.push('formats');
  lines[2] = `import { ${used.join(', ')} } from '${opts.runtimeImport}';`;
  return `${lines.join('\n')}\n`;
}
