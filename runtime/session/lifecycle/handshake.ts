/**
 * The handshake lifecycle (2025-11-25 basic/lifecycle, and every older revision): the tables
 * whose `lifecycle` is `handshake`.
 *
 * Client: `connect` sends `initialize` with the revision's protocol version, accepts the answer
 * only when it names a version of a handshake table it has (the requested one or a
 * `fallbackTables` entry; else UnsupportedVersionError and the connection is closed), switches
 * to that table, then sends `notifications/initialized`. Over Streamable HTTP the negotiated
 * version goes to the transport's `setProtocolVersion`; when the server drops the session
 * (404), the request in flight fails and is not resent (case 006), the handshake runs again on
 * a new session, requests made meanwhile wait for it, and a hook set on the transport before
 * `connect` runs after it.
 *
 * Server: `initialize` is answered with the client's version when this server speaks it (its
 * own table or a handshake `fallbackTables` entry), else with its own latest; requests other
 * than `initialize` and `ping` before it get -32600, a second `initialize` too. The result
 * advertises the declared capabilities the negotiated revision defines, and only those gate
 * inbound requests. `logging/setLevel` is handled when `logging` is declared and the session
 * has no handler of its own; `log()` filters by that level (server/utilities/logging).
 */
import { ErrorCode, RpcError } from '../../jsonrpc/errors.js';
import type { Params } from '../../jsonrpc/message.js';
import { ownValue } from '../../jsonrpc/own.js';
import type { Transport } from '../../jsonrpc/transport.js';
import { type NotificationHandler, type PreDispatch, type RequestHandler, hasCapability } from '../../engine/peer.js';
import { type LogLevel, type LogLevelOrder, logLevelOrderOf, passesLogLevel } from '../../engine/context.js';
import { type MethodEntry, capabilitiesOf } from '../../protocol/table.js';
import { type RequestHost, sendRequest } from '../../engine/request.js';
import { lazy } from '../../jsonrpc/lazy.js';
import type { InputHandler } from '../../stateless/mrtr.js';
import {
  type ClientDescription,
  type ClientHost,
  type ClientLifecycle,
  type ConnectOptions,
  type Implementation,
  type ResultStep,
  type ServerDescription,
  SET_TABLE,
  type ServerHost,
  type ServerLifecycle,
  UnsupportedVersionError,
} from './strategy.js';

const TOOLS_CHANGED = 'notifications/tools/list_changed';

/** The multi round-trip loop, for a revision whose requests may be answered input_required (none of the pinned handshake ones). */
const mrtr = lazy(() => import('../../stateless/mrtr.js'));

/** What the handshake uses of an HTTP client transport (../../transport/http/session/node-client.ts). */
interface HttpLifecycle {
  setProtocolVersion?(version: string): void;
  onSessionExpired?: ((info: { sessionId: string }) => void | Promise<void>) | undefined;
}

/** The client side of the handshake lifecycle (see the module doc). */
export function handshakeClient(host: ClientHost): ClientLifecycle {
  return new HandshakeClient(host);
}

class HandshakeClient implements ClientLifecycle {
  /** Set while a new session is being initialized after the old one expired (case 006). */
  #reinit: Promise<void> | undefined;

  constructor(readonly host: ClientHost) {}

  get pending(): Promise<void> | undefined {
    return this.#reinit;
  }

  notificationMethods(handled: readonly string[]): string[] {
    return [
      ...new Set([
        ...handled,
        ...(ownValue(this.host.table.notifications.serverToClient, TOOLS_CHANGED) ? [TOOLS_CHANGED] : []),
      ]),
    ];
  }

  connect(transport: Transport, options: ConnectOptions): Promise<ServerDescription> {
    const http = transport as Transport & HttpLifecycle;
    if ('onSessionExpired' in http) {
      const hook = http.onSessionExpired;
      http.onSessionExpired = async (info) => {
        const again = (this.#reinit ??= this.#handshake(http, {})
          .then(() => undefined)
          .finally(() => (this.#reinit = undefined)));
        await again;
        await hook?.(info);
      };
    }
    return this.#handshake(http, options);
  }

  /** `initialize`, version check, `notifications/initialized`; over HTTP also the transport's `MCP-Protocol-Version`. */
  async #handshake(http: Transport & HttpLifecycle, options: ConnectOptions): Promise<ServerDescription> {
    const { host } = this;
    const o = host.options;
    const peer = host.peer;
    // the requested table, or the handshake table a dual-era probe fell back to
    const requested = (host.requestedTable.lifecycle === 'handshake' ? host.requestedTable : host.table)
      .protocolVersion;
    const result = await peer.request<Record<string, unknown>>(
      'initialize',
      { protocolVersion: requested, capabilities: o.capabilities ?? {}, clientInfo: o.clientInfo },
      options,
    );
    const answered = result.protocolVersion;
    const tables = [host.requestedTable, ...(o.fallbackTables ?? [])];
    const match = tables.find((t) => t.protocolVersion === answered && t.lifecycle === 'handshake');
    if (!match) {
      await peer.close();
      throw new UnsupportedVersionError(
        requested,
        answered,
        tables.map((t) => t.protocolVersion),
      );
    }
    host.setTable(match);
    const server: ServerDescription = {
      protocolVersion: match.protocolVersion,
      capabilities: (result.capabilities as Record<string, unknown>) ?? {},
      serverInfo: result.serverInfo as Implementation | undefined,
      instructions: result.instructions as string | undefined,
      result,
    };
    host.setServer(server);
    if (o.enforceCapabilities !== false) peer.setRemoteCapabilities(server.capabilities);
    http.setProtocolVersion?.(match.protocolVersion);
    await peer.notify('notifications/initialized', {});
    return server;
  }

  extensionRequest(
    method: string,
    params: Params | undefined,
    options: Parameters<ClientLifecycle['request']>[3],
  ): Promise<Record<string, unknown>> {
    return this.host.peer.request<Record<string, unknown>>(method, params, options);
  }

  /**
   * Sends the request; one that the revision lets a server answer with an InputRequiredResult
   * (`entry.inputRequired`: drafts with multi round-trip requests and the handshake) runs its
   * input rounds as a stateless client does (../../stateless/mrtr.ts, imported on first use).
   */
  request(
    method: string,
    entry: MethodEntry | undefined,
    params: Params | undefined,
    options: Parameters<ClientLifecycle['request']>[3],
    after?: ResultStep,
    self?: unknown,
  ): Promise<Record<string, unknown>> {
    if (!entry?.inputRequired)
      return sendRequest(
        this.host.peer as unknown as RequestHost,
        method,
        params ?? {},
        options,
        after as ((r: unknown) => unknown) | undefined,
        undefined,
        self,
      );
    return this.#withInputRounds(method, entry, params, options, after, self);
  }

  async #withInputRounds(
    method: string,
    entry: MethodEntry,
    params: Params | undefined,
    options: Parameters<ClientLifecycle['request']>[3],
    after: ResultStep | undefined,
    self: unknown,
  ): Promise<Record<string, unknown>> {
    const { host } = this;
    const { runInputRounds } = await mrtr.load();
    const { result } = await runInputRounds({
      table: host.table,
      entry,
      params: params ?? {},
      send: (attempt) =>
        host.peer.request<Record<string, unknown>>(method, attempt, { ...options, validateResult: false }),
      handlers: (host.options.handlers ?? {}) as Record<string, InputHandler>,
      capabilities: host.options.capabilities ?? {},
      maxRounds: host.options.maxInputRounds,
      validate: options?.validateResult ?? true,
      signal: options?.signal,
    });
    return after === undefined ? result : after.call(self, result);
  }

  listen(): never {
    throw new RpcError(
      ErrorCode.MethodNotFound,
      `subscriptions/listen is not a method of protocol version ${this.host.table.protocolVersion}`,
    );
  }
}

/** The server side of the handshake lifecycle (see the module doc). */
export function handshakeServer(host: ServerHost): ServerLifecycle {
  return new HandshakeServer(host);
}

/** Each session's handshake state, for the lifecycle handlers all sessions share (they get `ctx.session`). */
const states = new WeakMap<object, HandshakeServer>();
const stateOf = (session: object | undefined): HandshakeServer => {
  const state = session && states.get(session);
  if (!state) throw new RpcError(ErrorCode.InternalError, 'handshake handler called outside a handshake session');
  return state;
};

const onInitialize: RequestHandler = (params: Params, ctx) => stateOf(ctx.session).initialize(params);
const onInitialized: NotificationHandler = (_params, ctx) => {
  stateOf(ctx.session).initialized = true;
};
const onSetLevel: RequestHandler = (params: Params, ctx) => {
  stateOf(ctx.session).logLevel = params.level as LogLevel;
  return {};
};

// The handler tables: a session's handlers plus the lifecycle ones (`initialize` always;
// `logging/setLevel` when `logging` is declared and not handled), built once per table object
// and shared by every session given it.
const requestTables = [
  new WeakMap<object, Record<string, RequestHandler>>(),
  new WeakMap<object, Record<string, RequestHandler>>(),
];
const notificationTables = new WeakMap<object, Record<string, NotificationHandler>>();
const none: Record<string, never> = /* @__PURE__ */ Object.freeze({});

function requestTable(handlers: object | undefined, logging: boolean): Record<string, RequestHandler> {
  const base = (handlers ?? none) as Record<string, RequestHandler>;
  const setLevel = logging && !Object.hasOwn(base, 'logging/setLevel');
  const cache = requestTables[setLevel ? 1 : 0];
  let table = cache.get(base);
  if (!table) {
    table = { ...base, initialize: onInitialize };
    if (setLevel) table['logging/setLevel'] = onSetLevel;
    cache.set(base, Object.freeze(table));
  }
  return table;
}

function notificationTable(handlers: object | undefined): Record<string, NotificationHandler> {
  const base = (handlers ?? none) as Record<string, NotificationHandler>;
  let table = notificationTables.get(base);
  if (!table) {
    table = Object.freeze({ ...base, 'notifications/initialized': onInitialized });
    notificationTables.set(base, table);
  }
  return table;
}

/** Before `initialize`: anything but `initialize` and `ping` is refused with -32600. */
const beforeInitialize: PreDispatch = (req) =>
  req.method === 'initialize' || req.method === 'ping'
    ? undefined
    : new RpcError(ErrorCode.InvalidRequest, `${req.method} before initialize: the session is not initialized`);

class HandshakeServer implements ServerLifecycle {
  client: ClientDescription | undefined;
  initialized = false;
  /** The level the client set with logging/setLevel (none yet: every level passes). */
  logLevel: LogLevel | undefined;
  get subscriptions(): undefined {
    return undefined;
  }

  constructor(readonly host: ServerHost) {
    states.set(host, this);
  }

  handlers() {
    const o = this.host.options;
    return {
      requests: requestTable(o.handlers, hasCapability(o.capabilities, ['logging'])),
      notifications: notificationTable(o.notificationHandlers),
    };
  }

  attach(peer: ServerHost['peer']): void {
    peer.setPreDispatch(beforeInitialize);
  }

  // the session's level, else the lowest of the negotiated revision's order (table.loggingLevels)
  logThreshold(): LogLevel {
    return this.logLevel ?? (this.logLevelOrder().levels[0] as LogLevel);
  }

  logLevelOrder(): LogLevelOrder {
    return logLevelOrderOf(this.host.table);
  }

  initialize(params: Params): Record<string, unknown> {
    const { host } = this;
    const peer = host.peer;
    // one handshake per session: a repeated initialize would renegotiate mid-session (basic/lifecycle)
    if (this.client)
      throw new RpcError(
        ErrorCode.InvalidRequest,
        `initialize: the session is already initialized (protocol version ${this.client.protocolVersion})`,
      );
    const requested = params.protocolVersion;
    const tables = [host.ownTable, ...(host.options.fallbackTables ?? [])].filter((t) => t.lifecycle === 'handshake');
    const table = tables.find((t) => t.protocolVersion === requested) ?? tables[0];
    host[SET_TABLE](table);
    this.client = {
      protocolVersion: table.protocolVersion,
      capabilities: (params.capabilities as Record<string, unknown>) ?? {},
      clientInfo: params.clientInfo as Implementation | undefined,
    };
    // from now on every request of the negotiated table is admitted
    peer.setPreDispatch(undefined);
    // advertise (and serve) what the negotiated revision defines of the declared capabilities,
    // and send the client only what it declared (both enforced by the engine)
    const capabilities = capabilitiesOf(table, 'server', host.options.capabilities ?? {});
    peer.setCapabilities(capabilities);
    peer.setRemoteCapabilities(this.client.capabilities);
    const result: Record<string, unknown> = {
      protocolVersion: table.protocolVersion,
      capabilities,
      serverInfo: host.options.serverInfo,
    };
    if (host.options.instructions !== undefined) result.instructions = host.options.instructions;
    return result;
  }

  adoptHandshake(record: {
    protocolVersion: string;
    capabilities: Record<string, unknown>;
    clientInfo?: Record<string, unknown>;
  }): void {
    this.initialize(record);
    this.initialized = true;
  }

  route(): boolean {
    return false;
  }

  async log(level: LogLevel, data: unknown, logger: string | undefined): Promise<boolean> {
    if (this.logLevel && !passesLogLevel(this.logLevelOrder(), level, this.logLevel)) return false;
    const params: Params = { level, data };
    if (logger !== undefined) params.logger = logger;
    await this.host.peer.notify('notifications/message', params);
    return true;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
