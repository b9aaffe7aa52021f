/**
 * JSON Schemas that come from peers or users (a tool's `inputSchema` and `outputSchema`), not from
 * the revision: compiled as JSON Schema 2020-12 (the default dialect when `$schema` is absent;
 * another declared dialect is tried as 2020-12) with ajv and the formats of ./formats.ts over
 * ajv-formats' full set, once per distinct schema in the process. They see own properties only
 * (ajv `ownProperties`): `required: ["constructor"]` is not met by the inherited one, and a
 * declared `__proto__` property is checked like any other. The meta-schema check is
 * ./schema-check.ts's (precompiled): ajv compiles only the schemas themselves. This module loads
 * ajv: the client imports it on its first output check.
 *
 * Where code generation is refused (Cloudflare Workers, pages with a CSP without
 * `unsafe-eval`), ajv cannot compile: the schemas are then interpreted by @cfworker/json-schema
 * (2020-12, `shortCircuit: false`, format checks on), whose errors are given the shape of ajv's.
 * Chosen once per process by trying `new Function` ({@link schemaEngine}); {@link useSchemaEngine}
 * selects one explicitly.
 */
import { Validator as InterpretedValidator, type OutputUnit } from '@cfworker/json-schema';
import Ajv2020Module from 'ajv/dist/2020.js';
import type { ErrorObject as AjvError, ValidateFunction } from 'ajv/dist/2020.js';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { formats } from './formats.js';
import { as2020, describeValidation, metaSchemaProblem } from './schema-check.js';
import { isObject } from '../jsonrpc/message.js';
import { schemaWarnings } from './schema-warnings.js';

/** A compiled validator (Ajv's): called with a value, returns whether it matches; `errors` holds the issues of the last call. */
export type { ValidateFunction };
export { describeValidation };
type JsonSchema = Record<string, unknown>;
/**
 * Validators by schema text, shared by every ServerFeatures and client: compiled once per process,
 * not once per registry or client. Past 1000 distinct schemas the cache and the ajv instance start afresh.
 */
const validators = new Map<string, ValidateFunction>();
const MAX_VALIDATORS = 1000;
let ajv: InstanceType<typeof Ajv2020Module.default> | undefined;
let compilations = 0;
/** The unknown formats warned of (./schema-warnings.ts: once each, until the cache starts afresh). */
const warnedFormats = new Set<string>();

/** How many schemas ajv has compiled in this process (a cached one is not compiled again). */
export const compiledSchemas = (): number => compilations;

/** How runtime-supplied schemas are validated: compiled to code by ajv, or interpreted. */
export type SchemaEngine = 'compiled' | 'interpreted';
let engine: SchemaEngine | undefined;

/** Whether this platform runs code made at run time (`new Function`); false where eval is refused. */
export function codeGenerationAllowed(): boolean {
  try {
    return new Function('return 1')() === 1;
  } catch {
    return false;
  }
}

/** The engine in use: the one selected, else `'compiled'` where code generation works, else `'interpreted'` (decided once). */
export function schemaEngine(): SchemaEngine {
  return (engine ??= codeGenerationAllowed() ? 'compiled' : 'interpreted');
}

/** Selects the engine for schemas compiled from now on (`undefined`: automatic again). Cached validators are dropped. */
export function useSchemaEngine(choice: SchemaEngine | undefined): void {
  if (choice !== undefined && choice !== 'compiled' && choice !== 'interpreted')
    throw new TypeError(`schema engine must be 'compiled' or 'interpreted', not ${String(choice)}`);
  engine = choice;
  validators.clear();
}

/** Keywords whose failure only says that a subschema failed (its own errors say where). */
const WRAPPERS = new Set([
  'properties',
  'items',
  'prefixItems',
  'allOf',
  '$ref',
  'patternProperties',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  '$dynamicRef',
]);

/** An ajv-shaped validator over @cfworker/json-schema. */
function interpreted(schema: JsonSchema): ValidateFunction {
  const validator = new InterpretedValidator(schema as never, '2020-12', false);
  const validate = ((data: unknown) => {
    const result = validator.validate(data);
    if (result.valid) {
      validate.errors = null;
      return true;
    }
    validate.errors = ajvShaped(result.errors);
    return false;
  }) as ValidateFunction;
  validate.errors = null;
  validate.schema = schema as never;
  return validate;
}

/** @cfworker/json-schema output units as ajv errors (leaf failures; `instancePath` a JSON Pointer). */
function ajvShaped(units: readonly OutputUnit[]): AjvError[] {
  const leaves = units.filter(
    (u) =>
      !WRAPPERS.has(u.keyword) &&
      u.keyword !== 'false' &&
      !(u.keyword === 'additionalProperties' && !/^Property "/.test(u.error)),
  );
  return (leaves.length ? leaves : units).map((u) => {
    const instancePath = u.instanceLocation.replace(/^#/, '');
    const params: Record<string, unknown> = {};
    const named = /"((?:[^"\\]|\\.)*)"/.exec(u.error)?.[1];
    if (u.keyword === 'required' && named !== undefined) params.missingProperty = named;
    if (u.keyword === 'additionalProperties' && named !== undefined) params.additionalProperty = named;
    return { instancePath, schemaPath: u.keywordLocation, keyword: u.keyword, params, message: u.error } as AjvError;
  });
}

/**
 * The validator of `schema` (cached by its JSON text), compiled by ajv or interpreted
 * ({@link schemaEngine}).
 * @throws TypeError `<what> is not a valid JSON Schema: …` when it cannot be compiled.
 */
export function compileSchema(schema: JsonSchema, what: string): ValidateFunction {
  const s = as2020(schema);
  try {
    const text = JSON.stringify(s);
    const hit = validators.get(text);
    if (hit) return hit;
    const problem = metaSchemaProblem(s);
    if (problem !== undefined) throw new Error(problem);
    if (schemaEngine() === 'interpreted') {
      if (validators.size >= MAX_VALIDATORS) validators.clear();
      const compiled = JSON.parse(text) as JsonSchema;
      delete compiled.$schema;
      const validate = interpreted(compiled);
      validators.set(text, validate);
      return validate;
    }
    if (validators.size >= MAX_VALIDATORS) {
      // ajv keeps every compiled schema in its scope: start a fresh one (validators in use stay valid)
      validators.clear();
      warnedFormats.clear();
      ajv = undefined;
    }
    // validateSchema off: checked above against the precompiled meta-schema, which ajv then never compiles
    ajv ??= new (Ajv2020Module as unknown as typeof Ajv2020Module.default)({
      strict: false,
      allErrors: true,
      ownProperties: true,
      formats: { ...fullFormats, ...formats } as never,
      validateFormats: true,
      validateSchema: false,
      logger: {
        log() {},
        warn(message: string) {
          const format = message.split('"')[1] ?? message;
          if (schemaWarnings.logger?.warn && !warnedFormats.has(format)) {
            warnedFormats.add(format);
            schemaWarnings.logger.warn(message);
          }
        },
        error: console.error,
      },
    });
    if (typeof s.$id === 'string') ajv.removeSchema(s.$id); // a re-registered tool reuses its $id
    const compiled: unknown = JSON.parse(text);
    declareProtoKeys(compiled);
    const validate = ajv.compile(compiled as JsonSchema);
    compilations++;
    validators.set(text, validate);
    return validate;
  } catch (e) {
    throw new TypeError(`${what} is not a valid JSON Schema: ${(e as Error).message}`);
  }
}

/** Keywords whose value is a subschema or an array of subschemas (2020-12, and the older `items` arrays and `additionalItems`). */
const SUBSCHEMAS = new Set([
  'additionalProperties',
  'propertyNames',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'unevaluatedItems',
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
  'contentSchema',
]);
/** Keywords whose value maps names to subschemas. */
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const PROTO_PATTERN = '^__proto__$';

/**
 * Moves every `properties["__proto__"]` of `schema` and its subschemas (a fresh copy: changed
 * in place) to `patternProperties["^__proto__$"]`. ajv skips a property of that name (its
 * guard against prototype pollution), so a declared `__proto__` argument would go unchecked
 * and count as an additional property; as a pattern it is checked like any other own key.
 * Values of other keywords (`const`, `enum`, `default`, …) are data and stay as they are.
 */
function declareProtoKeys(schema: unknown): void {
  if (Array.isArray(schema)) {
    for (const sub of schema) declareProtoKeys(sub);
    return;
  }
  if (!isObject(schema)) return;
  for (const [k, v] of Object.entries(schema)) {
    if (SUBSCHEMA_MAPS.has(k) && isObject(v)) for (const sub of Object.values(v)) declareProtoKeys(sub);
    else if (SUBSCHEMAS.has(k)) declareProtoKeys(v);
  }
  const props = schema.properties;
  if (!isObject(props) || !Object.hasOwn(props, '__proto__')) return;
  // biome-ignore lint/suspicious/noProto: an own property named __proto__ (JSON.parse makes one), not the prototype
  const sub = props.__proto__;
  // biome-ignore lint/suspicious/noProto: the same own property
  delete props.__proto__;
  const patterns = isObject(schema.patternProperties)
    ? schema.patternProperties
    : ((schema.patternProperties = {}) as JsonSchema);
  patterns[PROTO_PATTERN] = Object.hasOwn(patterns, PROTO_PATTERN) ? { allOf: [patterns[PROTO_PATTERN], sub] } : sub;
}
