/**
 * `ServerFeatures`: registries of tools, resources (static and templated), prompts and
 * completions that produce the request handlers and capabilities of `ServerSession`s. One
 * instance is a server *definition*: any number of sessions share it (its handler table, its
 * compiled validators), and it keeps per session only what the spec makes per session — the
 * resource subscriptions of that client — found through `ctx.session`.
 *
 * ```ts
 * const features = new ServerFeatures({ pageSize: 50 });
 * features.tool({ name: 'echo', inputSchema: {...}, handler: (args) => ({ content: [...] }) });
 * const options = { serverInfo, capabilities: features.capabilities(), handlers: features.handlers() };
 * // per connection:
 * const server = new Server(options);
 * features.attach(server); // list_changed and resources/updated notifications, until it closes
 * ```
 *
 * Tools (definitions, schema validation, `tools/call` error channels): ./tools.ts. Resources,
 * prompts, completion: ./resources.ts; prompts with an `argsSchema`: ./prompt-schema.ts. List
 * pages and cursors: ./list-pages.ts (a cursor this server did not issue: -32602). The result
 * checks of the handler tables: ./result-checks.ts; their stateless form: ./stateless-handlers.ts.
 *
 * Stateless revisions (2026-07-28, draft): `handlers({ table })` with such a table adds
 * `resultType: "complete"` to every result and the caching fields (`ttlMs`, `cacheScope`, from
 * the `cache` option: default 0 ms, `private`) to list results and `resources/read`; an unknown
 * resource is -32602 with `data.uri` (draft server/resources "Error Handling", SEP-2164).
 *
 * Subscriptions (`resources/subscribe`, 2025-11-25 server/resources "Subscriptions") belong to
 * the session that made them (`ctx.session`; requests served without a session share one set).
 */
import { type Logger, STDERR_LOGGER } from '../engine/context.js';
import type { ProtocolMaps, ProtocolTable } from '../protocol/table.js';
import { DIRECT_CALL, type RequestContext, type RequestHandler } from '../engine/peer.js';
import { checkedHandlers } from './result-checks.js';
import { listPage } from './list-pages.js';
import { schemaPrompt } from './prompt-schema.js';
import { rememberStatelessTwins, statelessForm } from './stateless-handlers.js';
import {
  type CompiledTool,
  type JsonSchema,
  type Obj,
  type ToolDefinition,
  callTool,
  callToolDirect,
  compileTool,
  listed,
  listedTool,
} from './tools.js';
import {
  type Catalog,
  type PromptArgs,
  type PromptArgument,
  type PromptDefinition,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type Template,
  complete,
  compileUriTemplate,
  getPrompt,
  uriTemplateVariables,
  knownResource,
  notFound,
  readResource,
} from './resources.js';
import { isStandardSchema, jsonSchemaOf, validateStandard } from './standard.js';
import { type AppResourceDefinition, type AppToolUi, appResourceDefinition, appToolMeta } from './app-ui.js';
import type { SchemaLike, SchemaType } from './typed.js';

export type { Content, JsonSchema, LooseToolResult, ToolDefinition, ToolResult, ToolReturn } from './tools.js';
export type {
  HandlerReturn,
  ResultElementOf,
  ResultOf,
  SchemaLike,
  SchemaType,
  StandardValidator,
  TemplateVariables,
  TemplateVars,
  WithStructured,
} from './typed.js';
export type {
  Completer,
  CompletionValues,
  PromptArgs,
  PromptArgument,
  PromptDefinition,
  PromptMessage,
  PromptResult,
  ResourceContents,
  ResourceDefinition,
  ResourceTemplateDefinition,
} from './resources.js';
export { statelessHandlers } from './stateless-handlers.js';

/** Options of {@link ServerFeatures}: page size of the lists, capabilities declared up front, the cache hints of stateless results (`ttlMs` in ms, `cacheScope`), the logger. */
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
  /**
   * Where a handler result that fails the negotiated revision's result schema is reported
   * (`error('tool result fails the protocol schema', { tool | prompt | resource, errors })`,
   * errors as `{ path, keyword, message }`). Default: one line on stderr.
   */
  logger?: Logger;
}

/** The part of a ProtocolTable `handlers()` looks at. */
export interface FeaturesTableInfo {
  lifecycle: string;
}

/** The server side `attach` talks to (a generated `Server` or any `ServerSession`). */
export interface NotifyTarget {
  notify(method: string, params?: Obj): Promise<void>;
  /** A session's negotiated table: stateless sessions filter updates per listen stream. */
  readonly table?: { readonly lifecycle: string };
  /** When present (a `ServerSession`), `attach` detaches the target once its connection closes. */
  onClose?(listener: () => void): unknown;
}

type Kind = 'tools' | 'resources' | 'prompts';

/**
 * `P`: the method maps of the revision the definitions are typed by (a generated `Protocol`,
 * e.g. `new ServerFeatures<Protocol>()` with 2025-11-25's): tool, prompt and resource handlers
 * then return that revision's result shapes. Default: untyped (loose shapes). Run-time
 * behaviour does not depend on `P`.
 */
export class ServerFeatures<P extends ProtocolMaps = ProtocolMaps> {
  readonly pageSize: number;
  readonly #tools = new Map<string, CompiledTool>();
  readonly #catalog = {
    resources: new Map<string, ResourceDefinition>(),
    templates: new Map<string, Template>(),
    prompts: new Map<string, PromptDefinition>(),
  } satisfies Catalog;
  /** Subscribed URIs by session (`ctx.session`), allocated on a session's first subscribe. */
  readonly #subscribers = new WeakMap<object, Set<string>>();
  /** Subscribed URIs of requests served without a session. */
  #sessionless: Set<string> | undefined;
  readonly #targets = new Set<NotifyTarget>();
  readonly #dirty = new Set<Kind>();
  readonly #declare: NonNullable<ServerFeaturesOptions['declare']>;
  readonly #cache: ServerFeaturesOptions['cache'];
  readonly #logger: Logger;
  #handshakeTable: Record<string, RequestHandler> | undefined;
  #statelessTable: Record<string, RequestHandler> | undefined;

  constructor(options: ServerFeaturesOptions = {}) {
    this.pageSize = Math.max(1, Math.floor(options.pageSize ?? 100));
    this.#declare = options.declare ?? {};
    this.#cache = options.cache;
    this.#logger = options.logger ?? STDERR_LOGGER;
  }

  // ---- registration -------------------------------------------------------------------------

  /**
   * Registers (or replaces) a tool; compiles its schemas now, so a bad schema throws here.
   *
   * Typed from the schemas: with a JSON Schema literal (inline, or a constant `as const`) the
   * handler's `args` are json-schema-to-ts' `FromSchema` of `inputSchema`, with a Standard
   * Schema validator (zod 4, valibot through `toStandardJsonSchema`, arktype) its output type;
   * `outputSchema` types `structuredContent` the same way. `tool<A>(…)` states `A` instead
   * (the schemas then type nothing). A validator's Standard JSON Schema (draft 2020-12) is what
   * `tools/list` shows and what arguments and `structuredContent` are checked against; the
   * input validator then parses the arguments, and the handler gets its output (an argument
   * it refuses: the same `isError` result as a JSON Schema failure).
   * @throws TypeError naming the tool when a schema is not valid JSON Schema, or a validator has no Standard JSON Schema.
   */
  tool<
    A = never,
    const I extends SchemaLike | undefined = SchemaLike | undefined,
    const O extends SchemaLike | undefined = SchemaLike | undefined,
  >(def: ToolDefinition<[A] extends [never] ? SchemaType<I, Obj> : A, P, I, O>): this {
    const input = def.inputSchema;
    const json = {
      ...def,
      inputSchema: input === undefined ? undefined : jsonSchemaOf(input, `inputSchema of tool ${def.name}`),
      outputSchema:
        def.outputSchema === undefined ? undefined : jsonSchemaOf(def.outputSchema, `outputSchema of tool ${def.name}`),
    } as unknown as ToolDefinition<never, ProtocolMaps, JsonSchema | undefined, JsonSchema | undefined>;
    if (isStandardSchema(input)) {
      const handler = def.handler as (args: unknown, ctx: RequestContext) => unknown;
      json.handler = (async (args: unknown, ctx: RequestContext) => {
        const parsed = await validateStandard(input, args, '(arguments)');
        if (!parsed.ok)
          return {
            content: [{ type: 'text', text: `Invalid arguments for tool ${def.name}: ${parsed.problems.join('; ')}` }],
            isError: true,
          };
        return handler(parsed.value, ctx);
      }) as never;
    }
    this.#tools.set(def.name, compileTool(json));
    return this.#changed('tools');
  }

  /**
   * Registers (or replaces) an MCP Apps UI resource (`ui://…`, `text/html;profile=mcp-app`, its
   * `_meta.ui` listed and on every read content item): ./app-ui.ts.
   * @throws TypeError for a URI that is not `ui://`.
   */
  appResource(def: AppResourceDefinition): this {
    return this.resource(appResourceDefinition(def) as unknown as ResourceDefinition<P>);
  }
  /**
   * Registers (or replaces) a tool linked to a UI resource: `ui` becomes its `_meta.ui` (view and
   * visibility; the flat `ui/resourceUri` too): ./app-ui.ts. Otherwise as {@link tool}.
   */
  appTool<
    A = never,
    const I extends SchemaLike | undefined = SchemaLike | undefined,
    const O extends SchemaLike | undefined = SchemaLike | undefined,
  >(def: ToolDefinition<[A] extends [never] ? SchemaType<I, Obj> : A, P, I, O> & { ui: AppToolUi }): this {
    const { ui, ...rest } = def;
    return this.tool<A, I, O>({ ...rest, _meta: appToolMeta(ui, rest._meta) } as never);
  }

  /** Registers (or replaces) a static resource, by `uri`. */
  resource(def: ResourceDefinition<P>): this {
    return this.#catalog.resources.set(def.uri, def as unknown as ResourceDefinition) && this.#changed('resources');
  }
  /**
   * Registers (or replaces) a resource template, by `uriTemplate`; reads try static URIs first.
   * A literal template types the variables `read` gets and the keys of `complete`.
   * @throws TypeError when `uriTemplate` is not an RFC 6570 template.
   */
  resourceTemplate<const T extends string>(def: ResourceTemplateDefinition<P, T>): this {
    const stored = def as unknown as ResourceTemplateDefinition<ProtocolMaps, string>;
    return (
      this.#catalog.templates.set(def.uriTemplate, {
        def: stored,
        match: compileUriTemplate(def.uriTemplate),
        variables: uriTemplateVariables(def.uriTemplate),
      }) && this.#changed('resources')
    );
  }

  /**
   * Registers (or replaces) a prompt, by `name`. Its arguments are typed from `argsSchema` (a
   * JSON Schema literal or a Standard Schema validator: listed from its JSON Schema's
   * properties, checked by it, `get` receiving its output) or from the `arguments` list.
   * @throws TypeError naming the prompt when `argsSchema` is not a JSON Schema of an object.
   */
  prompt<
    const S extends SchemaLike | undefined = SchemaLike | undefined,
    const L extends readonly PromptArgument[] | undefined = readonly PromptArgument[] | undefined,
  >(def: PromptDefinition<P, PromptArgs<S, L>, S, L>): this {
    const stored = (def.argsSchema === undefined ? def : schemaPrompt(def as never)) as unknown as PromptDefinition;
    return this.#catalog.prompts.set(def.name, stored) && this.#changed('prompts');
  }

  /** The registered `inputSchema` of a tool (undefined: no such tool); for `Mcp-Param-*` checks over HTTP. */
  inputSchema(name: string): Record<string, unknown> | undefined {
    const t = this.#tools.get(name);
    return t ? ((t.def.inputSchema ?? { type: 'object' }) as Record<string, unknown>) : undefined;
  }
  /** Removals: true when something was removed (then list_changed follows). */
  removeTool(name: string): boolean {
    return this.#tools.delete(name) && !!this.#changed('tools');
  }
  removeResource(uri: string): boolean {
    return this.#catalog.resources.delete(uri) && !!this.#changed('resources');
  }
  removeResourceTemplate(uriTemplate: string): boolean {
    return this.#catalog.templates.delete(uriTemplate) && !!this.#changed('resources');
  }
  removePrompt(name: string): boolean {
    return this.#catalog.prompts.delete(name) && !!this.#changed('prompts');
  }

  // ---- subscriptions and notifications ------------------------------------------------------

  /** URIs some attached session (or a request without a session) subscribed to and did not unsubscribe from. */
  get subscriptions(): ReadonlySet<string> {
    const all = new Set(this.#sessionless);
    for (const t of this.#targets) for (const uri of this.#subscribers.get(t) ?? []) all.add(uri);
    return all;
  }

  /** URIs `session` subscribed to (resources/subscribe) and did not unsubscribe from. */
  subscriptionsOf(session: object): ReadonlySet<string> {
    return this.#subscribers.get(session) ?? new Set();
  }

  /**
   * Sends notifications/resources/updated for `uri` through every attached server whose client
   * subscribed to it (resources/subscribe), and through every stateless one (its listen streams
   * filter by URI). Resolves with whether it was sent through any.
   */
  async notifyResourceUpdated(uri: string): Promise<boolean> {
    const everyone = this.#sessionless?.has(uri) ?? false;
    const targets = [...this.#targets].filter(
      (t) => everyone || this.#subscribers.get(t)?.has(uri) || t.table?.lifecycle === 'stateless',
    );
    await Promise.all(targets.map((t) => send(t, 'notifications/resources/updated', { uri })));
    return targets.length > 0;
  }

  /**
   * From now on, additions and removals send `notifications/<kind>/list_changed` through
   * `server` (coalesced: one per kind per tick), until its connection closes (a target with
   * `onClose`) or the returned function is called.
   */
  attach(server: NotifyTarget): () => void {
    this.#targets.add(server);
    const detach = () => void this.#targets.delete(server);
    server.onClose?.(detach);
    return detach;
  }

  // ---- session wiring -----------------------------------------------------------------------

  /** Capabilities to declare: every kind that has registrations (or is forced by `declare`). */
  capabilities(): Obj {
    const caps: Obj = {};
    const d = this.#declare;
    const { resources, templates, prompts } = this.#catalog;
    if (d.tools || this.#tools.size) caps.tools = { listChanged: true };
    if (d.resources || resources.size || templates.size) caps.resources = { subscribe: true, listChanged: true };
    if (d.prompts || prompts.size) caps.prompts = { listChanged: true };
    const completers =
      [...prompts.values()].some((p) => p.arguments?.some((a) => a.complete)) ||
      [...templates.values()].some((t) => t.def.complete && Object.keys(t.def.complete).length);
    if (d.completions || completers) caps.completions = {};
    return caps;
  }

  /**
   * The request handlers for a ServerSession's `handlers` option: one frozen table per lifecycle,
   * the same object on every call (share it among sessions). Pass the revision's `table` when it
   * may be a stateless one (see the module doc).
   */
  handlers(options: { table?: FeaturesTableInfo } = {}): Readonly<Record<string, RequestHandler>> {
    if (options.table?.lifecycle !== 'stateless') {
      if (!this.#handshakeTable) {
        const table = checkedHandlers(this.#handlers(), this.#logger);
        // each handler knows its stateless twin: a stateless revision's Server swaps them in (statelessHandlers)
        rememberStatelessTwins(table, (method) => this.handlers({ table: { lifecycle: 'stateless' } })[method]);
        this.#handshakeTable = Object.freeze(table);
      }
      return this.#handshakeTable;
    }
    this.#statelessTable ??= Object.freeze(checkedHandlers(statelessForm(this.#handlers(), this.#cache), this.#logger));
    return this.#statelessTable;
  }

  #handlers(): Record<string, RequestHandler> {
    const c = this.#catalog;
    return {
      'tools/list': (p?: Obj) => listPage(this.pageSize, 'tools', [...this.#tools.values()].map(listedTool), p),
      'tools/call': Object.assign((p: Obj, ctx: RequestContext) => callTool(this.#tools.get(String(p.name)), p, ctx), {
        // the tool's own direct form (compileTool makes one for every tool registered here)
        [DIRECT_CALL]: (p: Obj, table: ProtocolTable) => {
          const tool = this.#tools.get(String(p.name));
          return tool?.direct !== undefined ? tool.direct(p, table) : callToolDirect(tool, p, table);
        },
      }),
      'resources/list': (p?: Obj) => listPage(this.pageSize, 'resources', [...c.resources.values()].map(listed), p),
      'resources/templates/list': (p?: Obj) =>
        listPage(
          this.pageSize,
          'resourceTemplates',
          [...c.templates.values()].map((t) => listed(t.def)),
          p,
        ),
      'resources/read': (p: Obj, ctx) => readResource(c, String(p.uri), ctx),
      'resources/subscribe': (p: Obj, ctx) => {
        const uri = String(p.uri);
        if (!knownResource(c, uri)) throw notFound(uri);
        this.#subscribed(ctx, true).add(uri);
        return {};
      },
      'resources/unsubscribe': (p: Obj, ctx) => void this.#subscribed(ctx, false)?.delete(String(p.uri)),
      'prompts/list': (p?: Obj) =>
        listPage(
          this.pageSize,
          'prompts',
          [...c.prompts.values()].map((d) => listed({ ...d, arguments: d.arguments?.map(listed) })),
          p,
        ),
      'prompts/get': (p: Obj, ctx) => getPrompt(c, p, ctx),
      'completion/complete': (p: Obj) => complete(c, p),
    };
  }

  // ---- internals ----------------------------------------------------------------------------

  /** The subscription set of the request's session (created when `create`). */
  #subscribed(ctx: RequestContext, create: true): Set<string>;
  #subscribed(ctx: RequestContext, create: false): Set<string> | undefined;
  #subscribed(ctx: RequestContext, create: boolean): Set<string> | undefined {
    const session = ctx.session;
    if (!session) return create ? (this.#sessionless ??= new Set()) : this.#sessionless;
    let set = this.#subscribers.get(session);
    if (!set && create) this.#subscribers.set(session, (set = new Set()));
    return set;
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
}

/** Sends through a target that may not be connected yet (its `notify` may throw synchronously). */
async function send(t: NotifyTarget, method: string, params?: Obj): Promise<void> {
  try {
    await t.notify(method, params);
  } catch {
    // not connected or closed: nothing to tell
  }
}
