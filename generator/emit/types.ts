/**
 * types emitter: every named schema type as a TypeScript type alias (json-schema-to-typescript),
 * spec descriptions kept as JSDoc with a back-reference `@see <rev> #/$defs/<Name>`. The output is
 * mutually assignable with upstream schema.ts, type by type (checked by generated parity.gen.ts).
 */
import { compile } from 'json-schema-to-typescript';
import ts from 'typescript';
import type { JsonSchema, ProtocolModel } from '../model.js';
import { type Files, preamble } from './common.js';

const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
const ANNOTATIONS = new Set(['description', 'title', '$comment', 'examples', 'deprecated', 'default']);

/**
 * Prepares one schema for json-schema-to-typescript:
 * - keywords beside `$ref` (descriptions of uses) are dropped, so each definition yields one type;
 * - a schema that constrains nothing (`{}`, annotations only) is `unknown` (schema.ts `unknown`),
 *   not an object;
 * - `{ type: 'object', properties: {}, additionalProperties: true }` and nothing else is how
 *   schema.json spells the TypeScript `object` keyword; it stays `object` (while
 *   `additionalProperties: {}` is a `{ [key: string]: unknown }` map).
 */
function prepare(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(prepare);
  if (!v || typeof v !== 'object') return v;
  const o = v as JsonSchema;
  if (typeof o.$ref === 'string') return { $ref: o.$ref };
  const keys = Object.keys(o).filter((k) => !ANNOTATIONS.has(k));
  if (keys.length === 0) return { ...o, tsType: 'unknown' };
  const props = o.properties as JsonSchema | undefined;
  if (
    keys.length === 3 &&
    o.type === 'object' &&
    o.additionalProperties === true &&
    props &&
    typeof props === 'object' &&
    Object.keys(props).length === 0
  ) {
    return { ...pick(o, ANNOTATIONS), tsType: 'object' };
  }
  const out: JsonSchema = {};
  for (const [k, x] of Object.entries(o)) out[k] = NAME_MAPS.has(k) ? mapValues(x as JsonSchema) : prepare(x);
  return out;
}
const mapValues = (o: JsonSchema): JsonSchema => Object.fromEntries(Object.entries(o).map(([k, x]) => [k, prepare(x)]));
const pick = (o: JsonSchema, keys: Set<string>): JsonSchema =>
  Object.fromEntries(Object.entries(o).filter(([k]) => keys.has(k)));

/**
 * Rewrites every `export interface X { … }` as `export type X = { … }`: an object type alias is
 * assignable to an index signature (`Result`'s `[key: string]: unknown` in schema.ts) when its
 * members are, an interface never is. Doc comments and member text are kept as they are.
 */
function interfacesToTypeAliases(text: string): string {
  const sf = ts.createSourceFile('types.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edits: Array<{ start: number; end: number; text: string }> = [];
  for (const st of sf.statements) {
    if (!ts.isInterfaceDeclaration(st)) continue;
    const open = text.indexOf('{', st.name.end);
    const bases = (st.heritageClauses ?? []).flatMap((h) => h.types.map((t) => t.getText(sf)));
    edits.push({
      start: st.getStart(sf),
      end: open,
      text: `export type ${st.name.text} = ${bases.map((b) => `${b} & `).join('')}`,
    });
  }
  let out = text;
  for (const e of edits.reverse()) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

const ROOT = 'McpgenRoot';

export async function emitTypes(model: ProtocolModel): Promise<Files> {
  const defs: Record<string, JsonSchema> = {};
  for (const t of Object.values(model.types)) {
    const doc = [t.description ?? '', '', `@see ${model.revision} #/$defs/${t.name}`];
    if (t.deprecated !== undefined) doc.push(`@deprecated${t.deprecated ? ` ${t.deprecated}` : ''}`);
    const schema = prepare(t.schema) as JsonSchema;
    delete schema.title;
    defs[t.name] = { ...schema, title: t.name, description: doc.join('\n').trim() };
  }
  const root = {
    title: ROOT,
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(Object.keys(defs).map((k) => [k, { $ref: `#/$defs/${k}` }])),
    $defs: defs,
  };
  let text = await compile(root as never, ROOT, {
    bannerComment: '',
    format: false,
    // an object schema that does not say `additionalProperties` is open, as a TypeScript object
    // type without an index signature already is (schema.ts writes it that way)
    additionalProperties: false,
    unreachableDefinitions: false,
    strictIndexSignatures: false,
    declareExternallyReferenced: true,
    enableConstEnums: false,
    inferStringEnumKeysFromValues: false,
  });
  // the root object only served to reach every definition
  text = text.replace(
    new RegExp(`/\\*\\*(?:(?!\\*/)[\\s\\S])*?\\*/\\s*export interface ${ROOT} \\{[\\s\\S]*?\\n\\}\\n?`),
    '',
  );
  text = text.replace(new RegExp(`export interface ${ROOT} \\{[\\s\\S]*?\\n\\}\\n?`), '');
  text = text.replace(
    /\n \* \n \* This interface was referenced by `\w+`'s JSON-Schema\n \* via the `definition` "\w+"\./g,
    '',
  );
  text = text.replace(
    /\n \* This interface was referenced by `\w+`'s JSON-Schema\n \* via the `definition` "\w+"\./g,
    '',
  );
  text = interfacesToTypeAliases(text);
  text = text.replace(/[ \t]+$/gm, '');
  const head = [
    preamble(model),
    `/** Message and data types of MCP ${model.revision} (protocol version ${model.protocolVersion}). */`,
    '',
  ];
  return new Map([['types.gen.ts', `${head.join('\n')}\n${text.trim()}\n`]]);
}
