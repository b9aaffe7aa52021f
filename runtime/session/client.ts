// size: ClientSession: one method per client request kind; 63 lines over
/**
 * `ClientSession<P>`: the client facade, written once and typed over a generated method map
 * `P` (protocol.gen.ts `Protocol`). Generated `Client` classes add the named one-liners.
 *
 * Lifecycle: the strategy of the table's `lifecycle` (./lifecycle/), picked when the session is
 * made and again when the table changes lifecycle (the dual-era probe). Handshake revisions
 * (./lifecycle/handshake.ts; 2025-11-25 basic/lifecycle): `connect()` sends `initialize` with the
 * revision's protocol version, accepts the server's answer only if it names a version this
 * client supports (its own table or one of `fallbackTables`; otherwise UnsupportedVersionError
 * and the connection is closed), then sends `notifications/initialized`; from then on the
 * negotiated revision's table validates every message. Stateless revisions
 * (./lifecycle/stateless.ts; 2026-07-28+) send `server/discover` instead and put the protocol
 * version, client capabilities and client info into every request's `_meta`; there, `request`
 * also decodes results by `resultType` and runs multi round-trip requests (../stateless/mrtr.ts),
 * serves cacheable results from a TTL cache (../stateless/cache.ts), retries once with a table of
 * `fallbackTables` named in an UnsupportedProtocolVersion error's `data.supported` (draft
 * basic/versioning), and `listen` opens `subscriptions/listen` streams (../stateless/subscriptions.ts).
 */
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { type Logger, Peer, type RequestContext, type RequestOptions as PeerRequestOptions } from '../engine/peer.js';
import { type Params, isObject as isRecord } from '../jsonrpc/message.js';
import type { ClientParams, ProtocolMaps, ProtocolTable } from '../protocol/table.js';
import { lazy } from '../jsonrpc/lazy.js';
import type { OutputSchemaError } from './output-schema-error.js';
import { ownValue } from '../jsonrpc/own.js';
import type { Transport } from '../jsonrpc/transport.js';
import type { TaskMetadata } from '../stores/tasks.js';
import type { TaskHandle } from '../tasks/requestor.js';
import { requestAsTask } from '../tasks/request-as-task.js';
import type { ResultCache, ResultCacheOptions } from '../stateless/cache.js';
import type {
  ListenOptions,
  Subscription,
  SubscriptionFilter,
  SubscriptionRouter,
} from '../stateless/subscriptions.js';
import type {
  ClientHost,
  ClientLifecycle,
  ClientLifecycleFactory,
  ClientLifecycleOptions,
  Implementation,
  ResultStep,
  ServerDescription,
} from './lifecycle/strategy.js';
import { handshakeClient } from './lifecycle/handshake.js';

export { type Implementation, type ServerDescription, UnsupportedVersionError } from './lifecycle/strategy.js';

/** Options of one outbound request (the engine's, plus task augmentation). Times in ms. */
export interface RequestOptions extends PeerRequestOptions {
  /**
   * Task-augmented execution (2025-11-25 utilities/tasks) of a task-augmentable method: sends
   * `params.task`, then the promise resolves with the method's own result (or rejects with its
   * error) once the task is terminal. For a handle right away, see `callWithTask`.
   */
  task?: TaskMetadata;
  /** With `task`: receives the task's handle as soon as the receiver created the task. */
  onTask?: (handle: TaskHandle<unknown>) => void;
}

export type { ClientParams };
/** Handlers a client may register for server→client requests (sampling, elicitation, roots). */
export type ClientRequestHandlers<P extends ProtocolMaps> = {
  [M in keyof P['serverRequests']]?: (
    params: P['serverRequests'][M]['params'],
    ctx: RequestContext,
  ) =>
    | P['serverRequests'][M]['result']
    | P['serverRequests'][M]['alt']
    | Promise<P['serverRequests'][M]['result'] | P['serverRequests'][M]['alt']>;
};
/** Handlers for server notifications (progress and cancellation are handled by the engine). */
export type ClientNotificationHandlers<P extends ProtocolMaps> = {
  [M in keyof P['serverNotifications']]?: (params: P['serverNotifications'][M]['params']) => void | Promise<void>;
};

/** Options of a {@link ClientSession}: who the client is, what it declares, how it answers the server's requests. */
export interface ClientSessionOptions<P extends ProtocolMaps> {
  clientInfo: Implementation;
  /** Capabilities this client declares (sampling, elicitation, roots, tasks…). */
  capabilities?: Record<string, unknown>;
  handlers?: ClientRequestHandlers<P>;
  notificationHandlers?: ClientNotificationHandlers<P>;
  /** Tables of older revisions this client also speaks, picked by the server's answer. */
  fallbackTables?: readonly ProtocolTable[];
  /** Refuse requests whose server capability was not declared (default true). */
  enforceCapabilities?: boolean;
  /** Default request timeout, ms (default 60000). */
  timeout?: number;
  logger?: Logger;
  /** Stateless: `input_required` rounds answered per request before MaxInputRoundsError (default 10). */
  maxInputRounds?: number;
  /** Stateless: the result cache honouring `ttlMs` (default on; `false` turns it off). */
  cache?: false | ResultCacheOptions;
  /**
   * Check `structuredContent` of every successful `tools/call` result against the tool's
   * `outputSchema` (default true; `false` turns the check off): see {@link OutputSchemaError}.
   */
  checkToolOutput?: boolean;
}

/** ./output-check.ts (and ../protocol/json-schema.ts, ajv, under it), imported once, on first use. */
const outputCheck = lazy(() => import('./output-check.js'));

/** Tools whose `outputSchema` a client keeps (from `tools/list` results); later ones are not checked. */
const MAX_TOOL_SCHEMAS = 10_000;
/** Pages of `tools/list` an on-demand listing reads at most. */
const MAX_TOOL_PAGES = 100;

const TOOLS_CHANGED = 'notifications/tools/list_changed';

/**
 * The lifecycle strategy of `table`: the factory the table carries (`table.clientLifecycle`, set
 * by generated tables, so a bundle holds only the lifecycles of the tables it uses), else the
 * handshake one for a hand-built handshake table. @throws RpcError -32603 for a stateless table
 * without its factory (the stateless strategy is not bundled unless a table brings it).
 */
function lifecycleOf(table: ProtocolTable): ClientLifecycleFactory {
  const own = table.clientLifecycle as ClientLifecycleFactory | undefined;
  if (own) return own;
  if (table.lifecycle === 'handshake') return handshakeClient;
  throw new RpcError(
    ErrorCode.InternalError,
    `the ${table.lifecycle} table of protocol version ${table.protocolVersion} carries no clientLifecycle: set it to statelessClient (@mcpgen/runtime/codegen/v1), as generated tables do`,
  );
}

/**
 * The client side of one connection, typed over a generated method map `P` (see the module
 * doc for the lifecycle of each era). `connect(transport)` runs the handshake (2025-11-25
 * basic/lifecycle) or `server/discover` (stateless revisions); `request` sends a typed request
 * and resolves with its validated result, rejecting with {@link RpcError} (the server's error),
 * `RequestTimeoutError`, `RequestAbortedError` or `ConnectionClosedError`.
 */
export class ClientSession<P extends ProtocolMaps> {
  /** Which side of the protocol this session is (the task layer tells the sessions apart by it). */
  readonly side = 'client' as const;
  /** Type-level only (no value at run time): the method maps `P` this session is typed over. */
  declare readonly protocolMaps?: P;
  #peer: Peer | undefined;
  #server: ServerDescription | undefined;
  #table: ProtocolTable;
  /** The strategy of `#table`'s lifecycle. */
  #lifecycle: ClientLifecycle;
  /** Made by the stateless lifecycle (a handshake session has neither). */
  #cache: ResultCache | undefined;
  #subs: SubscriptionRouter | undefined;
  /** `outputSchema` by tool name (undefined: listed without one), from the `tools/list` results seen. */
  #outputSchemas = new Map<string, Record<string, unknown> | undefined>();
  /** A whole listing was read since the last `notifications/tools/list_changed`. */
  #toolsListed = false;
  #listing: Promise<void> | undefined;

  constructor(
    readonly requestedTable: ProtocolTable,
    readonly options: ClientSessionOptions<P>,
  ) {
    this.#table = requestedTable;
    // the view of this session its lifecycle works on (./lifecycle/strategy.ts)
    const session = this;
    const host: ClientHost = {
      options: options as unknown as ClientLifecycleOptions,
      requestedTable,
      get table() {
        return session.#table;
      },
      get peer() {
        return session.peer;
      },
      get cache() {
        return session.#cache;
      },
      get subscriptions() {
        return session.#subs;
      },
      setStateless: (cache, subscriptions) => {
        this.#cache = cache;
        this.#subs = subscriptions;
      },
      setTable: (table) => {
        const other = table.lifecycle !== this.#table.lifecycle;
        this.#table = table;
        this.peer.setTable(table);
        if (other) this.#lifecycle = lifecycleOf(table)(host);
      },
      setServer: (server) => {
        this.#server = server;
      },
    };
    this.#lifecycle = lifecycleOf(requestedTable)(host);
  }

  /** The stateless result cache (undefined when turned off, and on a handshake revision). */
  get cache(): ResultCache | undefined {
    return this.#cache;
  }

  /** The negotiated revision's table (the requested one until `connect` resolves). */
  get table(): ProtocolTable {
    return this.#table;
  }
  /** Set once connected. */
  get server(): ServerDescription | undefined {
    return this.#server;
  }
  get peer(): Peer {
    if (!this.#peer)
      throw new RpcError(ErrorCode.InternalError, 'client is not connected: call connect(transport) first');
    return this.#peer;
  }

  /**
   * Connects over `transport` and runs the lifecycle. Resolves with the server's description;
   * rejects with UnsupportedVersionError (connection closed) or the server's error.
   *
   * Over Streamable HTTP (a transport with `setProtocolVersion` / `onSessionExpired`): the
   * negotiated version goes to `setProtocolVersion`; when the server drops the session (404),
   * the request it answered fails with SessionExpiredError and is not resent (case 006; one
   * whose reply stream was open reads it to its result, or fails with ConnectionClosedError), the
   * client runs the handshake again on a new session, requests made meanwhile wait for it,
   * and a hook set on the transport before `connect` runs after it.
   */
  async connect(
    transport: Transport,
    options: { signal?: AbortSignal; timeout?: number } = {},
  ): Promise<ServerDescription> {
    const o = this.options;
    const user = (o.notificationHandlers ?? {}) as Record<string, ((p: unknown) => unknown) | undefined>;
    const methods = this.#lifecycle.notificationMethods(Object.keys(user));
    const peer = new Peer({
      side: 'client',
      table: this.#table,
      transport,
      capabilities: o.capabilities ?? {},
      requestHandlers: (o.handlers ?? {}) as never,
      notificationHandlers: Object.fromEntries(
        methods.map((m) => [
          m,
          (params: Params | undefined) => {
            if (m === TOOLS_CHANGED) {
              // the tools changed: the output schemas learnt from tools/list are learnt again
              this.#outputSchemas.clear();
              this.#toolsListed = false;
            }
            this.#cache?.onNotification(m, params);
            if (!this.#subs?.route(m, params)) return user[m]?.(params);
          },
        ]),
      ) as never,
      logger: o.logger,
      timeout: o.timeout,
    });
    this.#peer = peer;
    await peer.start();
    // undefined: the dual-era probe switched to a handshake table, whose lifecycle connects
    const server =
      (await this.#lifecycle.connect(transport, options)) ?? (await this.#lifecycle.connect(transport, options));
    if (!server) throw new RpcError(ErrorCode.InternalError, 'the lifecycle ended without describing the server');
    return server;
  }

  /**
   * Opens a `subscriptions/listen` stream (stateless revisions; draft basic/patterns/
   * subscriptions) for the notification types of `filter`. The returned Subscription's
   * `acknowledged` resolves with the granted filter; `options.onNotification` then receives
   * each notification of the stream; `close()` cancels it; `closed` tells how it ended. The
   * listen request has no timeout. Throws RpcError -32601 on handshake revisions.
   */
  listen(filter: SubscriptionFilter, options: ListenOptions = {}): Subscription {
    return this.#lifecycle.listen(filter, options);
  }

  /**
   * Sends one request and resolves with its result (validated against the negotiated
   * revision's schema). Rejects with RpcError: the server's error, -32601 locally when the
   * server did not declare the capability the method needs, or the engine's timeout / abort /
   * connection-closed errors.
   */
  request<M extends keyof P['clientRequests'] & string>(
    method: M,
    params: ClientParams<P['clientRequests'][M]['params']>,
    options?: RequestOptions,
  ): Promise<P['clientRequests'][M]['result']> {
    // the session's own step on these results runs as the engine settles the request (no `.then` of its own)
    if (method === 'tools/call' && this.options.checkToolOutput !== false) {
      // a call without options (the common one): the session's one step, called on the call's
      // params (its `this`), so that a call makes no closure
      if (options === undefined) return this.#dispatch(method, params, options, this.#checkCall, params);
      return this.#dispatch(method, params, options, (r) => this.#checkToolResult(params as Params, r, options));
    }
    return this.#dispatch(method, params, options, method === 'tools/list' ? this.#afterList : undefined);
  }

  /** The `tools/call` output check of a call without options, on the params it is called on. */
  readonly #checkCall = ((session: ClientSession<P>): ResultStep =>
    function (this: Params | undefined, r: Record<string, unknown>) {
      return session.#checkToolResult(this as Params, r, undefined);
    } as ResultStep)(this);

  /** `tools/list` results: the `outputSchema` of each tool is recorded, the result returned as it is. */
  readonly #afterList: ResultStep = (r) => {
    const tools = isRecord(r) && Array.isArray(r.tools) ? r.tools : [];
    for (const t of tools) {
      if (!isRecord(t) || typeof t.name !== 'string') continue;
      if (!this.#outputSchemas.has(t.name) && this.#outputSchemas.size >= MAX_TOOL_SCHEMAS) break;
      this.#outputSchemas.set(t.name, isRecord(t.outputSchema) ? t.outputSchema : undefined);
    }
    return r;
  };

  #dispatch<M extends keyof P['clientRequests'] & string>(
    method: M,
    params: ClientParams<P['clientRequests'][M]['params']>,
    options: RequestOptions | undefined,
    after: ResultStep | undefined,
    /** What `after` is called on (its `this`; ClientLifecycle `request`). */
    self?: unknown,
  ): Promise<P['clientRequests'][M]['result']> {
    const entry = ownValue(this.#table.requests.clientToServer, method);
    if (!entry) {
      return Promise.reject(
        new RpcError(
          ErrorCode.MethodNotFound,
          `${method} is not a client request of protocol version ${this.#table.protocolVersion}`,
        ),
      );
    }
    // a JavaScript caller's params that are not an object (an array is not), or none where a handshake revision needs them: refused unsent
    if (
      (typeof params !== 'object' || params === null || Array.isArray(params)) &&
      (params !== undefined || (entry.paramsRequired && this.#table.lifecycle === 'handshake'))
    )
      return Promise.reject(
        new TypeError(
          `${method}: params must be an object, got ${Array.isArray(params) ? 'an array' : String(params)}`,
        ),
      );
    // the server's declared capabilities are checked by the engine for every request (Peer.request)
    const pending = this.#lifecycle.pending;
    if (pending) return pending.then(() => this.#dispatch(method, params, options, after, self));
    if (options?.task) {
      const done: Promise<Record<string, unknown>> = requestAsTask(this, method, params, options);
      return (after === undefined ? done : done.then(after)) as Promise<P['clientRequests'][M]['result']>;
    }
    return this.#lifecycle.request(method, entry, params as Params | undefined, options, after, self) as Promise<
      P['clientRequests'][M]['result']
    >;
  }

  /**
   * The output check of `tools/call` (option `checkToolOutput`; 2025-11-25 server/tools, "Output
   * Schema"). Where the spec is silent, this client:
   * - checks only successful results: one with `isError: true` (a tool execution error) is
   *   returned as it is, structured or not; so is one whose `resultType` is not `complete` (a task);
   * - takes a tool's `outputSchema` from the `tools/list` results it has seen; when the tool is not
   *   among them, it reads the whole list once (at most 100 pages) after the result arrived, and
   *   a tool still not listed is not checked, nor are tools of a server whose `tools/list` fails
   *   or does not end (a repeated `nextCursor`, 100 pages) (logged as a warning; not asked again until list_changed); each page is sent once (request
   *   option `retry: false`: no transport retry of a refusal or a lost connection), so that a
   *   server draining or gone does not hold up the result the client already has;
   * - forgets what it listed on `notifications/tools/list_changed` (the next call lists again);
   * - keeps the schemas of at most 10000 tools per client;
   * - rejects with {@link OutputSchemaError} (carrying the result) when the result breaks the schema.
   */
  #checkToolResult(
    params: Params,
    result: Record<string, unknown>,
    options: RequestOptions | undefined,
  ): Record<string, unknown> | Promise<Record<string, unknown>> {
    if (
      !isRecord(result) ||
      result.isError === true ||
      (result.resultType !== undefined && result.resultType !== 'complete')
    )
      return result;
    const tool = String(params?.name);
    if (!this.#outputSchemas.has(tool) && !this.#toolsListed) return this.#listThenCheck(tool, result, options);
    const schema = this.#outputSchemas.get(tool);
    // the common case, a tool without an outputSchema, is answered here: no async step
    return schema === undefined ? result : this.#meetSchema(tool, schema, result);
  }

  /** The tool's schema is not known yet: lists the tools (once for concurrent calls), then checks. */
  async #listThenCheck(
    tool: string,
    result: Record<string, unknown>,
    options: RequestOptions | undefined,
  ): Promise<Record<string, unknown>> {
    try {
      await (this.#listing ??= this.#listTools(options?.signal).finally(() => (this.#listing = undefined)));
    } catch (e) {
      // a server that cannot list its tools leaves their schemas unknown: not checked, not asked again until list_changed
      this.#toolsListed = true;
      this.options.logger?.warn?.('tools/list failed: tool results are not checked against their outputSchema', {
        tool,
        error: (e as Error).message,
      });
    }
    const schema = this.#outputSchemas.get(tool);
    return schema === undefined ? result : this.#meetSchema(tool, schema, result);
  }

  /** Checks `result.structuredContent` against the tool's `outputSchema`. */
  async #meetSchema(
    tool: string,
    schema: Record<string, unknown>,
    result: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    // the check and the JSON Schema compiler (ajv) are loaded by the first result that has a schema
    // to meet: a client that never meets one neither loads them nor, bundled with code splitting, carries them
    const { meetSchema } = await outputCheck.load();
    return meetSchema(this.#table, tool, schema, result, this.options.logger);
  }

  /**
   * Reads every page of `tools/list`, learning the tools' output schemas. Throws an Error at a
   * `nextCursor` seen before or after 100 pages: a listing that does not end is a failed one.
   */
  async #listTools(signal: AbortSignal | undefined): Promise<void> {
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      // sent once: a server refusing it (a drain's 503 + Retry-After, a process gone) must not hold up the result
      const r = (await this.request('tools/list' as never, (cursor === undefined ? {} : { cursor }) as never, {
        signal,
        retry: false,
      })) as Record<string, unknown>;
      const next = r?.nextCursor;
      if (typeof next !== 'string') {
        this.#toolsListed = true;
        return;
      }
      // a listing that does not end is a failed one (the caller's warning names why)
      if (seen.has(next)) throw new Error(`stopped at nextCursor ${JSON.stringify(next)}, repeated`);
      seen.add(next);
      cursor = next;
    }
    throw new Error(`stopped after ${MAX_TOOL_PAGES} pages (the cap)`);
  }

  /**
   * Sends a request of an extension, outside the revision's table (e.g. `tasks/get` of the tasks
   * extension, ../tasks/extension-client.ts): on a stateless revision with the per-request `_meta`
   * (protocol version, client capabilities and info) and the version fallback of every request;
   * the result is not validated (the revision's schema does not define it), and no
   * `input_required` round is run. Rejects with the server's RpcError, or -32601 locally on a
   * handshake revision (its session sends only its table's requests).
   */
  extensionRequest<R extends object = Record<string, unknown>>(
    method: string,
    params?: Params,
    options?: PeerRequestOptions,
  ): Promise<R> {
    return this.#lifecycle.extensionRequest(method, params, options) as Promise<R>;
  }

  /** Sends one notification. */
  notify<M extends keyof P['clientNotifications'] & string>(
    method: M,
    params: P['clientNotifications'][M]['params'],
  ): Promise<void> {
    return this.peer.notify(method, params as Params | undefined);
  }

  /** Closes the connection; pending requests reject with ConnectionClosedError. */
  close(): Promise<void> {
    return this.#peer?.close() ?? Promise.resolve();
  }
}
