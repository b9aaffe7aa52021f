/**
 * `ClientSession<P>`: the client facade, written once and typed over a generated method map
 * `P` (protocol.gen.ts `Protocol`). Generated `Client` classes add the named one-liners.
 *
 * Lifecycle (2025-11-25 basic/lifecycle): `connect()` sends `initialize` with the revision's
 * protocol version, accepts the server's answer only if it names a version this client
 * supports (its own table or one of `fallbackTables`; otherwise UnsupportedVersionError and
 * the connection is closed), then sends `notifications/initialized`. From then on the
 * negotiated revision's table validates every message. Stateless revisions (2026-07-28+) send
 * `server/discover` instead and put the protocol version, client capabilities and client info
 * into every request's `_meta`.
 */
import { ErrorCode, RpcError } from './errors.js';
import { type Logger, Peer, type RequestContext, type RequestOptions as PeerRequestOptions, hasCapability } from './peer.js';
import type { Params } from './jsonrpc.js';
import type { ProtocolMaps, ProtocolTable } from './table.js';
import type { Transport } from './transport/types.js';
import type { TaskMetadata } from './tasks.js';
import { type TaskHandle, requestAsTask } from './task-requestor.js';

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

/** An implementation's name and version (`Implementation` in the schema). */
export interface Implementation {
  name: string;
  version: string;
  [key: string]: unknown;
}

/**
 * Params as a client passes them: `_meta` optional (stateless revisions require it on the wire;
 * the session fills in protocol version, capabilities and client info).
 */
export type ClientParams<T> = T extends { _meta: infer M } ? Omit<T, '_meta'> & { _meta?: Partial<M> } : T;
/** Handlers a client may register for server→client requests (sampling, elicitation, roots). */
export type ClientRequestHandlers<P extends ProtocolMaps> = {
  [M in keyof P['serverRequests']]?: (params: P['serverRequests'][M]['params'], ctx: RequestContext) => P['serverRequests'][M]['result'] | P['serverRequests'][M]['alt'] | Promise<P['serverRequests'][M]['result'] | P['serverRequests'][M]['alt']>;
};
/** Handlers for server notifications (progress and cancellation are handled by the engine). */
export type ClientNotificationHandlers<P extends ProtocolMaps> = {
  [M in keyof P['serverNotifications']]?: (params: P['serverNotifications'][M]['params']) => void | Promise<void>;
};

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
}

/** The protocol version the server answered with is not one this client speaks. */
export class UnsupportedVersionError extends RpcError {
  constructor(readonly requested: string, readonly answered: unknown, readonly supported: readonly string[]) {
    super(ErrorCode.UnsupportedProtocolVersion, `server answered protocol version ${JSON.stringify(answered)}; this client supports ${supported.join(', ')} (requested ${requested})`, {
      supported,
      requested,
    });
    this.name = 'UnsupportedVersionError';
  }
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

const META = 'io.modelcontextprotocol/';

export class ClientSession<P extends ProtocolMaps> {
  #peer: Peer | undefined;
  #server: ServerDescription | undefined;
  #table: ProtocolTable;

  constructor(
    readonly requestedTable: ProtocolTable,
    readonly options: ClientSessionOptions<P>,
  ) {
    this.#table = requestedTable;
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
    if (!this.#peer) throw new RpcError(ErrorCode.InternalError, 'client is not connected: call connect(transport) first');
    return this.#peer;
  }

  /**
   * Connects over `transport` and runs the lifecycle. Resolves with the server's description;
   * rejects with UnsupportedVersionError (connection closed) or the server's error.
   */
  async connect(transport: Transport, options: { signal?: AbortSignal; timeout?: number } = {}): Promise<ServerDescription> {
    const o = this.options;
    const peer = new Peer({
      side: 'client',
      table: this.#table,
      transport,
      capabilities: o.capabilities ?? {},
      requestHandlers: (o.handlers ?? {}) as never,
      notificationHandlers: Object.fromEntries(Object.entries(o.notificationHandlers ?? {}).map(([m, h]) => [m, (params: unknown) => (h as (p: unknown) => unknown)(params)])) as never,
      logger: o.logger,
      timeout: o.timeout,
    });
    this.#peer = peer;
    await peer.start();
    const capabilities = o.capabilities ?? {};
    if (this.#table.lifecycle === 'stateless') {
      const result = await peer.request<Record<string, unknown>>('server/discover', this.#withMeta({}), options);
      const versions = (result.supportedVersions as string[] | undefined) ?? [];
      if (versions.length && !versions.includes(this.#table.protocolVersion)) {
        await peer.close();
        throw new UnsupportedVersionError(this.#table.protocolVersion, versions, [this.#table.protocolVersion]);
      }
      this.#server = {
        protocolVersion: this.#table.protocolVersion,
        capabilities: (result.capabilities as Record<string, unknown>) ?? {},
        serverInfo: (result.serverInfo ?? (result._meta as Params | undefined)?.[`${META}serverInfo`]) as Implementation | undefined,
        instructions: result.instructions as string | undefined,
        result,
      };
      return this.#server;
    }
    const requested = this.#table.protocolVersion;
    const result = await peer.request<Record<string, unknown>>(
      'initialize',
      { protocolVersion: requested, capabilities, clientInfo: o.clientInfo },
      options,
    );
    const answered = result.protocolVersion;
    const tables = [this.requestedTable, ...(o.fallbackTables ?? [])];
    const match = tables.find((t) => t.protocolVersion === answered && t.lifecycle === 'handshake');
    if (!match) {
      await peer.close();
      throw new UnsupportedVersionError(requested, answered, tables.map((t) => t.protocolVersion));
    }
    this.#table = match;
    (peer as unknown as { table: ProtocolTable }).table = match;
    this.#server = {
      protocolVersion: match.protocolVersion,
      capabilities: (result.capabilities as Record<string, unknown>) ?? {},
      serverInfo: result.serverInfo as Implementation | undefined,
      instructions: result.instructions as string | undefined,
      result,
    };
    await peer.notify('notifications/initialized', {});
    return this.#server;
  }

  #withMeta(params: Params | undefined): Params {
    if (this.#table.lifecycle !== 'stateless') return params ?? {};
    const meta = { ...((params?._meta as Params | undefined) ?? {}) };
    meta[`${META}protocolVersion`] = this.#table.protocolVersion;
    meta[`${META}clientCapabilities`] = this.options.capabilities ?? {};
    meta[`${META}clientInfo`] = this.options.clientInfo;
    return { ...(params ?? {}), _meta: meta };
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
    const entry = this.#table.requests.clientToServer[method];
    if (!entry) {
      return Promise.reject(new RpcError(ErrorCode.MethodNotFound, `${method} is not a client request of protocol version ${this.#table.protocolVersion}`));
    }
    if (this.options.enforceCapabilities !== false && entry.capability && this.#server && !hasCapability(this.#server.capabilities, entry.capability)) {
      return Promise.reject(new RpcError(ErrorCode.MethodNotFound, `${method}: the server did not declare capability ${entry.capability.join('.')}`));
    }
    if (options?.task) return requestAsTask(this, method, params, options);
    return this.peer.request(method, this.#withMeta(params as Params | undefined), options);
  }

  /** Sends one notification. */
  notify<M extends keyof P['clientNotifications'] & string>(method: M, params: P['clientNotifications'][M]['params']): Promise<void> {
    return this.peer.notify(method, params as Params | undefined);
  }

  /** Closes the connection; pending requests reject with ConnectionClosedError. */
  close(): Promise<void> {
    return this.#peer?.close() ?? Promise.resolve();
  }
}
