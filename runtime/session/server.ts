/**
 * `ServerSession<P>`: the server facade, written once and typed over a generated method map
 * `P`. Generated `Server` classes add the named one-liners (`createMessage`, `elicit`, …).
 *
 * Lifecycle (2025-11-25 basic/lifecycle): `initialize` is answered with the client's version
 * when this server speaks it (its own table or a `fallbackTables` entry), else with its own
 * latest version; requests other than `initialize` and `ping` before it are refused with
 * -32600; the negotiated revision's table validates every message afterwards. Inbound requests
 * whose capability this server did not declare get -32601; outbound requests whose capability
 * the client did not declare are refused locally with -32601 (CapabilityNotDeclaredError, by the
 * engine, whatever the path). The initialize result advertises the declared capabilities that
 * the negotiated revision's schema defines (none of `tasks` before 2025-11-25), and only those
 * gate inbound requests; methods outside the negotiated table get -32601; a second `initialize`
 * gets -32600. `logging/setLevel` is handled
 * when the server declares `logging` and registers no handler of its own; `log()` filters by
 * that level (server/utilities/logging). Stateless revisions answer `server/discover` and take
 * each request's `_meta` (protocol version and client capabilities required, else -32602; a
 * version other than this server's: -32022 with `data.supported` and `data.requested`, draft
 * basic/versioning). There, every handler result gets `resultType: "complete"` when it has none,
 * an InputRequiredResult is checked before it leaves (../stateless/mrtr.ts: -32021 when it asks for a
 * capability the request's client capabilities lack), cacheable results get `ttlMs` and
 * `cacheScope` from the `cache` policy (../stateless/cache.ts), `subscriptions/listen` is served by a
 * SubscriptionHub and list_changed / resources/updated notifications go out only on the listen
 * streams that opted in (../stateless/subscriptions.ts); `close()` ends those streams gracefully first.
 */
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/message.js';
import { type Logger, type NotificationHandler, Peer, type PreDispatch, type RequestContext, type RequestHandler, hasCapability } from '../engine/peer.js';
import { type ProtocolMaps, type ProtocolTable, capabilitiesOf, errorCodeOf } from '../protocol/table.js';
import { ownValue } from '../jsonrpc/own.js';
import type { MessageInfo, Transport } from '../jsonrpc/transport.js';
import type { Implementation, RequestOptions } from './client.js';
import { requestAsTask } from '../tasks/requestor.js';
import { RequestStateSealer, checkInputRequired, clientCapabilitiesOf } from '../stateless/mrtr.js';
import { type CachePolicy, applyCacheHints } from '../stateless/cache.js';
import { LISTEN_NOTIFICATIONS, SubscriptionHub } from '../stateless/subscriptions.js';
import type { NotificationBus } from '../stores/bus.js';
import { LOG_LEVEL_META, type LogLevel, isLogLevel, logLevelOrderOf, passesLogLevel, setLogThreshold } from '../engine/context.js';

/** A handler per client request method of `P`: typed params and request context in, the method's result (or its alternative result) out; throw an {@link RpcError} to answer with an error. */
export type ServerRequestHandlers<P extends ProtocolMaps> = {
  [M in keyof P['clientRequests']]?: (params: P['clientRequests'][M]['params'], ctx: RequestContext) => P['clientRequests'][M]['result'] | P['clientRequests'][M]['alt'] | Promise<P['clientRequests'][M]['result'] | P['clientRequests'][M]['alt']>;
};
/** A handler per client notification method of `P` (typed params; nothing is answered). */
export type ServerNotificationHandlers<P extends ProtocolMaps> = {
  [M in keyof P['clientNotifications']]?: (params: P['clientNotifications'][M]['params']) => void | Promise<void>;
};

/** Options of a {@link ServerSession}: who the server is, what it declares, its request and notification handlers. */
export interface ServerSessionOptions<P extends ProtocolMaps> {
  serverInfo: Implementation;
  /** Capabilities this server declares (tools, resources, prompts, logging, completions, tasks…). */
  capabilities?: Record<string, unknown>;
  instructions?: string;
  /**
   * Request handlers by method. The table is used as given by every session created with it
   * (share one object among many sessions); a handshake session combines it once per table
   * object with its lifecycle handlers, so change handlers by assigning a new object, not by
   * editing one already connected.
   */
  handlers?: ServerRequestHandlers<P>;
  /** Notification handlers by method; shared and combined like `handlers`. */
  notificationHandlers?: ServerNotificationHandlers<P>;
  /** Tables of older revisions this server also answers (picked by the client's `initialize`). */
  fallbackTables?: readonly ProtocolTable[];
  timeout?: number;
  logger?: Logger;
  /** Stateless: caching hints of cacheable results (default 0 ms, `private`; `server/discover` 60000 ms, `public`). */
  cache?: CachePolicy;
  /**
   * Stateless: HMAC secret of `requestState`, at least 32 bytes (default: 32 random bytes per
   * session, so only this process accepts its states). Several processes serving one endpoint
   * MUST share one secret, else a retry reaching another process is refused (-32602 `tampered`).
   */
  requestStateSecret?: string | Uint8Array;
  /** Stateless: lifetime of sealed `requestState`, ms (default 300000). */
  requestStateTtlMs?: number;
  /**
   * Stateless: the sealer `requestState` uses (key rotation, audience, principal: see
   * RequestStateSealerOptions in ../stateless/mrtr.ts); share one among sessions. Overrides the two above.
   */
  requestStateSealer?: RequestStateSealer;
  /** Stateless: may a listen stream subscribe to this resource URI? (default: any, when `resources.subscribe` is declared). */
  canSubscribe?: (uri: string) => boolean;
  /** Stateless: methods outside the revision's table whose `handlers` an extension adds (../tasks/extension.ts). */
  extensionMethods?: readonly string[];
  /**
   * Stateless, several processes: the bus that carries list_changed and resources/updated to the
   * `subscriptions/listen` streams of every process (../stores/bus.ts; e.g. `RedisStores.bus`).
   * What this session publishes goes to its own streams and onto the bus; what another process
   * publishes comes to its streams. Give it to one session per process.
   */
  listenBus?: NotificationBus;
}

export { LOG_LEVELS, type LogLevel } from '../engine/context.js';

const META = 'io.modelcontextprotocol/';

/**
 * The log threshold of a stateless request of `table`'s revision: its `_meta` logLevel when it is
 * one of the revision's `loggingLevels`, or none (nothing is sent).
 */
const statelessLogThreshold = (table: () => ProtocolTable) => (meta: Record<string, unknown> | undefined): LogLevel | undefined =>
  isLogLevel(meta?.[LOG_LEVEL_META], logLevelOrderOf(table())) ? (meta![LOG_LEVEL_META] as LogLevel) : undefined;

/**
 * The server side of one connection, typed over a generated method map `P` (see the module doc
 * for the lifecycle and capability rules, 2025-11-25 basic/lifecycle). `connect(transport)`
 * starts serving; handler errors are answered as JSON-RPC errors, outbound requests
 * (`request`) reject with {@link RpcError}, `RequestTimeoutError` or `ConnectionClosedError`.
 */
export class ServerSession<P extends ProtocolMaps> {
  /** Which side of the protocol this session is (the task layer tells the sessions apart by it). */
  readonly side = 'server' as const;
  /** Type-level only (no value at run time): the method maps `P` this session is typed over. */
  declare readonly protocolMaps?: P;
  #peer: Peer | undefined;
  #table: ProtocolTable;
  #initialized = false;
  #client: { protocolVersion: string; capabilities: Record<string, unknown>; clientInfo?: Implementation } | undefined;
  #logLevel: LogLevel | undefined;
  #hub: SubscriptionHub | undefined;
  #sealer: RequestStateSealer | undefined;
  #closeListeners: Array<() => void> | undefined;

  /** This session's options: a shallow copy of those given (so that one session's changes, e.g. a task receiver's handlers, stay its own). */
  readonly options: ServerSessionOptions<P>;

  constructor(
    readonly ownTable: ProtocolTable,
    options: ServerSessionOptions<P>,
  ) {
    this.#table = ownTable;
    this.options = { ...options };
  }

  get table(): ProtocolTable {
    return this.#table;
  }
  /** What the client said in `initialize` (handshake revisions). */
  get client() {
    return this.#client;
  }
  get peer(): Peer {
    if (!this.#peer) throw new RpcError(ErrorCode.InternalError, 'server is not connected: call connect(transport) first');
    return this.#peer;
  }
  /** Stateless: the open `subscriptions/listen` streams of this connection (set once connected). */
  get subscriptions(): SubscriptionHub | undefined {
    return this.#hub;
  }
  /**
   * Stateless: seals and verifies `requestState` with this server's secret (../stateless/mrtr.ts): in a
   * handler, `requestState.seal(ctx, data)` binds the state to the request `ctx` serves (method,
   * tool/prompt name or resource URI, principal, expiry) and `requestState.open(ctx)` returns the
   * data of the state a retry carries (undefined: none), refusing one issued for another request
   * with -32602.
   */
  get requestState(): RequestStateSealer {
    this.#sealer ??= this.options.requestStateSealer ?? new RequestStateSealer({ secret: this.options.requestStateSecret, ttlMs: this.options.requestStateTtlMs });
    return this.#sealer;
  }

  /**
   * Serves one connection over `transport` until it closes. A handshake session shares its
   * handler tables with every session given the same handler objects: they are combined once
   * with the lifecycle handlers (`initialize`, `notifications/initialized`, `logging/setLevel`),
   * which reach their session as `ctx.session`.
   */
  async connect(transport: Transport): Promise<void> {
    const o = this.options;
    const capabilities = o.capabilities ?? {};
    const stateless = this.#table.lifecycle === 'stateless';
    const peer = new Peer({
      side: 'server',
      table: this.#table,
      transport,
      capabilities,
      requestHandlers: stateless
        ? Object.fromEntries(Object.entries(o.handlers ?? {}).map(([m, h]) => [m, this.#statelessHandler(m, h as RequestHandler)]))
        : ServerSession.#handshakeRequests(o.handlers as Record<string, RequestHandler> | undefined, hasCapability(capabilities, ['logging'])),
      notificationHandlers: stateless
        ? (o.notificationHandlers as Record<string, NotificationHandler> | undefined)
        : ServerSession.#handshakeNotifications(o.notificationHandlers as Record<string, NotificationHandler> | undefined),
      logger: o.logger,
      timeout: o.timeout,
      extensionMethods: o.extensionMethods,
      session: this,
      onClose: () => this.#closed(),
    });
    this.#peer = peer;
    if (!stateless) {
      peer.setPreDispatch(ServerSession.#beforeInitialize);
    } else {
      peer.setRequestHandler('server/discover', () => this.#discover());
      peer.setPreDispatch((req, _entry, info) => this.#checkMeta(req.params as Params | undefined, info));
      this.#hub = new SubscriptionHub({ capabilities: () => this.options.capabilities ?? {}, canSubscribe: o.canSubscribe, logger: o.logger });
      if (!o.handlers?.['subscriptions/listen' as keyof typeof o.handlers]) peer.setRequestHandler('subscriptions/listen', this.#hub.handler);
      const bus = o.listenBus;
      if (bus) {
        const hub = this.#hub;
        const off = bus.subscribe((m) => {
          const p = m.payload as { method?: unknown; params?: unknown } | undefined;
          if (m.topic === 'listen' && m.from !== bus.processId && typeof p?.method === 'string' && LISTEN_NOTIFICATIONS.includes(p.method)) {
            hub.publish(p.method, typeof p.params === 'object' && p.params !== null ? (p.params as Params) : undefined);
          }
        });
        this.onClose(off);
      }
      if (hasCapability(capabilities, ['logging']) && !o.handlers?.['logging/setLevel' as keyof typeof o.handlers]) {
        peer.setRequestHandler('logging/setLevel', ServerSession.#onSetLevel);
      }
    }
    // ctx.log(): the request's own _meta level (stateless), else the session's; none without `logging`
    // levels rank in the negotiated revision's order (table.loggingLevels); the lowest passes by default
    const lowest = (): LogLevel => logLevelOrderOf(this.#table).levels[0] as LogLevel;
    if (hasCapability(capabilities, ['logging'])) {
      setLogThreshold(peer, stateless ? statelessLogThreshold(() => this.#table) : () => this.#logLevel ?? lowest(), () => logLevelOrderOf(this.#table));
    }
    await peer.start();
  }

  /**
   * Calls `listener` once when the connection closes (either side, or the transport failing;
   * at once when it already has). Returns a function that removes it.
   */
  onClose(listener: () => void): () => void {
    // a new array each time: one sized to its contents (a push would reserve room for 17)
    this.#closeListeners = this.#closeListeners ? [...this.#closeListeners, listener] : [listener];
    if (this.#peer?.closed) this.#closed();
    return () => {
      const i = this.#closeListeners?.indexOf(listener) ?? -1;
      if (i >= 0) this.#closeListeners!.splice(i, 1);
    };
  }

  #closed(): void {
    const listeners = this.#closeListeners;
    this.#closeListeners = undefined;
    for (const l of listeners ?? []) {
      try {
        l();
      } catch (e) {
        this.options.logger?.error?.('close listener failed', { error: String(e) });
      }
    }
  }

  // Lifecycle handlers shared by every session (handshake revisions): each reaches its session
  // through the context the engine passes (`ctx.session`).
  static #onInitialize: RequestHandler = (params: Params, ctx) => (ctx.session as ServerSession<ProtocolMaps>).#initialize(params);
  static #onInitialized: NotificationHandler = (_params, ctx) => {
    (ctx.session as ServerSession<ProtocolMaps>).#initialized = true;
  };
  static #onSetLevel: RequestHandler = (params: Params, ctx) => {
    (ctx.session as ServerSession<ProtocolMaps>).#logLevel = params.level as LogLevel;
    return {};
  };
  // The handshake tables: a session's handlers plus the lifecycle ones (`initialize` always;
  // `logging/setLevel` when `logging` is declared and not handled), built once per table object.
  static #requestTables = [new WeakMap<object, Record<string, RequestHandler>>(), new WeakMap<object, Record<string, RequestHandler>>()];
  static #notificationTables = new WeakMap<object, Record<string, NotificationHandler>>();
  static #none: Record<string, never> = Object.freeze({});

  static #handshakeRequests(handlers: Record<string, RequestHandler> | undefined, logging: boolean): Record<string, RequestHandler> {
    const base = handlers ?? ServerSession.#none;
    const setLevel = logging && !Object.prototype.hasOwnProperty.call(base, 'logging/setLevel');
    const cache = ServerSession.#requestTables[setLevel ? 1 : 0];
    let table = cache.get(base);
    if (!table) {
      table = { ...base, initialize: ServerSession.#onInitialize };
      if (setLevel) table['logging/setLevel'] = ServerSession.#onSetLevel;
      cache.set(base, Object.freeze(table));
    }
    return table;
  }

  static #handshakeNotifications(handlers: Record<string, NotificationHandler> | undefined): Record<string, NotificationHandler> {
    const base = handlers ?? ServerSession.#none;
    let table = ServerSession.#notificationTables.get(base);
    if (!table) {
      table = Object.freeze({ ...base, 'notifications/initialized': ServerSession.#onInitialized });
      ServerSession.#notificationTables.set(base, table);
    }
    return table;
  }

  /** Before `initialize`: anything but `initialize` and `ping` is refused with -32600. */
  static #beforeInitialize: PreDispatch = (req) =>
    req.method === 'initialize' || req.method === 'ping'
      ? undefined
      : new RpcError(ErrorCode.InvalidRequest, `${req.method} before initialize: the session is not initialized`);

  #initialize(params: Params) {
    const peer = this.peer;
    // one handshake per session: a repeated initialize would renegotiate mid-session (basic/lifecycle)
    if (this.#client) throw new RpcError(ErrorCode.InvalidRequest, `initialize: the session is already initialized (protocol version ${this.#client.protocolVersion})`);
    const requested = params.protocolVersion;
    const tables = [this.ownTable, ...(this.options.fallbackTables ?? [])].filter((t) => t.lifecycle === 'handshake');
    const table = tables.find((t) => t.protocolVersion === requested) ?? tables[0];
    this.#table = table;
    peer.setTable(table);
    this.#client = {
      protocolVersion: table.protocolVersion,
      capabilities: (params.capabilities as Record<string, unknown>) ?? {},
      clientInfo: params.clientInfo as Implementation | undefined,
    };
    // from now on every request of the negotiated table is admitted
    peer.setPreDispatch(undefined);
    // advertise (and serve) what the negotiated revision defines of the declared capabilities,
    // and send the client only what it declared (both enforced by the engine)
    const capabilities = capabilitiesOf(table, 'server', this.options.capabilities ?? {});
    peer.setCapabilities(capabilities);
    peer.setRemoteCapabilities(this.#client.capabilities);
    const result: Record<string, unknown> = {
      protocolVersion: table.protocolVersion,
      capabilities,
      serverInfo: this.options.serverInfo,
    };
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
    return result;
  }

  /** Wraps a stateless handler: resultType default, InputRequiredResult checks, caching hints. */
  #statelessHandler(method: string, h: RequestHandler): RequestHandler {
    return async (params, ctx) => {
      const r: unknown = await h(params, ctx);
      if (typeof r !== 'object' || r === null || Array.isArray(r)) return r;
      const out = (r as Params).resultType === undefined ? { resultType: 'complete', ...(r as Params) } : (r as Params);
      if (out.resultType === 'input_required') {
        const refusal = checkInputRequired(this.#table, ownValue(this.#table.requests.clientToServer, method), out, clientCapabilitiesOf(ctx));
        if (refusal) {
          if (refusal.code === ErrorCode.InternalError) this.options.logger?.error?.('invalid input_required result', { method, error: refusal.message });
          throw refusal;
        }
      }
      return applyCacheHints(method, out, this.options.cache);
    };
  }

  #discover() {
    const cache = this.options.cache;
    const result: Record<string, unknown> = {
      resultType: 'complete',
      supportedVersions: [this.#table.protocolVersion],
      // server/utilities/caching: discovery may be cached for a minute, by anyone (no user data)
      ...(cache?.methods?.['server/discover'] ?? { ttlMs: 60_000, cacheScope: 'public' }),
      capabilities: this.options.capabilities ?? {},
      _meta: { [`${META}serverInfo`]: this.options.serverInfo },
    };
    if (this.options.instructions !== undefined) result.instructions = this.options.instructions;
    return result;
  }

  #checkMeta(params: Params | undefined, _info: MessageInfo | undefined): RpcError | undefined {
    const meta = params?._meta as Params | undefined;
    const version = meta?.[`${META}protocolVersion`];
    if (typeof version !== 'string') return new RpcError(ErrorCode.InvalidParams, `missing _meta["${META}protocolVersion"]`);
    if (version !== this.#table.protocolVersion) {
      return new RpcError(errorCodeOf(this.#table, 'UNSUPPORTED_PROTOCOL_VERSION'), 'Unsupported protocol version', {
        supported: [this.#table.protocolVersion],
        requested: version,
      });
    }
    if (typeof meta?.[`${META}clientCapabilities`] !== 'object' || meta[`${META}clientCapabilities`] === null) {
      return new RpcError(ErrorCode.InvalidParams, `missing _meta["${META}clientCapabilities"]`);
    }
    return undefined;
  }

  /**
   * Continues a session whose handshake another process of the deployment answered (the HTTP
   * endpoint's `SessionInfo.restored`): negotiates `record.protocolVersion` with the client's
   * `capabilities` as `initialize` would have, and counts the session as initialized. Call it
   * after `connect`. @throws RpcError -32600 when this session is already initialized.
   */
  adoptHandshake(record: { protocolVersion: string; capabilities: Record<string, unknown>; clientInfo?: Record<string, unknown> }): void {
    this.#initialize({ protocolVersion: record.protocolVersion, capabilities: record.capabilities, clientInfo: record.clientInfo });
    this.#initialized = true;
  }

  /** True once the client sent `notifications/initialized`. */
  get initialized(): boolean {
    return this.#initialized;
  }

  /**
   * Sends a server→client request. Rejects with -32601 locally when the client did not declare
   * the capability it needs (e.g. `sampling`), else as the engine does.
   */
  request<M extends keyof P['serverRequests'] & string>(method: M, params: P['serverRequests'][M]['params'], options?: RequestOptions): Promise<P['serverRequests'][M]['result']> {
    const entry = ownValue(this.#table.requests.serverToClient, method);
    if (!entry || entry.embedded) {
      return Promise.reject(new RpcError(ErrorCode.MethodNotFound, `${method} is not a server request of protocol version ${this.#table.protocolVersion}`));
    }
    // the client's declared capabilities are checked by the engine for every request (Peer.request)
    if (options?.task) return requestAsTask(this, method, params, options);
    return this.peer.request(method, params as Params | undefined, options);
  }

  /**
   * Sends a notification to the client. Stateless revisions: list_changed and resources/updated
   * are published to the listen streams whose filter accepts them (none open: nothing is sent).
   */
  notify<M extends keyof P['serverNotifications'] & string>(method: M, params: P['serverNotifications'][M]['params']): Promise<void> {
    if (this.#hub && LISTEN_NOTIFICATIONS.includes(method)) {
      this.#hub.publish(method, params as Params | undefined);
      // the listen streams of the other processes (a bus that cannot be reached loses the change for them)
      this.options.listenBus?.publish({ topic: 'listen', sessionId: '', payload: { method, params } }).catch((e: Error) => this.options.logger?.warn?.(`listen bus: ${e.message}`));
      return Promise.resolve();
    }
    return this.peer.notify(method, params as Params | undefined);
  }

  /**
   * Sends notifications/message when `level` is at or above the level the client set with
   * logging/setLevel (all levels until it sets one). Resolves false when filtered out, and
   * always in stateless revisions, where log messages belong to a request: use `ctx.log()`.
   */
  async log(level: LogLevel, data: unknown, logger?: string): Promise<boolean> {
    if (this.#table.lifecycle === 'stateless') return false;
    if (this.#logLevel && !passesLogLevel(logLevelOrderOf(this.#table), level, this.#logLevel)) return false;
    const params: Params = { level, data };
    if (logger !== undefined) params.logger = logger;
    await this.peer.notify('notifications/message', params);
    return true;
  }

  /** Ends open listen streams gracefully (stateless), then closes the connection. */
  async close(): Promise<void> {
    if (this.#hub && this.#peer && !this.#peer.closed) await this.#hub.close();
    return this.#peer?.close();
  }
}
