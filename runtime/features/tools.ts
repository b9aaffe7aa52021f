/**
 * The tools side of {@link ServerFeatures} (./server-features.ts), 2025-11-25 `server/tools.mdx`:
 * tool definitions, their JSON Schemas compiled once per process, and the `tools/call` rules.
 *
 * Error channels (server/tools, Error Handling):
 * - `tools/call` of an unknown tool: -32602 `Unknown tool: <name>`.
 * - arguments failing the tool's `inputSchema`: a *result* with `isError: true` whose text names
 *   each failing path and constraint (tool execution error; the handler is not called). The
 *   schema's `default`s are filled in first (../protocol/json-defaults.ts, where ajv's
 *   `useDefaults` fills them), so the handler gets an absent defaulted argument with its default.
 * - a handler that throws anything but an `RpcError`: a result with `isError: true` and the
 *   error's message; an `RpcError` travels as that JSON-RPC error.
 * - `structuredContent` missing (undefined: `null`, `0`, `false`, `[]` are values), not what the
 *   negotiated revision allows there (`ctx.table`: a JSON object in 2025-11-25, any JSON value in
 *   the stateless revisions) or failing the tool's `outputSchema`: -32603 Internal error
 *   ("Servers MUST provide structured results that conform to this schema": a server bug, not
 *   something a model can correct, so it is not reported as a tool execution error).
 *
 * Tool schemas are checked against the JSON Schema 2020-12 meta-schema at registration
 * (../protocol/schema-check.ts, precompiled: ajv never compiles the meta-schema) and compiled by
 * ../protocol/json-schema.ts (ajv; JSON Schema 2020-12, once per distinct schema in the process,
 * own properties only) on the tool's first call. That module (and ajv under it) is imported by
 * the first call of any tool in the process (./schema-compiler.ts): a server starts without
 * it, and a bundler puts it in a chunk of its own. A call that waited for that import and was
 * cancelled meanwhile (`notifications/cancelled`, a closed connection) does not start its
 * handler; once the module is loaded, a first call compiles in the same turn it arrived in. A
 * schema that passes the meta-schema and still does not compile (a `$ref` that resolves nowhere,
 * a `pattern` that is no regular expression) fails its first call with -32603, naming the tool.
 */
export { describeValidation };
import { ErrorCode, RequestAbortedError, RpcError } from '../jsonrpc/errors.js';
import type { ValidateFunction } from '../protocol/json-schema.js';
import { jsonSchemaCompiler } from './schema-compiler.js';
import { checkSchema, describeValidation } from '../protocol/schema-check.js';
import { setOwn } from '../jsonrpc/own.js';
import { hasDefaults, withDefaults } from '../protocol/json-defaults.js';
import { structuredContentAllowed } from '../protocol/table.js';
import { NOT_DIRECT, type RequestContext } from '../engine/peer.js';
import { warnedOnly } from '../engine/cancellation.js';
import type { ProtocolMaps, ProtocolTable } from '../protocol/table.js';
import type { CreateTaskResult } from '../tasks/extension-wire.js';
import type { ResultElementOf, ResultOf, SchemaLike, SchemaType, WithStructured } from './typed.js';

/** A JSON object. */
export type Obj = Record<string, unknown>;
/** A JSON Schema, as an object (a tool's `inputSchema` / `outputSchema`). */
export type JsonSchema = Obj;

/**
 * One content block of a tool result (text, image, audio, resource…): the revision's
 * `ContentBlock` union when `P` is a generated `Protocol`, else any object with a `type`.
 */
export type Content<P extends ProtocolMaps = ProtocolMaps> = ResultElementOf<
  P,
  'tools/call',
  'content',
  Obj & { type: string }
>;
/** The loose form of a tool result (untyped `P`). */
export type LooseToolResult = Obj & {
  content?: Array<Obj & { type: string }>;
  structuredContent?: unknown;
  isError?: boolean;
};
/**
 * What a tool handler returns: the revision's `CallToolResult` (or its other results:
 * CreateTaskResult, InputRequiredResult) when `P` is a generated `Protocol`, else
 * {@link LooseToolResult}; the tasks extension's CreateTaskResult (what `TasksExtension.run`
 * answers, ../tasks/extension.ts); or a string (one text block).
 */
export type ToolResult<P extends ProtocolMaps = ProtocolMaps> =
  | ResultOf<P, 'tools/call', LooseToolResult>
  | CreateTaskResult
  | string;

/** What every listed item may carry besides its key; listed as given (functions left out). */
export interface Described {
  name: string;
  title?: string;
  description?: string;
  icons?: Obj[];
  _meta?: Obj;
}

/**
 * What a handler of a tool with output schema `O` returns: {@link ToolResult} when `O` is not
 * known (absent, or not a literal), else the revision's result whose `structuredContent` is of
 * `O`'s type (required unless `isError: true`; no string shorthand).
 */
export type ToolReturn<P extends ProtocolMaps, O> =
  SchemaType<O, unknown, 'input'> extends infer Out
    ? unknown extends Out
      ? ToolResult<P>
      : WithStructured<ResultOf<P, 'tools/call', LooseToolResult>, Out>
    : never;

/**
 * A tool. `A`: the type of its `arguments` (by default inferred from `inputSchema` by
 * `ServerFeatures.tool`); `P`: the revision's method maps its result is typed by; `I`, `O`: its
 * input and output schemas as written (a JSON Schema literal or a Standard Schema validator, see
 * {@link SchemaLike}), from which `A` and the type of `structuredContent` come.
 */
export interface ToolDefinition<
  A = Obj,
  P extends ProtocolMaps = ProtocolMaps,
  I extends SchemaLike | undefined = SchemaLike | undefined,
  O extends SchemaLike | undefined = SchemaLike | undefined,
> extends Described {
  /**
   * Schema of `arguments` (default `{ type: 'object' }`): a JSON Schema, or a Standard Schema
   * validator whose Standard JSON Schema is listed and which parses the arguments (the handler
   * gets its output) after they passed the listed JSON Schema.
   */
  inputSchema?: I;
  /** Schema `structuredContent` must satisfy (a validator: its Standard JSON Schema, listed and checked). */
  outputSchema?: O;
  annotations?: Obj;
  /**
   * `execution` as listed (2025-11-25 `Tool.execution`): `taskSupport` `required`, `optional`
   * or `forbidden` (absent: forbidden). Listing it does not run the tool as a task: a task
   * receiver does (runtime/tasks/receiver.ts).
   */
  execution?: { taskSupport?: 'required' | 'optional' | 'forbidden' };
  /**
   * Runs the tool; `ctx.session` is the session of the calling client (its `ServerSession`). A
   * handler that declares exactly one parameter (`(args) => …`) may be called with `args` alone:
   * the engine then makes no context for the request (../engine/peer-options.ts `DIRECT_CALL`).
   * One that declares none or a rest parameter (`(...a) => inner(...a)`) always gets `ctx`.
   */
  handler(args: A, ctx: RequestContext): ToolReturn<P, O> | Promise<ToolReturn<P, O>>;
}

/** A registered tool: its definition, its schemas (checked) and, once called, their validators. */
export interface CompiledTool {
  def: ToolDefinition<never, ProtocolMaps, JsonSchema | undefined, JsonSchema | undefined>;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema | undefined;
  /**
   * Whether `inputSchema` may hold a `default` (then the arguments get them before the check:
   * ../protocol/json-defaults.ts); absent: found out by the first call.
   */
  defaults?: boolean;
  /** Set by the first call ({@link validatorsOf}). */
  compiled?: { input: ValidateFunction; output: ValidateFunction | undefined };
  /**
   * The direct form of a call of this tool (params `{ name, arguments? }` naming it, served with
   * `table`), made once by {@link compileTool}: what {@link callToolDirect} answers for it
   * (absent in a tool made otherwise: callToolDirect then does the same itself).
   */
  readonly direct?: (p: Obj, table: ProtocolTable) => Obj | Promise<Obj> | typeof NOT_DIRECT;
}

/**
 * The compiled validators of `tool`, compiled now, synchronously, when they are not yet: the
 * schema compiler must be loaded (./schema-compiler.ts; {@link callTool} waits for it).
 * @throws RpcError -32603 naming the tool when a schema does not compile, or when the compiler
 *   is not loaded yet.
 */
export function validatorsOf(tool: CompiledTool): NonNullable<CompiledTool['compiled']> {
  if (tool.compiled) return tool.compiled;
  const jsonSchema = jsonSchemaCompiler.loaded();
  if (!jsonSchema)
    throw new RpcError(
      ErrorCode.InternalError,
      `the schemas of tool ${tool.def.name} cannot be compiled before the schema compiler is loaded`,
    );
  const { compileSchema } = jsonSchema;
  try {
    const input = compileSchema(tool.inputSchema, `inputSchema of tool ${tool.def.name}`);
    const output = tool.outputSchema
      ? compileSchema(tool.outputSchema, `outputSchema of tool ${tool.def.name}`)
      : undefined;
    return (tool.compiled = { input, output });
  } catch (e) {
    throw new RpcError(ErrorCode.InternalError, (e as Error).message);
  }
}

/** Whether `v` is a JSON object (not null, not an array). */
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** -32602 Invalid params with `message` and `data`. */
export const invalid = (message: string, data?: unknown) => new RpcError(ErrorCode.InvalidParams, message, data);

/**
 * What a handler returned, named for a message by its type alone (`undefined`, `null`, `an
 * array`, `a number`, …): never its contents, which may hold what the peer must not see.
 */
export function returnedShape(v: unknown): string {
  if (v === undefined || v === null) return String(v);
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  return t === 'object' ? 'an object' : `a ${t}`;
}

/**
 * A feature handler (a tool's `handler`, a prompt's `get`, a resource's or template's `read`, a
 * completer) returned a value of a shape its method cannot answer with: -32603 Internal error
 * naming the handler and the type of what it returned (`data: { returned }`, e.g.
 * `"undefined"`), never the value. `ServerFeatures` logs it with the subject.
 */
export class HandlerReturnError extends RpcError {
  readonly returned: string;
  constructor(
    readonly subject: string,
    value: unknown,
    expected: string,
  ) {
    const returned = returnedShape(value);
    super(ErrorCode.InternalError, `${subject} returned ${returned}; ${expected}`, { returned });
    this.name = 'HandlerReturnError';
    this.returned = returned;
  }
}

/**
 * Registers a tool's schemas: checked against the 2020-12 meta-schema now, compiled on the first
 * call. @throws TypeError naming the tool when a schema is not valid JSON Schema.
 */
export function compileTool(
  def: ToolDefinition<never, ProtocolMaps, JsonSchema | undefined, JsonSchema | undefined>,
): CompiledTool {
  const inputSchema = def.inputSchema ?? { type: 'object' };
  checkSchema(inputSchema, `inputSchema of tool ${def.name}`);
  if (def.outputSchema) checkSchema(def.outputSchema, `outputSchema of tool ${def.name}`);
  const name = def.name;
  // whether the handler declares exactly one parameter (read once: `length` is a getter call)
  const handler = def.handler;
  const oneParameter = handler.length === 1;
  const tool: CompiledTool = {
    def,
    inputSchema,
    outputSchema: def.outputSchema,
    defaults: hasDefaults(inputSchema),
    // one function per tool: its lookup done by the caller, the checks and the call here
    direct: (p, table) =>
      tool.compiled === undefined || !(tool.def.handler === handler ? oneParameter : tool.def.handler.length === 1)
        ? NOT_DIRECT
        : runTool(tool, name, p, undefined, table),
  };
  return tool;
}

/** The tool as `tools/list` shows it: `inputSchema` defaults to `{ type: 'object' }`. */
export function listedTool(tool: CompiledTool): Obj {
  return { inputSchema: { type: 'object' }, ...listed(tool.def) };
}

/**
 * Answers `tools/call` (params `{ name, arguments? }`) with `tool` (undefined: unknown) as the
 * module doc describes: the CallToolResult (or a handler's input_required result), returned
 * as it is when the handler returned a plain value and the tool's validators are compiled,
 * else a promise of it (no promise or microtask hop is made for a synchronous tool).
 * @throws RpcError -32602 for an unknown tool, -32603 for a result the tool cannot answer
 *   with (thrown, or the promise rejects, as the handler's own outcome came).
 */
export function callTool(tool: CompiledTool | undefined, p: Obj, ctx: RequestContext): Obj | Promise<Obj> {
  const name = String(p.name);
  if (!tool) throw invalid(`Unknown tool: ${name}`, { name });
  if (!tool.compiled && !jsonSchemaCompiler.loaded()) {
    return jsonSchemaCompiler.load().then(() => {
      // cancelled (or its connection closed) while the compiler loaded: the handler does not start, no answer goes out
      if (ctx.signal.aborted && !warnedOnly(ctx.signal)) throw new RequestAbortedError('tools/call', ctx.signal.reason);
      return runTool(tool, name, p, ctx, ctx.table);
    });
  }
  return runTool(tool, name, p, ctx, ctx.table);
}

/**
 * {@link callTool}'s direct form (../engine/peer-options.ts `DIRECT_CALL`) for a request served
 * with `table`: the same outcome for a known tool whose validators are compiled and whose handler
 * declares exactly one parameter (so it cannot read a context; it is called with the
 * arguments alone); `NOT_DIRECT`, having done nothing, for any other call.
 */
export function callToolDirect(
  tool: CompiledTool | undefined,
  p: Obj,
  table: ProtocolTable,
): Obj | Promise<Obj> | typeof NOT_DIRECT {
  if (tool === undefined) return NOT_DIRECT;
  return tool.direct !== undefined ? tool.direct(p, table) : directCall(tool, String(p.name), p, table);
}

/** {@link callToolDirect} for `tool`, known, named `name`. */
function directCall(
  tool: CompiledTool,
  name: string,
  p: Obj,
  table: ProtocolTable,
): Obj | Promise<Obj> | typeof NOT_DIRECT {
  return tool.compiled === undefined || tool.def.handler.length !== 1
    ? NOT_DIRECT
    : runTool(tool, name, p, undefined, table);
}

/**
 * {@link callTool} once the compiler is loaded: the handler gets `ctx` (none: the arguments
 * alone, {@link callToolDirect}); `table` is the served revision's (`ctx.table`).
 */
function runTool(
  tool: CompiledTool,
  name: string,
  p: Obj,
  ctx: RequestContext | undefined,
  table: ProtocolTable | undefined,
): Obj | Promise<Obj> {
  // the defaults of inputSchema first, as ajv's useDefaults fills them: the handler gets them (typed present)
  const given = p.arguments ?? {};
  tool.defaults ??= hasDefaults(tool.inputSchema);
  const args = tool.defaults ? withDefaults(tool.inputSchema, given) : given;
  const { input, output } = validatorsOf(tool);
  if (!check(input, args)) {
    const problems = describeValidation(input.errors);
    return {
      content: [{ type: 'text', text: `Invalid arguments for tool ${name}: ${problems.join('; ')}` }],
      isError: true,
    };
  }
  let r: unknown;
  try {
    r = ctx ? tool.def.handler(args as never, ctx) : (tool.def.handler as (args: unknown) => unknown)(args);
  } catch (e) {
    return thrownResult(e);
  }
  // a plain value skips the promise (and its microtask hops); any thenable is awaited
  if (typeof (r as PromiseLike<unknown> | null)?.then === 'function') {
    return Promise.resolve(r).then((v) => toolResult(v as LooseToolResult | string, name, output, table), thrownResult);
  }
  return toolResult(r as LooseToolResult | string, name, output, table);
}

/**
 * The top-level data context an ajv validator gets when called with the data alone, made once:
 * called so, an ajv 2020 validator makes it (and its `dynamicAnchors`) anew on every call. Its
 * `dynamicAnchors` is emptied again after a call of a schema with `$dynamicAnchor` filled it, so
 * that every call starts as a call without a context does (validation is synchronous: no two use it at once).
 */
const TOP: { instancePath: string; dynamicAnchors: Record<string, unknown> } = { instancePath: '', dynamicAnchors: {} };

/** `validate(data)`, without the context objects ajv would make for the call ({@link TOP}); sets `validate.errors`. */
function check(validate: ValidateFunction, data: unknown): boolean {
  const ok = (validate as unknown as (data: unknown, cxt: typeof TOP) => boolean)(data, TOP);
  for (const _ in TOP.dynamicAnchors) {
    TOP.dynamicAnchors = {};
    break;
  }
  return ok;
}

/** A tool handler threw (or its promise rejected): an RpcError goes out as it is, anything else is a result with `isError`. */
function thrownResult(e: unknown): Obj {
  if (e instanceof RpcError) throw e;
  return { content: [{ type: 'text', text: e instanceof Error ? e.message : String(e) }], isError: true };
}

/** What a tool handler returned, as its CallToolResult, checked against the tool's outputSchema. */
function toolResult(
  out: LooseToolResult | string,
  name: string,
  output: ValidateFunction | undefined,
  table: ProtocolTable | undefined,
): Obj {
  if (typeof out !== 'string' && !isObj(out))
    throw new HandlerReturnError(`Tool ${name}`, out, 'a tool handler returns a string or a CallToolResult object');
  // a multi round-trip answer (mrtr.ts inputRequired) or a CreateTaskResult (tasks-extension.ts) goes out as built
  if (isObj(out) && (out.resultType === 'input_required' || out.resultType === 'task')) return out;
  // a plain object with its content goes out as it is (a copy would serialise the same); any
  // other object is copied, with content [] when it has none
  const result: Obj =
    typeof out === 'string'
      ? { content: [{ type: 'text', text: out }] }
      : out.content != null && Object.getPrototypeOf(out) === Object.prototype
        ? out
        : { ...out, content: out.content ?? [] };
  if (output && result.isError !== true) {
    // absent is undefined (or not an own member); null, 0, false and [] are values
    const value = Object.hasOwn(result, 'structuredContent') ? result.structuredContent : undefined;
    if (value === undefined) {
      throw new RpcError(ErrorCode.InternalError, `Tool ${name} has an outputSchema but returned no structuredContent`);
    }
    if (!structuredContentAllowed(table, value)) {
      throw new RpcError(
        ErrorCode.InternalError,
        `Tool ${name} returned structuredContent that is not a JSON object, which protocol version ${table?.protocolVersion} requires`,
      );
    }
    if (!check(output, value)) {
      const problems = describeValidation(output.errors, '(structuredContent)');
      throw new RpcError(
        ErrorCode.InternalError,
        `Tool ${name} returned structuredContent that fails its outputSchema: ${problems.join('; ')}`,
        { errors: problems },
      );
    }
  }
  return result;
}

/** A definition as listed: without its functions, fixed contents and undefined members. */
export function listed(def: object): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(def)) {
    if (v !== undefined && typeof v !== 'function' && k !== 'complete' && k !== 'text' && k !== 'blob')
      setOwn(out, k, v);
  }
  return out;
}
