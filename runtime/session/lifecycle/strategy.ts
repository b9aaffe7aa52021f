/**
 * The two lifecycles of MCP as strategies the session facades (../client.ts, ../server.ts) pick
 * once from a revision's table (`table.lifecycle`, a generated fact), so the facades never branch
 * on the era themselves:
 * - `handshake` (./handshake.ts; 2025-11-25 and older, basic/lifecycle): `initialize` /
 *   `notifications/initialized`, version negotiation and capabilities once per connection,
 *   HTTP sessions;
 * - `stateless` (./stateless.ts; 2026-07-28 and later, basic/versioning): no handshake; the
 *   protocol version, client capabilities and client info travel in every request's `_meta`,
 *   `server/discover` describes the server, with multi round-trip requests, the result cache and
 *   `subscriptions/listen` on top.
 *
 * A strategy is an object per session, made by its module's factory from a host: the narrow
 * view of the facade it works on (its options, its current table and engine, and the setters of
 * the state the facade exposes). This module holds what both lifecycles share: those interfaces,
 * what a client learns of a server, and the version error.
 */
import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import type { Params } from '../../jsonrpc/message.js';
import type { Transport } from '../../jsonrpc/transport.js';
import type {
  Logger,
  NotificationHandler,
  Peer,
  RequestHandler,
  RequestOptions as PeerRequestOptions,
} from '../../engine/peer.js';
import type { LogLevel, LogThreshold, RequestContext } from '../../engine/context.js';
import type { MethodEntry, ProtocolTable } from '../../protocol/table.js';
import type { ResultCache, ResultCacheOptions } from '../../stateless/cache.js';
import type { CachePolicy } from '../../stateless/cache.js';
import type { InputHandler } from '../../stateless/mrtr.js';
import type {
  ListenOptions,
  Subscription,
  SubscriptionFilter,
  SubscriptionHub,
  SubscriptionRouter,
} from '../../stateless/subscriptions.js';
import type { NotificationBus } from '../../stores/bus.js';

/** An implementation's name and version (`Implementation` in the schema). */
export interface Implementation {
  name: string;
  version: string;
  [key: string]: unknown;
}

/** What the handshake (or discovery) learned about the server. */
export interface ServerDescription {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo: Implementation | undefined;
  instructions: string | undefined;
  /** The whole `initialize` (or `server/discover`) result. */
  result: Record<string, unknown>;
}

/** The protocol version the server answered with is not one this client speaks. */
export class UnsupportedVersionError extends RpcError {
  constructor(
    readonly requested: string,
    readonly answered: unknown,
    readonly supported: readonly string[],
  ) {
    super(
      ErrorCode.UnsupportedProtocolVersion,
      `server answered protocol version ${JSON.stringify(answered)}; this client supports ${supported.join(', ')} (requested ${requested})`,
      {
        supported,
        requested,
      },
    );
    this.name = 'UnsupportedVersionError';
  }
}

/** The `_meta` key prefix of the protocol's own entries (`io.modelcontextprotocol/protocolVersion`…). */
export const META = 'io.modelcontextprotocol/';

/** What a `connect` may be given: an abort signal and a timeout (ms) for its first exchange. */
export interface ConnectOptions {
  signal?: AbortSignal;
  timeout?: number;
}

/** The client options a lifecycle reads (a subset of ../client.ts `ClientSessionOptions`). */
export interface ClientLifecycleOptions {
  readonly clientInfo: Implementation;
  readonly capabilities?: Record<string, unknown>;
  readonly handlers?: Readonly<Record<string, InputHandler | undefined>>;
  readonly fallbackTables?: readonly ProtocolTable[];
  readonly enforceCapabilities?: boolean;
  readonly timeout?: number;
  readonly logger?: Logger;
  readonly maxInputRounds?: number;
  readonly cache?: false | ResultCacheOptions;
}

/** The view of a `ClientSession` its lifecycle works on. */
export interface ClientHost {
  readonly options: ClientLifecycleOptions;
  /** The table the session was made with. */
  readonly requestedTable: ProtocolTable;
  /** The current table (the requested one until a version is agreed). */
  readonly table: ProtocolTable;
  /** The engine (throws before `connect`). */
  readonly peer: Peer;
  /** The stateless result cache and listen router (undefined until a stateless lifecycle made them; the cache also when turned off). */
  readonly cache: ResultCache | undefined;
  readonly subscriptions: SubscriptionRouter | undefined;
  /** Hands the session the cache and router a stateless lifecycle made (once per session). */
  setStateless(cache: ResultCache | undefined, subscriptions: SubscriptionRouter): void;
  /** Switches the session and its engine to `table`, and to `table`'s lifecycle when it is the other one. */
  setTable(table: ProtocolTable): void;
  /** Records what was learned of the server (the session's `server`). */
  setServer(server: ServerDescription): void;
}

/** A client's lifecycle: how it connects, sends requests and listens. */
export interface ClientLifecycle {
  /**
   * The server notifications the engine takes: every one of the table, or those with a user
   * handler (`handled`) plus what the session itself follows (list_changed of tools).
   */
  notificationMethods(handled: readonly string[]): string[];
  /**
   * Runs the lifecycle on the started engine. Resolves with the server's description, or with
   * undefined after switching the session to a table of the other lifecycle (the dual-era
   * probe), whose lifecycle then connects. Rejects with UnsupportedVersionError (connection
   * closed) or the server's error.
   */
  connect(transport: Transport, options: ConnectOptions): Promise<ServerDescription | undefined>;
  /** Set while requests must wait (a new HTTP session being initialized). */
  readonly pending: Promise<void> | undefined;
  /**
   * Sends one request of the current table (`entry` its row) and resolves with its result, or
   * with what `after` makes of it (a value or a promise; a throw rejects): the session's own
   * step on results (the `tools/call` output check), taken without a promise of its own.
   * `self`: what `after` is called on (its `this`), so that one function serves every call.
   */
  request(
    method: string,
    entry: MethodEntry,
    params: Params | undefined,
    options: PeerRequestOptions | undefined,
    after?: ResultStep,
    self?: unknown,
  ): Promise<Record<string, unknown>>;
  /**
   * Sends a request outside the table (an extension's method): as the lifecycle sends every
   * request (a stateless one with the per-request `_meta` and the version fallback), its result
   * not validated and no input round run.
   */
  extensionRequest(
    method: string,
    params: Params | undefined,
    options: PeerRequestOptions | undefined,
  ): Promise<Record<string, unknown>>;
  /** Opens a `subscriptions/listen` stream; throws RpcError -32601 where the lifecycle has none. */
  listen(filter: SubscriptionFilter, options: ListenOptions): Subscription;
}

/** A step applied to a request's result before its promise settles: the value, or a promise of it. */
export type ResultStep = (
  result: Record<string, unknown>,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** The server options a lifecycle reads (a subset of ../server.ts `ServerSessionOptions`). */
export interface ServerLifecycleOptions {
  readonly serverInfo: Implementation;
  readonly capabilities?: Record<string, unknown>;
  readonly instructions?: string;
  readonly handlers?: object;
  readonly notificationHandlers?: object;
  readonly fallbackTables?: readonly ProtocolTable[];
  readonly logger?: Logger;
  readonly cache?: CachePolicy;
  readonly canSubscribe?: (uri: string, ctx: RequestContext) => boolean;
  readonly listenBus?: NotificationBus;
}

/**
 * Switches a server session and its engine to another table: the {@link ServerHost} method only
 * a lifecycle calls (a symbol, so that it stays off the session's public surface).
 */
export const SET_TABLE: unique symbol = Symbol('setTable');

/**
 * The view of a `ServerSession` its lifecycle works on: the session itself (what handlers see
 * as `ctx.session`), so that a session makes no second object for it.
 */
export interface ServerHost {
  /** The session's options, read when it connects. */
  readonly options: ServerLifecycleOptions;
  /** The table the session was made with. */
  readonly ownTable: ProtocolTable;
  /** The current (negotiated) table. */
  readonly table: ProtocolTable;
  /** The engine (throws before `connect`). */
  readonly peer: Peer;
  /** Switches the session and its engine to `table`. */
  [SET_TABLE](table: ProtocolTable): void;
  /** Calls `listener` once when the connection closes; returns its removal. */
  onClose(listener: () => void): () => void;
}

/** What a handshake server learned from `initialize`. */
export interface ClientDescription {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  clientInfo?: Implementation;
}

/**
 * A server's lifecycle: what the engine serves, what it checks before dispatch, how it logs
 * (the level `ctx.log()` of a request passes from, with `logging` declared) and notifies.
 */
export interface ServerLifecycle extends LogThreshold {
  /** The engine's handler tables, from the session's handlers and the lifecycle's own. */
  handlers(): {
    requests: Record<string, RequestHandler>;
    notifications: Record<string, NotificationHandler> | undefined;
  };
  /** Sets the lifecycle's hooks on the engine (made with {@link handlers}, not yet started). */
  attach(peer: Peer): void;
  /** What the client said in `initialize` (handshake). */
  readonly client: ClientDescription | undefined;
  /** True once the client sent `notifications/initialized` (handshake). */
  readonly initialized: boolean;
  /** The open `subscriptions/listen` streams (stateless, once connected). */
  readonly subscriptions: SubscriptionHub | undefined;
  /** Continues a handshake another process answered; @throws RpcError -32600 when it cannot. */
  adoptHandshake(record: {
    protocolVersion: string;
    capabilities: Record<string, unknown>;
    clientInfo?: Record<string, unknown>;
  }): void;
  /** Delivers a notification itself (listen streams) and returns true, or false: the session sends it on the connection. */
  route(method: string, params: Params | undefined): boolean;
  /** The session's `log()`: resolves true when notifications/message was sent. */
  log(level: LogLevel, data: unknown, logger: string | undefined): Promise<boolean>;
  /** Ends what the lifecycle holds open (listen streams) before the connection closes. */
  close(): Promise<void>;
}

/** Makes a client's lifecycle for the host's table (the table it starts from). */
export type ClientLifecycleFactory = (host: ClientHost) => ClientLifecycle;
/** Makes a server's lifecycle. */
export type ServerLifecycleFactory = (host: ServerHost) => ServerLifecycle;
