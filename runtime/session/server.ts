/**
 * `ServerSession<P>`: the server facade, written once and typed over a generated method map
 * `P`. Generated `Server` classes add the named one-liners (`createMessage`, `elicit`, …).
 *
 * Lifecycle: the strategy of the table's `lifecycle` (./lifecycle/handshake.ts or
 * ./lifecycle/stateless.ts), picked when the session is made. Handshake revisions (2025-11-25
 * basic/lifecycle): `initialize` is answered with the client's version
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
import { type Logger, Peer, type RequestContext, hasCapability } from '../engine/peer.js';
import { type ProtocolMaps, type ProtocolTable, refuseOtherEra } from '../protocol/table.js';
import { ownValue } from '../jsonrpc/own.js';
import type { Transport } from '../jsonrpc/transport.js';
import type { RequestOptions } from './client.js';
import { requestAsTask } from '../tasks/request-as-task.js';
import { RequestStateSealer } from '../stateless/request-state.js';
import type { CachePolicy } from '../stateless/cache.js';
import type { SubscriptionHub } from '../stateless/subscriptions.js';
import type { NotificationBus } from '../stores/bus.js';
import { type LogLevel, STDERR_LOGGER, setLogThreshold } from '../engine/context.js';
import {
  type Implementation,
  SET_TABLE,
  type ServerLifecycle,
  type ServerLifecycleFactory,
} from './lifecycle/strategy.js';
import { handshakeServer } from './lifecycle/handshake.js';
import { statelessServer } from './lifecycle/stateless.js';

/** A handler per client request method of `P`: typed params and request context in, the method's result (or its alternative result) out; throw an {@link RpcError} to answer with an error. */
export type ServerRequestHandlers<P extends ProtocolMaps> = {
  [M in keyof P['clientRequests']]?: (
    params: P['clientRequests'][M]['params'],
    ctx: RequestContext,
  ) =>
    | P['clientRequests'][M]['result']
    | P['clientRequests'][M]['alt']
    | Promise<P['clientRequests'][M]['result'] | P['clientRequests'][M]['alt']>;
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
  /**
   * Where the server's own failures go: a handler that throws, a result that fails its schema or
   * cannot be serialised, each with the handler's name (tool, prompt, resource) and the error.
   * Default: errors on stderr (`STDERR_LOGGER`, stdio-safe); `{}` logs nothing.
   */
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
   * RequestStateSealerOptions in ../stateless/request-state.ts); share one among sessions. Overrides the two above.
   */
  requestStateSealer?: RequestStateSealer;
  /**
   * Stateless: may this listen request subscribe to this resource URI? `ctx` is the listen
   * request's context: its principal (`ctx.auth`) decides on a protected endpoint. Default: any,
   * when `resources.subscribe` is declared.
   */
  canSubscribe?: (uri: string, ctx: RequestContext) => boolean;
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

/** The lifecycle strategy of each `table.lifecycle`. */
const LIFECYCLES = { handshake: handshakeServer, stateless: statelessServer } as const satisfies Record<
  ProtocolTable['lifecycle'],
  ServerLifecycleFactory
>;

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
  /** The strategy of the table's lifecycle. */
  readonly #lifecycle: ServerLifecycle;
  #sealer: RequestStateSealer | undefined;
  #closeListeners: Array<() => void> | undefined;

  /** This session's options: a shallow copy of those given (so that one session's changes, e.g. a task receiver's handlers, stay its own). */
  readonly options: ServerSessionOptions<P>;

  constructor(
    readonly ownTable: ProtocolTable,
    options: ServerSessionOptions<P>,
  ) {
    this.#table = ownTable;
    this.options = options.logger ? { ...options } : { ...options, logger: STDERR_LOGGER };
    this.#lifecycle = LIFECYCLES[ownTable.lifecycle](this as ServerSession<ProtocolMaps>);
  }

  /** @hidden The lifecycle's hook (its host is the session): switches this session and its engine to `table`. */
  [SET_TABLE](table: ProtocolTable): void {
    this.#table = table;
    this.peer.setTable(table);
  }

  get table(): ProtocolTable {
    return this.#table;
  }
  /** What the client said in `initialize` (handshake revisions). */
  get client():
    | { protocolVersion: string; capabilities: Record<string, unknown>; clientInfo?: Implementation }
    | undefined {
    return this.#lifecycle.client;
  }
  get peer(): Peer {
    if (!this.#peer)
      throw new RpcError(ErrorCode.InternalError, 'server is not connected: call connect(transport) first');
    return this.#peer;
  }
  /** Stateless: the open `subscriptions/listen` streams of this connection (set once connected). */
  get subscriptions(): SubscriptionHub | undefined {
    return this.#lifecycle.subscriptions;
  }
  /**
   * Stateless: seals and verifies `requestState` with this server's secret (../stateless/request-state.ts): in a
   * handler, `requestState.seal(ctx, data)` binds the state to the request `ctx` serves (method,
   * tool/prompt name or resource URI, principal, expiry) and `requestState.open(ctx)` returns the
   * data of the state a retry carries (undefined: none), refusing one issued for another request
   * with -32602.
   */
  get requestState(): RequestStateSealer {
    this.#sealer ??=
      this.options.requestStateSealer ??
      new RequestStateSealer({ secret: this.options.requestStateSecret, ttlMs: this.options.requestStateTtlMs });
    return this.#sealer;
  }

  /**
   * Serves one connection over `transport` until it closes. A handshake session shares its
   * handler tables with every session given the same handler objects: they are combined once
   * with the lifecycle handlers (`initialize`, `notifications/initialized`, `logging/setLevel`),
   * which reach their session as `ctx.session`.
   */
  async connect(transport: Transport): Promise<void> {
    // a transport bound to the other era would refuse this revision's clients at run time
    if (transport.lifecycle !== undefined)
      refuseOtherEra(transport.constructor.name, transport.lifecycle, [this.#table]);
    const o = this.options;
    const capabilities = o.capabilities ?? {};
    const lifecycle = this.#lifecycle;
    const handlers = lifecycle.handlers();
    const peer = new Peer({
      side: 'server',
      table: this.#table,
      transport,
      capabilities,
      requestHandlers: handlers.requests,
      notificationHandlers: handlers.notifications,
      logger: o.logger,
      timeout: o.timeout,
      extensionMethods: o.extensionMethods,
      session: this,
      onClose: () => this.#closed(),
    });
    this.#peer = peer;
    lifecycle.attach(peer);
    // ctx.log(): from the lifecycle's threshold, in the negotiated revision's order
    // (table.loggingLevels); none without `logging`
    if (hasCapability(capabilities, ['logging'])) setLogThreshold(peer, lifecycle);
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

  /**
   * Continues a session whose handshake another process of the deployment answered (the HTTP
   * endpoint's `SessionInfo.restored`): negotiates `record.protocolVersion` with the client's
   * `capabilities` as `initialize` would have, and counts the session as initialized. Call it
   * after `connect`. @throws RpcError -32600 when this session is already initialized.
   */
  adoptHandshake(record: {
    protocolVersion: string;
    capabilities: Record<string, unknown>;
    clientInfo?: Record<string, unknown>;
  }): void {
    this.#lifecycle.adoptHandshake(record);
  }

  /** True once the client sent `notifications/initialized`. */
  get initialized(): boolean {
    return this.#lifecycle.initialized;
  }

  /**
   * Sends a server→client request. Rejects with -32601 locally when the client did not declare
   * the capability it needs (e.g. `sampling`), else as the engine does.
   */
  request<M extends keyof P['serverRequests'] & string>(
    method: M,
    params: P['serverRequests'][M]['params'],
    options?: RequestOptions,
  ): Promise<P['serverRequests'][M]['result']> {
    const entry = ownValue(this.#table.requests.serverToClient, method);
    if (!entry || entry.embedded) {
      return Promise.reject(
        new RpcError(
          ErrorCode.MethodNotFound,
          `${method} is not a server request of protocol version ${this.#table.protocolVersion}`,
        ),
      );
    }
    // the client's declared capabilities are checked by the engine for every request (Peer.request)
    if (options?.task) return requestAsTask(this, method, params, options);
    return this.peer.request(method, params as Params | undefined, options);
  }

  /**
   * Sends a notification to the client. Stateless revisions: list_changed and resources/updated
   * are published to the listen streams whose filter accepts them (none open: nothing is sent).
   */
  notify<M extends keyof P['serverNotifications'] & string>(
    method: M,
    params: P['serverNotifications'][M]['params'],
  ): Promise<void> {
    if (this.#lifecycle.route(method, params as Params | undefined)) return Promise.resolve();
    return this.peer.notify(method, params as Params | undefined);
  }

  /**
   * Sends notifications/message when `level` is at or above the level the client set with
   * logging/setLevel (all levels until it sets one). Resolves false when filtered out, and
   * always in stateless revisions, where log messages belong to a request: use `ctx.log()`.
   */
  log(level: LogLevel, data: unknown, logger?: string): Promise<boolean> {
    return this.#lifecycle.log(level, data, logger);
  }

  /** Ends open listen streams gracefully (stateless), then closes the connection. */
  async close(): Promise<void> {
    await this.#lifecycle.close();
    return this.#peer?.close();
  }
}
