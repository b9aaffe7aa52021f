/**
 * types emitter: every named schema type as a TypeScript declaration (json-schema-to-typescript),
 * spec descriptions kept as JSDoc with a back-reference `@see <rev> #/$defs/<Name>`.
 */
import { compile } from 'json-schema-to-typescript';
import type { JsonSchema, ProtocolModel } from '../model.js';
import { type Files, preamble } from './common.js';

/** Drops keywords beside `$ref` (descriptions of uses), so each definition yields one type. */
function bareRefs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(bareRefs);
  if (v && typeof v === 'object') {
    const o = v as JsonSchema;
    if (typeof o.$ref === 'string') return { $ref: o.$ref };
    const out: JsonSchema = {};
    for (const [k, x] of Object.entries(o)) out[k] = k === 'properties' || k === '$defs' ? mapValues(x as JsonSchema) : bareRefs(x);
    return out;
  }
  return v;
}
const mapValues = (o: JsonSchema): JsonSchema => Object.fromEntries(Object.entries(o).map(([k, x]) => [k, bareRefs(x)]));

const ROOT = 'McpgenRoot';

export async function emitTypes(model: ProtocolModel): Promise<Files> {
  const defs: Record<string, JsonSchema> = {};
  for (const t of Object.values(model.types)) {
    const doc = [t.description ?? '', '', `@see ${model.revision} #/$defs/${t.name}`];
    if (t.deprecated !== undefined) doc.push(`@deprecated${t.deprecated ? ` ${t.deprecated}` : ''}`);
    const schema = bareRefs(t.schema) as JsonSchema;
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
    additionalProperties: true,
    unreachableDefinitions: false,
    strictIndexSignatures: false,
    declareExternallyReferenced: true,
    enableConstEnums: false,
    inferStringEnumKeysFromValues: false,
  });
  // the root object only served to reach every definition
  text = text.replace(new RegExp(`/\\*\\*(?:(?!\\*/)[\\s\\S])*?\\*/\\s*export interface ${ROOT} \\{[\\s\\S]*?\\n\\}\\n?`), '');
  text = text.replace(new RegExp(`export interface ${ROOT} \\{[\\s\\S]*?\\n\\}\\n?`), '');
  text = text.replace(/\n \* \n \* This interface was referenced by `\w+`'s JSON-Schema\n \* via the `definition` "\w+"\./g, '');
  text = text.replace(/\n \* This interface was referenced by `\w+`'s JSON-Schema\n \* via the `definition` "\w+"\./g, '');
  text = text.replace(/[ \t]+$/gm, '');
  const head = [preamble(model), `/** Message and data types of MCP ${model.revision} (protocol version ${model.protocolVersion}). */`, ''];
  return new Map([['types.gen.ts', `${head.join('\n')}\n${text.trim()}\n`]]);
}
