/**
 * Form-mode elicitation helpers (2025-11-25 client/elicitation; draft client/elicitation): the
 * defaults a requested schema gives (SEP-1034), and the check of an answer's content against the
 * requested schema ("Clients SHOULD validate all responses against the provided schema";
 * "Servers SHOULD validate received data matches the requested schema"), as JSON Schema 2020-12
 * by the runtime's schema compiler (ajv, or @cfworker/json-schema where code generation is refused).
 */
import { jsonSchemaCompiler } from './schema-compiler.js';

/** A form's requested schema: a flat object of primitive properties (string, number, integer, boolean, enum arrays). */
export interface RequestedSchema {
  type?: 'object' | string;
  properties?: Record<string, { default?: unknown; [keyword: string]: unknown }>;
  required?: string[];
  [keyword: string]: unknown;
}

/**
 * The default of each property of `schema` that has one (SEP-1034: string, number, integer,
 * boolean and enum defaults), by property name: what a client pre-fills in the form it shows.
 * Properties without a default are absent. `{}` for a schema with none (or no schema).
 */
export function elicitationDefaults(schema: RequestedSchema | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema?.properties ?? {}))
    if (Object.hasOwn(property, 'default') && property.default !== undefined) out[name] = property.default;
  return out;
}

/**
 * The issues of an accepted answer's `content` against the requested schema, one per failing
 * path (`guests: must be <= 12`, `name: is required`); [] when it matches. The schema is compiled
 * once per distinct schema and process.
 * @throws TypeError when `schema` is not a valid JSON Schema (`requestedSchema is not a valid JSON Schema: …`).
 */
export async function checkElicitationContent(
  schema: RequestedSchema,
  content: Record<string, unknown> | undefined,
): Promise<string[]> {
  const { compileSchema, describeValidation } = await jsonSchemaCompiler.load();
  const validate = compileSchema(schema as Record<string, unknown>, 'requestedSchema');
  if (validate(content ?? {})) return [];
  return describeValidation(validate.errors, '(content)');
}
