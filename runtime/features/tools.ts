/**
 * The tools side of {@link ServerFeatures} (./server-features.ts), 2025-11-25 `server/tools.mdx`:
 * tool definitions, their JSON Schemas compiled once per process, and the `tools/call` rules.
 *
 * Error channels (server/tools, Error Handling):
 * - `tools/call` of an unknown tool: -32602 `Unknown tool: <name>`.
 * - arguments failing the tool's `inputSchema`: a *result* with `isError: true` whose text names
 *   each failing path and constraint (tool execution error; the handler is not called).
 * - a handler that throws anything but an `RpcError`: a result with `isError: true` and the
 *   error's message; an `RpcError` travels as that JSON-RPC error.
 * - `structuredContent` missing or failing the tool's `outputSchema`: -32603 Internal error
 *   ("Servers MUST provide structured results that conform to this schema": a server bug, not
 *   something a model can correct, so it is not reported as a tool execution error).
 *
 * Tool schemas are JSON Schema 2020-12 (the default dialect when `$schema` is absent), compiled
 * with ajv and the formats of `../protocol/formats.ts` over ajv-formats' full set, once per distinct schema
 * in the process (the validators are shared by every ServerFeatures). They see own properties
 * only (ajv `ownProperties`): `required: ["constructor"]` is not met by the inherited one.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import type { ErrorObject as AjvError, ValidateFunction } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { formats } from '../protocol/formats.js';
import { setOwn } from '../jsonrpc/own.js';
import type { RequestContext } from '../engine/peer.js';
import type { ProtocolMaps } from '../protocol/table.js';
import type { ResultElementOf, ResultOf } from './typed.js';

export type Obj = Record<string, unknown>;
export type JsonSchema = Obj;

/**
 * One content block of a tool result (text, image, audio, resource…): the revision's
 * `ContentBlock` union when `P` is a generated `Protocol`, else any object with a `type`.
 */
export type Content<P extends ProtocolMaps = ProtocolMaps> = ResultElementOf<P, 'tools/call', 'content', Obj & { type: string }>;
/** The loose form of a tool result (untyped `P`). */
export type LooseToolResult = Obj & { content?: Array<Obj & { type: string }>; structuredContent?: Obj; isError?: boolean };
/**
 * What a tool handler returns: the revision's `CallToolResult` (or its other results:
 * CreateTaskResult, InputRequiredResult) when `P` is a generated `Protocol`, else
 * {@link LooseToolResult}; or a string (one text block).
 */
export type ToolResult<P extends ProtocolMaps = ProtocolMaps> = ResultOf<P, 'tools/call', LooseToolResult> | string;

/** What every listed item may carry besides its key; listed as given (functions left out). */
export interface Described {
  name: string;
  title?: string;
  description?: string;
  icons?: Obj[];
  _meta?: Obj;
}

/** A tool: `A` is the type of its `arguments`, `P` the revision's method maps its result is typed by. */
export interface ToolDefinition<A = Obj, P extends ProtocolMaps = ProtocolMaps> extends Described {
  /** JSON Schema of `arguments` (default `{ type: 'object' }`). */
  inputSchema?: JsonSchema;
  /** JSON Schema `structuredContent` must satisfy. */
  outputSchema?: JsonSchema;
  annotations?: Obj;
  /**
   * `execution` as listed (2025-11-25 `Tool.execution`): `taskSupport` `required`, `optional`
   * or `forbidden` (absent: forbidden). Listing it does not run the tool as a task: a task
   * receiver does (runtime/tasks/receiver.ts).
   */
  execution?: { taskSupport?: 'required' | 'optional' | 'forbidden' };
  /** Runs the tool; `ctx.session` is the session of the calling client (its `ServerSession`). */
  handler(args: A, ctx: RequestContext): ToolResult<P> | Promise<ToolResult<P>>;
}

/** A registered tool: its definition and compiled validators. */
export interface CompiledTool {
  def: ToolDefinition<never>;
  input: ValidateFunction;
  output: ValidateFunction | undefined;
}

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** -32602 Invalid params with `message` and `data`. */
export const invalid = (message: string, data?: unknown) => new RpcError(ErrorCode.InvalidParams, message, data);

/**
 * Validators by schema text, shared by every ServerFeatures: compiled once per process, not once
 * per registry. Past 1000 distinct schemas the cache and the ajv instance start afresh.
 */
const validators = new Map<string, ValidateFunction>();
const MAX_VALIDATORS = 1000;
let ajv: InstanceType<typeof Ajv2020Module.default> | undefined;

/** Human-readable ajv errors: `passengers: must be >= 1`, `departureDate: is required`. */
export function describeValidation(errors: readonly AjvError[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const base = e.instancePath.slice(1).replace(/\//g, '.');
    const p = e.params as { missingProperty?: string; additionalProperty?: string };
    const at = (field: string) => `${base ? `${base}.` : ''}${field}`;
    if (e.keyword === 'required') return `${at(p.missingProperty!)}: is required`;
    if (e.keyword === 'additionalProperties') return `${at(p.additionalProperty!)}: is not allowed (additional property)`;
    return `${base || '(arguments)'}: ${e.message ?? e.keyword}`;
  });
}

/** Compiles a tool's schemas. @throws TypeError naming the tool when a schema is not valid JSON Schema. */
export function compileTool<A, P extends ProtocolMaps>(def: ToolDefinition<A, P>): CompiledTool {
  const input = compileSchema(def.inputSchema ?? { type: 'object' }, `inputSchema of tool ${def.name}`);
  const output = def.outputSchema ? compileSchema(def.outputSchema, `outputSchema of tool ${def.name}`) : undefined;
  return { def: def as unknown as ToolDefinition<never>, input, output };
}

function compileSchema(schema: JsonSchema, what: string): ValidateFunction {
  // Only 2020-12 is compiled as such; another declared dialect is tried as 2020-12.
  const s = typeof schema.$schema === 'string' && !schema.$schema.includes('2020-12') ? { ...schema, $schema: undefined } : schema;
  try {
    const text = JSON.stringify(s);
    const hit = validators.get(text);
    if (hit) return hit;
    if (validators.size >= MAX_VALIDATORS) {
      // ajv keeps every compiled schema in its scope: start a fresh one (validators in use stay valid)
      validators.clear();
      ajv = undefined;
    }
    ajv ??= new (Ajv2020Module as unknown as typeof Ajv2020Module.default)({ strict: false, allErrors: true, ownProperties: true, formats: { ...fullFormats, ...formats } as never, validateFormats: true });
    if (typeof s.$id === 'string') ajv.removeSchema(s.$id); // a re-registered tool reuses its $id
    const compiled: unknown = JSON.parse(text);
    declareProtoKeys(compiled);
    const validate = ajv.compile(compiled as JsonSchema);
    validators.set(text, validate);
    return validate;
  } catch (e) {
    throw new TypeError(`${what} is not a valid JSON Schema: ${(e as Error).message}`);
  }
}

/** Keywords whose value is a subschema or an array of subschemas (2020-12, and the older `items` arrays and `additionalItems`). */
const SUBSCHEMAS = new Set(['additionalProperties', 'propertyNames', 'unevaluatedProperties', 'items', 'prefixItems', 'additionalItems', 'contains', 'unevaluatedItems', 'not', 'if', 'then', 'else', 'allOf', 'anyOf', 'oneOf', 'contentSchema']);
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
  if (!isObj(schema)) return;
  for (const [k, v] of Object.entries(schema)) {
    if (SUBSCHEMA_MAPS.has(k) && isObj(v)) for (const sub of Object.values(v)) declareProtoKeys(sub);
    else if (SUBSCHEMAS.has(k)) declareProtoKeys(v);
  }
  const props = schema.properties;
  if (!isObj(props) || !Object.hasOwn(props, '__proto__')) return;
  const sub = props['__proto__'];
  delete props['__proto__'];
  const patterns = isObj(schema.patternProperties) ? schema.patternProperties : (schema.patternProperties = {}) as Obj;
  patterns[PROTO_PATTERN] = Object.hasOwn(patterns, PROTO_PATTERN) ? { allOf: [patterns[PROTO_PATTERN], sub] } : sub;
}

/** The tool as `tools/list` shows it: `inputSchema` defaults to `{ type: 'object' }`. */
export function listedTool(tool: CompiledTool): Obj {
  return { inputSchema: { type: 'object' }, ...listed(tool.def) };
}

/**
 * Answers `tools/call` (params `{ name, arguments? }`) with `tool` (undefined: unknown) as the
 * module doc describes; resolves with the CallToolResult (or a handler's input_required result).
 */
export async function callTool(tool: CompiledTool | undefined, p: Obj, ctx: RequestContext): Promise<Obj> {
  const name = String(p.name);
  if (!tool) throw invalid(`Unknown tool: ${name}`, { name });
  const args = p.arguments ?? {};
  if (!tool.input(args)) {
    const problems = describeValidation(tool.input.errors);
    return { content: [{ type: 'text', text: `Invalid arguments for tool ${name}: ${problems.join('; ')}` }], isError: true };
  }
  let out: LooseToolResult | string;
  try {
    const r: unknown = tool.def.handler(args as never, ctx);
    // a plain value skips the await (its promise and microtask hops); any thenable is awaited
    out = (typeof (r as PromiseLike<unknown> | null)?.then === 'function' ? await r : r) as LooseToolResult | string;
  } catch (e) {
    if (e instanceof RpcError) throw e;
    return { content: [{ type: 'text', text: e instanceof Error ? e.message : String(e) }], isError: true };
  }
  // a multi round-trip answer (mrtr.ts inputRequired) or a CreateTaskResult (tasks-extension.ts) goes out as built
  if (isObj(out) && (out.resultType === 'input_required' || out.resultType === 'task')) return out;
  const result: Obj = typeof out === 'string' ? { content: [{ type: 'text', text: out }] } : { ...out, content: out.content ?? [] };
  if (tool.output && result.isError !== true) {
    if (!isObj(result.structuredContent)) {
      throw new RpcError(ErrorCode.InternalError, `Tool ${name} has an outputSchema but returned no structuredContent`);
    }
    if (!tool.output(result.structuredContent)) {
      const problems = describeValidation(tool.output.errors);
      throw new RpcError(ErrorCode.InternalError, `Tool ${name} returned structuredContent that fails its outputSchema: ${problems.join('; ')}`, { errors: problems });
    }
  }
  return result;
}

/** A definition as listed: without its functions, fixed contents and undefined members. */
export function listed(def: object): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(def)) {
    if (v !== undefined && typeof v !== 'function' && k !== 'complete' && k !== 'text' && k !== 'blob') setOwn(out, k, v);
  }
  return out;
}
