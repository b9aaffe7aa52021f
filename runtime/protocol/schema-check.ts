/**
 * What the runtime does with a peer's or a user's JSON Schema before compiling it, without ajv:
 * the dialect it is read in and its check against the JSON Schema 2020-12 meta-schema
 * (./meta-schema.gen.js, compiled by scripts/meta-schema.ts), and the wording of validation
 * errors. Compiling is ./json-schema.ts's, which loads ajv; a tool's schemas are checked here at
 * registration and compiled there on the tool's first call.
 */
import validateMeta from './meta-schema.gen.js';
import type { ValidationError } from './table.js';

type JsonSchema = Record<string, unknown>;

/**
 * `schema` as it is read: JSON Schema 2020-12, the default dialect when `$schema` is absent; a
 * schema that declares another dialect is read as 2020-12 (its `$schema` dropped, in a copy).
 */
export function as2020(schema: JsonSchema): JsonSchema {
  if (typeof schema.$schema !== 'string' || schema.$schema.includes('2020-12')) return schema;
  const { $schema: _, ...rest } = schema;
  return rest;
}

/**
 * Checks `schema` (read by {@link as2020}) against the 2020-12 meta-schema.
 * @throws TypeError `<what> is not a valid JSON Schema: schema is invalid: data/type must be …`
 *   (ajv's wording) when it is not a JSON Schema.
 */
export function checkSchema(schema: JsonSchema, what: string): void {
  const problem = metaSchemaProblem(schema);
  if (problem !== undefined) throw new TypeError(`${what} is not a valid JSON Schema: ${problem}`);
}

/** Why `schema` (read by {@link as2020}) fails the 2020-12 meta-schema (`schema is invalid: …`), or undefined when it passes. */
export function metaSchemaProblem(schema: JsonSchema): string | undefined {
  if (validateMeta(as2020(schema))) return undefined;
  return `schema is invalid: ${(validateMeta.errors ?? []).map((e) => `data${e.instancePath} ${e.message ?? e.keyword}`).join(', ')}`;
}

/** Human-readable validation errors: `passengers: must be >= 1`, `departureDate: is required`. */
export function describeValidation(
  errors: readonly ValidationError[] | null | undefined,
  root = '(arguments)',
): string[] {
  return (errors ?? []).map((e) => {
    const base = e.instancePath.slice(1).replace(/\//g, '.');
    const p = e.params as { missingProperty?: string; additionalProperty?: string } | undefined;
    const at = (field: string) => `${base ? `${base}.` : ''}${field}`;
    if (e.keyword === 'required') return `${at(p!.missingProperty!)}: is required`;
    if (e.keyword === 'additionalProperties')
      return `${at(p!.additionalProperty!)}: is not allowed (additional property)`;
    return `${base || root}: ${e.message ?? e.keyword}`;
  });
}
