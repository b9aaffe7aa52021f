/**
 * `ServerFeatures`: registries of tools, resources (static and templated), prompts and
 * completions that produce the request handlers and capabilities of a `ServerSession`.
 *
 * ```ts
 * const features = new ServerFeatures({ pageSize: 50 });
 * features.tool({ name: 'echo', inputSchema: {...}, handler: (args) => ({ content: [...] }) });
 * const server = new Server({ serverInfo, capabilities: features.capabilities(), handlers: features.handlers() });
 * features.attach(server); // list_changed and resources/updated notifications
 * ```
 *
 * Error channels (2025-11-25 `server/tools.mdx`, Error Handling; `server/resources.mdx` and
 * `server/prompts.mdx`, Error Handling):
 * - `tools/call` of an unknown tool: -32602 `Unknown tool: <name>`.
 * - arguments failing the tool's `inputSchema`: a *result* with `isError: true` whose text names
 *   each failing path and constraint (tool execution error; the handler is not called).
 * - a handler that throws anything but an `RpcError`: a result with `isError: true` and the
 *   error's message; an `RpcError` travels as that JSON-RPC error.
 * - `structuredContent` missing or failing the tool's `outputSchema`: -32603 Internal error
 *   ("Servers MUST provide structured results that conform to this schema": a server bug, not
 *   something a model can correct, so it is not reported as a tool execution error).
 * - `resources/read` (and subscribe) of an unknown URI: -32002 `Resource not found` with
 *   `data.uri`, the code the 2025-11-25 resources page gives; stateless revisions: -32602 with
 *   `data.uri` (draft server/resources "Error Handling", SEP-2164).
 * - `prompts/get` of an unknown prompt or without a required argument: -32602.
 * - a list request with a cursor this server did not issue: -32602.
 *
 * Stateless revisions (2026-07-28, draft): `handlers({ table })` with such a table adds
 * `resultType: "complete"` to every result and the caching fields (`ttlMs`, `cacheScope`, from
 * the `cache` option: default 0 ms, `private`) to list results and `resources/read`.
 *
 * Subscriptions are kept per `ServerFeatures` (one set of URIs for every attached server): give
 * each connection its own instance when clients must not see each other's subscriptions.
 *
 * Tool schemas are JSON Schema 2020-12 (the default dialect when `$schema` is absent), compiled
 * with ajv and the formats of `./formats.ts` over ajv-formats' full set, once per distinct schema
 * in the process (the validators are shared by every instance).
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import type { ErrorObject as AjvError, ValidateFunction } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { ErrorCode, RpcError } from './errors.js';
import { formats } from './formats.js';
import type { RequestContext, RequestHandler } from './peer.js';

type Obj = Record<string, unknown>;
export type JsonSchema = Obj;

/** One content block of a tool result or prompt message (text, image, audio, resource…). */
export type Content = Obj & { type: string };
/** What a tool handler returns: a CallToolResult, or a string (one text block). */
export type ToolResult = (Obj & { content?: Content[]; structuredContent?: Obj; isError?: boolean }) | string;

/** What every listed item may carry besides its key; listed as given (functions left out). */
interface Described {
  name: string;
  title?: string;
  description?: string;
  icons?: Obj[];
  _meta?: Obj;
}

export interface ToolDefinition<A = Obj> extends Described {
  /** JSON Schema of `arguments` (default `{ type: 'object' }`). */
  inputSchema?: JsonSchema;
  /** JSON Schema `structuredContent` must satisfy. */
  outputSchema?: JsonSchema;
  annotations?: Obj;
  handler(args: A, ctx: RequestContext): ToolResult | Promise<ToolResult>;
}

/** `{ uri, mimeType?, text }` or `{ uri, mimeType?, blob }` (base64). */
export type ResourceContents = Obj & { uri: string; mimeType?: string };

interface ResourceCommon extends Described {
  mimeType?: string;
  annotations?: Obj;
}

export interface ResourceDefinition extends ResourceCommon {
  uri: string;
  size?: number;
  /** Fixed text content (mimeType from the definition). */
  text?: string;
  /** Fixed binary content, base64 or bytes. */
  blob?: string | Uint8Array;
  read?(uri: string, ctx: RequestContext): ResourceContents[] | Promise<ResourceContents[]>;
}

export type Completer = (value: string, context: Record<string, string>) => CompletionValues | Promise<CompletionValues>;
export type CompletionValues = string[] | { values: string[]; total?: number; hasMore?: boolean };

export interface ResourceTemplateDefinition extends ResourceCommon {
  /** RFC 6570 level 1–2: `{var}` matches one path segment, `{+var}` any text. */
  uriTemplate: string;
  read(uri: string, vars: Record<string, string>, ctx: RequestContext): ResourceContents[] | Promise<ResourceContents[]>;
  /** Completion of template variables, by variable name. */
  complete?: Record<string, Completer>;
}

export interface PromptArgument extends Omit<Described, 'icons' | '_meta'> {
  required?: boolean;
  complete?: Completer;
}

export type PromptMessage = Obj & { role: 'user' | 'assistant'; content: Content };

type PromptResult = PromptMessage[] | { description?: string; messages: PromptMessage[] };
export interface PromptDefinition extends Described {
  arguments?: PromptArgument[];
  get(args: Record<string, string>, ctx: RequestContext): PromptResult | Promise<PromptResult>;
}

export interface ServerFeaturesOptions {
  /** Items per page of every list (default 100). */
  pageSize?: number;
  /** Declare these capabilities even while nothing of the kind is registered. */
  declare?: { tools?: boolean; resources?: boolean; prompts?: boolean; completions?: boolean };
  /**
   * Caching fields of list and read results in stateless revisions. Unset: the session's cache
   * policy fills them (ServerSession option `cache`).
   */
  cache?: { ttlMs: number; cacheScope: 'public' | 'private' };
}

/** The part of a ProtocolTable `handlers()` looks at. */
export interface FeaturesTableInfo {
  lifecycle: string;
}

const CACHED = new Set(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'resources/read']);

/** The server side `attach` talks to (a generated `Server` or any `ServerSession`). */
export interface NotifyTarget {
  notify(method: string, params?: Obj): Promise<void>;
  /** A session's negotiated table: stateless sessions filter updates per listen stream. */
  readonly table?: { readonly lifecycle: string };
}

type Kind = 'tools' | 'resources' | 'prompts';
const MAX_COMPLETIONS = 100;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const invalid = (message: string, data?: unknown) => new RpcError(ErrorCode.InvalidParams, message, data);
/** Resource not found up to 2025-11-25 (server/resources "Error Handling"); stateless revisions use -32602. */
const RESOURCE_NOT_FOUND = -32002;
const notFound = (uri: string) => new RpcError(RESOURCE_NOT_FOUND, 'Resource not found', { uri });

type Tool = { def: ToolDefinition<never>; input: ValidateFunction; output: ValidateFunction | undefined };

/**
 * Validators by schema text, shared by every ServerFeatures: a server per session (HTTP)
 * compiles each tool schema once per process, not once per session. Past 1000 distinct schemas
 * the cache and the ajv instance start afresh.
 */
const validators = new Map<string, ValidateFunction>();
const MAX_VALIDATORS = 1000;
let ajv: InstanceType<typeof Ajv2020Module.default> | undefined;
type Template = { def: ResourceTemplateDefinition; match: (uri: string) => Record<string, string> | undefined };

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

/** Compiles a `{var}` / `{+var}` template into a matcher returning the decoded variables. */
export function compileUriTemplate(template: string): (uri: string) => Record<string, string> | undefined {
  const names: string[] = [];
  let source = '^';
  let last = 0;
  for (const m of template.matchAll(/\{(\+?)([A-Za-z0-9_.]+)\}/g)) {
    source += template.slice(last, m.index).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    source += m[1] ? '(.+?)' : '([^/?#]+)';
    names.push(m[2]);
    last = m.index! + m[0].length;
  }
  source += template.slice(last).replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$';
  const re = new RegExp(source);
  return (uri) => {
    const m = re.exec(uri);
    if (!m) return undefined;
    const vars: Record<string, string> = {};
    try {
      names.forEach((n, i) => (vars[n] = decodeURIComponent(m[i + 1])));
    } catch {
      return undefined;
    }
    return vars;
  };
}

export class ServerFeatures {
  readonly pageSize: number;
  readonly #tools = new Map<string, Tool>();
  readonly #resources = new Map<string, ResourceDefinition>();
  readonly #templates = new Map<string, Template>();
  readonly #prompts = new Map<string, PromptDefinition>();
  readonly #subscriptions = new Set<string>();
  readonly #targets = new Set<NotifyTarget>();
  readonly #dirty = new Set<Kind>();
  readonly #declare: NonNullable<ServerFeaturesOptions['declare']>;
  readonly #cache: ServerFeaturesOptions['cache'];

  constructor(options: ServerFeaturesOptions = {}) {
    this.pageSize = Math.max(1, Math.floor(options.pageSize ?? 100));
    this.#declare = options.declare ?? {};
    this.#cache = options.cache;
  }

  // ---- registration -------------------------------------------------------------------------

  /** Registers (or replaces) a tool; compiles its schemas now, so a bad schema throws here. */
  tool<A = Obj>(def: ToolDefinition<A>): this {
    const input = this.#compile(def.inputSchema ?? { type: 'object' }, `inputSchema of tool ${def.name}`);
    const output = def.outputSchema ? this.#compile(def.outputSchema, `outputSchema of tool ${def.name}`) : undefined;
    this.#tools.set(def.name, { def: def as unknown as ToolDefinition<never>, input, output });
    return this.#changed('tools');
  }

  /** Registers (or replaces) a static resource, by `uri`. */
  resource(def: ResourceDefinition): this {
    return this.#resources.set(def.uri, def) && this.#changed('resources');
  }
  /** Registers (or replaces) a resource template, by `uriTemplate`; reads try static URIs first. */
  resourceTemplate(def: ResourceTemplateDefinition): this {
    return this.#templates.set(def.uriTemplate, { def, match: compileUriTemplate(def.uriTemplate) }) && this.#changed('resources');
  }
  prompt(def: PromptDefinition): this {
    return this.#prompts.set(def.name, def) && this.#changed('prompts');
  }

  /** Removals: true when something was removed (then list_changed follows). */
  /** The registered `inputSchema` of a tool (undefined: no such tool); for `Mcp-Param-*` checks over HTTP. */
  inputSchema(name: string): Record<string, unknown> | undefined {
    const t = this.#tools.get(name);
    return t ? ((t.def.inputSchema ?? { type: 'object' }) as Record<string, unknown>) : undefined;
  }
  removeTool(name: string): boolean { return this.#tools.delete(name) && !!this.#changed('tools'); }
  removeResource(uri: string): boolean { return this.#resources.delete(uri) && !!this.#changed('resources'); }
  removeResourceTemplate(uriTemplate: string): boolean { return this.#templates.delete(uriTemplate) && !!this.#changed('resources'); }
  removePrompt(name: string): boolean { return this.#prompts.delete(name) && !!this.#changed('prompts'); }

  /** URIs a client subscribed to (resources/subscribe) and did not unsubscribe from. */
  get subscriptions(): ReadonlySet<string> {
    return this.#subscriptions;
  }

  /**
   * Sends notifications/resources/updated for `uri` through every attached server whose client
   * subscribed to it (resources/subscribe), and through every stateless one (its listen streams
   * filter by URI). Resolves with whether it was sent through any.
   */
  async notifyResourceUpdated(uri: string): Promise<boolean> {
    const subscribed = this.#subscriptions.has(uri);
    const targets = [...this.#targets].filter((t) => subscribed || t.table?.lifecycle === 'stateless');
    await Promise.all(targets.map((t) => send(t, 'notifications/resources/updated', { uri })));
    return targets.length > 0;
  }

  /**
   * From now on, additions and removals send `notifications/<kind>/list_changed` through
   * `server` (coalesced: one per kind per tick). Returns a function that detaches it.
   */
  attach(server: NotifyTarget): () => void {
    this.#targets.add(server);
    return () => this.#targets.delete(server);
  }

  // ---- session wiring -----------------------------------------------------------------------

  /** Capabilities to declare: every kind that has registrations (or is forced by `declare`). */
  capabilities(): Obj {
    const caps: Obj = {};
    const d = this.#declare;
    if (d.tools || this.#tools.size) caps.tools = { listChanged: true };
    if (d.resources || this.#resources.size || this.#templates.size) caps.resources = { subscribe: true, listChanged: true };
    if (d.prompts || this.#prompts.size) caps.prompts = { listChanged: true };
    const completers = [...this.#prompts.values()].some((p) => p.arguments?.some((a) => a.complete))
      || [...this.#templates.values()].some((t) => t.def.complete && Object.keys(t.def.complete).length);
    if (d.completions || completers) caps.completions = {};
    return caps;
  }

  /**
   * The request handlers for a ServerSession's `handlers` option. Pass the revision's `table`
   * when it may be a stateless one (see the module doc).
   */
  handlers(options: { table?: FeaturesTableInfo } = {}): Record<string, RequestHandler> {
    const handlers = this.#handlers();
    if (options.table?.lifecycle !== 'stateless') return handlers;
    const cache = this.#cache;
    return Object.fromEntries(Object.entries(handlers).map(([method, h]) => [method, async (p: Obj, ctx: RequestContext) => {
      let r: Obj;
      try {
        r = (await h(p, ctx)) as Obj;
      } catch (e) {
        // draft server/resources "Error Handling" (SEP-2164): an unknown resource is -32602
        if (e instanceof RpcError && e.code === RESOURCE_NOT_FOUND) throw new RpcError(ErrorCode.InvalidParams, e.message, e.data);
        throw e;
      }
      const out: Obj = { resultType: 'complete', ...r };
      if (cache && CACHED.has(method)) {
        out.ttlMs ??= cache.ttlMs;
        out.cacheScope ??= cache.cacheScope;
      }
      return out;
    }]));
  }

  #handlers(): Record<string, RequestHandler> {
    return {
      'tools/list': (p?: Obj) => this.#page('tools', [...this.#tools.values()].map((t) => ({ inputSchema: { type: 'object' }, ...listed(t.def) })), p),
      'tools/call': (p: Obj, ctx) => this.#callTool(p, ctx),
      'resources/list': (p?: Obj) => this.#page('resources', [...this.#resources.values()].map(listed), p),
      'resources/templates/list': (p?: Obj) => this.#page('resourceTemplates', [...this.#templates.values()].map((t) => listed(t.def)), p),
      'resources/read': (p: Obj, ctx) => this.#read(String(p.uri), ctx),
      'resources/subscribe': (p: Obj) => {
        const uri = String(p.uri);
        if (!this.#resources.has(uri) && !this.#matchTemplate(uri)) throw notFound(uri);
        this.#subscriptions.add(uri);
        return {};
      },
      'resources/unsubscribe': (p: Obj) => void this.#subscriptions.delete(String(p.uri)),
      'prompts/list': (p?: Obj) => this.#page('prompts', [...this.#prompts.values()].map((d) => listed({ ...d, arguments: d.arguments?.map(listed) })), p),
      'prompts/get': (p: Obj, ctx) => this.#getPrompt(p, ctx),
      'completion/complete': (p: Obj) => this.#complete(p),
    };
  }

  // ---- internals ----------------------------------------------------------------------------

  #compile(schema: JsonSchema, what: string): ValidateFunction {
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
      ajv ??= new (Ajv2020Module as unknown as typeof Ajv2020Module.default)({ strict: false, allErrors: true, formats: { ...fullFormats, ...formats } as never, validateFormats: true });
      if (typeof s.$id === 'string') ajv.removeSchema(s.$id); // a re-registered tool reuses its $id
      const validate = ajv.compile(JSON.parse(text));
      validators.set(text, validate);
      return validate;
    } catch (e) {
      throw new TypeError(`${what} is not a valid JSON Schema: ${(e as Error).message}`);
    }
  }

  #changed(kind: Kind): this {
    if (this.#targets.size === 0 || this.#dirty.has(kind)) return this;
    this.#dirty.add(kind);
    queueMicrotask(() => {
      this.#dirty.delete(kind);
      for (const t of this.#targets) void send(t, `notifications/${kind}/list_changed`);
    });
    return this;
  }

  #page<K extends string>(key: K, items: Obj[], params: Obj | undefined): Obj {
    const cursor = params?.cursor;
    let offset = 0;
    if (cursor !== undefined) {
      offset = decodeCursor(cursor, key) ?? -1;
      if (offset < 0 || offset > items.length) throw invalid(`Invalid cursor: ${JSON.stringify(cursor)}`, { cursor });
    }
    const end = offset + this.pageSize;
    const result: Obj = { [key]: items.slice(offset, end) };
    if (end < items.length) result.nextCursor = encodeCursor(key, end);
    return result;
  }

  async #callTool(p: Obj, ctx: RequestContext): Promise<Obj> {
    const name = String(p.name);
    const tool = this.#tools.get(name);
    if (!tool) throw invalid(`Unknown tool: ${name}`, { name });
    const args = p.arguments ?? {};
    if (!tool.input(args)) {
      const problems = describeValidation(tool.input.errors);
      return { content: [{ type: 'text', text: `Invalid arguments for tool ${name}: ${problems.join('; ')}` }], isError: true };
    }
    let out: ToolResult;
    try {
      const r: unknown = tool.def.handler(args as never, ctx);
      // a plain value skips the await (its promise and microtask hops); any thenable is awaited
      out = (typeof (r as PromiseLike<unknown> | null)?.then === 'function' ? await r : r) as ToolResult;
    } catch (e) {
      if (e instanceof RpcError) throw e;
      return { content: [{ type: 'text', text: e instanceof Error ? e.message : String(e) }], isError: true };
    }
    // a multi round-trip answer (mrtr.ts inputRequired) goes out as the handler built it
    if (isObj(out) && out.resultType === 'input_required') return out;
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

  #matchTemplate(uri: string): { t: Template; vars: Record<string, string> } | undefined {
    for (const t of this.#templates.values()) {
      const vars = t.match(uri);
      if (vars) return { t, vars };
    }
    return undefined;
  }

  async #read(uri: string, ctx: RequestContext): Promise<Obj> {
    const r = this.#resources.get(uri);
    if (r) {
      if (r.read) return { contents: await r.read(uri, ctx) };
      const base: ResourceContents = r.mimeType ? { uri, mimeType: r.mimeType } : { uri };
      if (r.blob !== undefined) return { contents: [{ ...base, blob: typeof r.blob === 'string' ? r.blob : Buffer.from(r.blob).toString('base64') }] };
      return { contents: [{ ...base, text: r.text ?? '' }] };
    }
    const m = this.#matchTemplate(uri);
    if (!m) throw notFound(uri);
    return { contents: await m.t.def.read(uri, m.vars, ctx) };
  }

  async #getPrompt(p: Obj, ctx: RequestContext): Promise<Obj> {
    const name = String(p.name);
    const prompt = this.#prompts.get(name);
    if (!prompt) throw invalid(`Unknown prompt: ${name}`, { name });
    const args = (isObj(p.arguments) ? p.arguments : {}) as Record<string, string>;
    const missing = (prompt.arguments ?? []).filter((a) => a.required && (args[a.name] === undefined || args[a.name] === null)).map((a) => a.name);
    if (missing.length) throw invalid(`Missing required argument${missing.length > 1 ? 's' : ''} of prompt ${name}: ${missing.join(', ')}`, { missing });
    const out = await prompt.get(args, ctx);
    if (isObj(out) && (out as Obj).resultType === 'input_required') return out;
    const result: Obj = Array.isArray(out) ? { messages: out } : { ...out };
    if (result.description === undefined && prompt.description !== undefined) result.description = prompt.description;
    return result;
  }

  async #complete(p: Obj): Promise<Obj> {
    const ref = isObj(p.ref) ? p.ref : {};
    const arg = isObj(p.argument) ? p.argument : {};
    const argName = String(arg.name);
    const context = (isObj(p.context) && isObj(p.context.arguments) ? p.context.arguments : {}) as Record<string, string>;
    let completer: Completer | undefined;
    if (ref.type === 'ref/prompt') {
      const prompt = this.#prompts.get(String(ref.name));
      if (!prompt) throw invalid(`Unknown prompt: ${String(ref.name)}`);
      completer = prompt.arguments?.find((a) => a.name === argName)?.complete;
    } else if (ref.type === 'ref/resource') {
      const uri = String(ref.uri);
      const t = this.#templates.get(uri);
      if (!t && !this.#resources.has(uri)) throw notFound(uri);
      completer = t?.def.complete?.[argName];
    } else throw invalid(`Unknown reference type: ${String(ref.type)}`);
    if (!completer) return { completion: { values: [] } };
    const got = await completer(String(arg.value ?? ''), context);
    const all = Array.isArray(got) ? { values: got } : got;
    const values = all.values.slice(0, MAX_COMPLETIONS);
    const completion: Obj = { values };
    const total = all.total ?? (Array.isArray(got) ? all.values.length : undefined);
    if (total !== undefined) completion.total = total;
    const hasMore = all.hasMore ?? all.values.length > values.length;
    if (hasMore || all.hasMore !== undefined) completion.hasMore = hasMore;
    return { completion };
  }
}

/** Sends through a target that may not be connected yet (its `notify` may throw synchronously). */
async function send(t: NotifyTarget, method: string, params?: Obj): Promise<void> {
  try {
    await t.notify(method, params);
  } catch {
    // not connected or closed: nothing to tell
  }
}

/** A definition as listed: without its functions, fixed contents and undefined members. */
function listed(def: object): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(def)) {
    if (v !== undefined && typeof v !== 'function' && k !== 'complete' && k !== 'text' && k !== 'blob') out[k] = v;
  }
  return out;
}

/** Opaque cursor: base64url of `{"k": list, "o": offset}`. */
function encodeCursor(key: string, offset: number): string {
  return Buffer.from(JSON.stringify({ k: key, o: offset })).toString('base64url');
}

function decodeCursor(cursor: unknown, key: string): number | undefined {
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!isObj(v) || v.k !== key || !Number.isSafeInteger(v.o) || (v.o as number) < 0) return undefined;
    return v.o as number;
  } catch {
    return undefined;
  }
}
