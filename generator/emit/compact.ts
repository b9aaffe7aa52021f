/**
 * Compact validators emitter (`validators: 'compact'`, the default): the revision's schemas as
 * data, annotations stripped, one `const` per named definition whose references are JS
 * references to the other consts; runtime/protocol/compact.ts (`compactValidators` of
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
import { FORMAT_NAMES } from './formats.js';

/**
 * The keywords the runtime's compact validators implement (runtime/protocol/compact.ts
 * `COMPACT_KEYWORDS`; test/runtime/protocol/compact.test.ts checks both lists agree).
 */
export const COMPACT_KEYWORDS: readonly string[] = [
  '$ref', 'additionalProperties', 'allOf', 'anyOf', 'const', 'enum', 'format', 'items', 'maxItems', 'maximum', 'minimum', 'properties', 'required', 'type',
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
    if (!s || typeof s !== 'object' || Array.isArray(s)) return { keyword: '(schema)', pointer: at, why: 'a schema must be an object or a boolean' };
    const o = s as Record<string, unknown>;
    for (const k of Object.keys(o).sort(byCodeUnit)) {
      const v = o[k];
      const here = `${at}/${esc(k)}`;
      const bad = (why: string): Unsupported => ({ keyword: k, pointer: here, why });
      switch (k) {
        case '$ref':
          if (typeof v !== 'string' || !REF.test(v) || !names.has(REF.exec(v)![1]!)) return bad(`only references to a definition (#/$defs/<Name>) are compact; found ${JSON.stringify(v)}`);
          break;
        case 'type':
          for (const t of Array.isArray(v) ? v : [v]) if (typeof t !== 'string' || !TYPES.has(t)) return bad(`unknown type ${JSON.stringify(t)}`);
          break;
        case 'format':
          if (typeof v !== 'string' || !FORMAT_NAMES.includes(v)) return bad(`format ${JSON.stringify(v)} has no runtime check`);
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
  type: 't', properties: 'p', required: 'r', const: 'c', additionalProperties: 'a', items: 'i', anyOf: 'o', enum: 'e',
};
const alias = (k: string) => (Object.hasOwn(KEYWORD_ALIASES, k) ? KEYWORD_ALIASES[k]! : key(k));
const key = (k: string) => (IDENT.test(k) ? k : JSON.stringify(k));

/**
 * JS source of schema `s`: references become the referenced definition's const name, objects in
 * `shared` the name of their own const; `const` and `enum` values stay JSON data.
 */
function source(s: unknown, shared: Map<unknown, string>, root = false): string {
  if (!root && shared.has(s)) return shared.get(s)!;
  if (typeof s !== 'object' || s === null) return JSON.stringify(s);
  const o = s as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1 && typeof o.$ref === 'string') return REF.exec(o.$ref)![1]!;
  const parts = keys.map((k) => {
    const v = o[k];
    switch (k) {
      case '$ref':
        return `$ref:${REF.exec(v as string)![1]}`;
      case 'properties':
        return `${alias(k)}:{${Object.entries(v as object).map(([n, x]) => `${key(n)}:${source(x, shared)}`).join(',')}}`;
      case 'additionalProperties':
      case 'items':
        return `${alias(k)}:${source(v, shared)}`;
      case 'anyOf':
      case 'allOf':
        return `${alias(k)}:[${(v as unknown[]).map((x) => source(x, shared)).join(',')}]`;
      default:
        return `${alias(k)}:${JSON.stringify(v)}`;
    }
  });
  return `{${parts.join(',')}}`;
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
 * are not definitions; `ownProperties` as for ajv.
 */
export function emitCompactValidators(model: ProtocolModel, opts: EmitOptions, defs: Record<string, unknown>, extra: readonly CompactExport[], ownProperties: boolean): string {
  const shared = new Map<unknown, string>();
  for (const e of extra) if (e.shared) shared.set(e.schema, e.shared);
  const lines = [
    preamble(model),
    `// Validators of MCP ${model.revision} as schema data, compiled on first use by the runtime; each export validates one named type.`,
    `import { compactValidators } from '${opts.runtimeImport}';`,
    `const v = /* @__PURE__ */ compactValidators({ ownProperties: ${ownProperties} });`,
  ];
  const all: CompactExport[] = [...Object.keys(defs).map((name) => ({ name, schema: defs[name] })), ...extra].sort((a, b) => byCodeUnit(a.name, b.name));
  for (const e of all) {
    const body = e.shared ?? source(e.schema, shared, true);
    lines.push(`export const ${e.name} = /* @__PURE__ */ v(() => ${body.startsWith('{') ? `(${body})` : body});`);
  }
  // plain data used inline by a definition and as an export of its own: after every validator
  // const (which they may name), read only by thunks
  for (const e of [...extra].filter((x) => x.shared).sort((a, b) => byCodeUnit(a.shared!, b.shared!))) {
    lines.push(`const ${e.shared} = ${source(e.schema, shared, true)};`);
  }
  return `${lines.join('\n')}\n`;
}
