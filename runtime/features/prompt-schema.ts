/**
 * Prompts defined by an `argsSchema` (a JSON Schema of an object or a Standard Schema
 * validator), as `ServerFeatures` (./server-features.ts) keeps them: listed arguments, the
 * completers, and a `get` that checks the arguments first.
 *
 * @module
 */
import type { RequestContext } from '../engine/peer.js';
import { warnedOnly } from '../engine/cancellation.js';
import { ErrorCode, RequestAbortedError, RpcError } from '../jsonrpc/errors.js';
import { ownValue } from '../jsonrpc/own.js';
import { hasDefaults, withDefaults } from '../protocol/json-defaults.js';
import type { ValidateFunction } from '../protocol/json-schema.js';
import { checkSchema, describeValidation } from '../protocol/schema-check.js';
import type { ProtocolMaps } from '../protocol/table.js';
import type { PromptArgument, PromptDefinition } from './resources.js';
import { jsonSchemaCompiler } from './schema-compiler.js';
import { isStandardSchema, jsonSchemaOf, validateStandard } from './standard.js';
import { invalid, isObj } from './tools.js';
import type { SchemaLike } from './typed.js';

/**
 * A prompt with `argsSchema` as the catalog keeps it: `arguments` listed from the schema's
 * properties (own, in order; `required` from its `required`; each one's `description`), the
 * completers of `complete`, and a `get` that checks the arguments first (-32602 naming each
 * failing path) and passes a validator's output on. A JSON Schema is checked against the
 * 2020-12 meta-schema here and compiled by the first `get` (-32603 naming the prompt when it
 * still does not compile); a `get` cancelled while the compiler loaded does not run.
 */
export function schemaPrompt(
  def: PromptDefinition<ProtocolMaps, never, SchemaLike, readonly PromptArgument[] | undefined>,
): PromptDefinition {
  const what = `argsSchema of prompt ${def.name}`;
  const schema = def.argsSchema!;
  const json = jsonSchemaOf(schema, what);
  const props = json.properties;
  if (json.type !== 'object' || !isObj(props))
    throw new TypeError(`${what} must be a JSON Schema of an object (type "object" with properties)`);
  const required = new Set(Array.isArray(json.required) ? json.required : []);
  const arguments_: PromptArgument[] = Object.keys(props).map((name) => {
    const prop = props[name];
    const description = isObj(prop) && typeof prop.description === 'string' ? prop.description : undefined;
    const complete = ownValue(def.complete as Record<string, PromptArgument['complete']> | undefined, name);
    return {
      name,
      ...(description !== undefined && { description }),
      ...(required.has(name) && { required: true }),
      ...(complete && { complete }),
    };
  });
  // a JSON Schema is checked now and compiled by the first get (ajv is imported then: ./schema-compiler.ts)
  const standard = isStandardSchema(schema);
  if (!standard) checkSchema(json, what);
  let check: ValidateFunction | undefined;
  // the schema's defaults are filled in before the check, as for a tool's arguments (../protocol/json-defaults.ts)
  const defaults = hasDefaults(json);
  const get = def.get as (args: unknown, ctx: RequestContext) => ReturnType<PromptDefinition['get']>;
  return {
    ...def,
    argsSchema: undefined,
    complete: undefined,
    arguments: arguments_,
    get: async (given, ctx) => {
      const args = defaults ? withDefaults(json, given) : given;
      let value: unknown = args;
      let problems: string[] | undefined;
      if (!standard) {
        if (!check) {
          const { compileSchema } = await jsonSchemaCompiler.load();
          if (ctx.signal.aborted && !warnedOnly(ctx.signal))
            throw new RequestAbortedError('prompts/get', ctx.signal.reason);
          try {
            check ??= compileSchema(json, what);
          } catch (e) {
            throw new RpcError(ErrorCode.InternalError, (e as Error).message);
          }
        }
        if (!check(args)) problems = describeValidation(check.errors);
      } else {
        const parsed = await validateStandard(schema as Parameters<typeof validateStandard>[0], args, '(arguments)');
        if (parsed.ok) value = parsed.value;
        else problems = parsed.problems;
      }
      if (problems)
        throw invalid(`Invalid arguments for prompt ${def.name}: ${problems.join('; ')}`, { errors: problems });
      return get(value, ctx);
    },
  } as PromptDefinition;
}
