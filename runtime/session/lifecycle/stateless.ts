// size: the stateless lifecycle, client and server sides, with the client's one-request fast path; 78 lines over
/**
 * The stateless lifecycle (2026-07-28 and later, basic/versioning): the tables whose
 * `lifecycle` is `stateless`. No handshake: every request carries the protocol version, the
 * client capabilities and the client info in `_meta` (`io.modelcontextprotocol/…`).
 *
 * Client: `connect` sends `server/discover` (the result is cached by its hints) and keeps the
 * server's capabilities; a server naming no version this client speaks gives
 * UnsupportedVersionError. With a handshake table among `fallbackTables` the discover is the
 * dual-era probe (Backward Compatibility): an error other than a recognized modern one
 * (-32022, -32020, -32021), a timeout (default 10000 ms) or an HTTP answer without a JSON-RPC
 * error body switches the session to that table, whose lifecycle (./handshake.ts) connects.
 * Requests are served from the TTL cache (../../stateless/cache.ts), run their multi
 * round-trip rounds (../../stateless/mrtr.ts), and are resent once with a `fallbackTables`
 * table named in an UnsupportedProtocolVersion error's `data.supported`; `listen` opens
 * `subscriptions/listen` streams (../../stateless/subscriptions.ts).
 *
 * Server: answers `server/discover`; refuses a request whose `_meta` lacks the protocol version
 * or client capabilities (-32602) or names another version (-32022 with `data.supported` and
 * `data.requested`); gives every handler result `resultType: "complete"` when it has none,
 * checks an InputRequiredResult before it leaves (-32021 when it asks for a capability the
 * request's client capabilities lack), adds caching hints by the `cache` policy, serves
 * `subscriptions/listen` and sends list_changed / resources/updated only on the listen streams
 * that opted in (and over `listenBus` to those of other processes). Log messages belong to a
 * request (`ctx.log()`, by the request's `_meta` level); the session's `log()` sends nothing.
 */
import { ErrorCode, JsonRpcErrorCode, RpcError } from '../../jsonrpc/errors.js';
import type { Params } from '../../jsonrpc/message.js';
import { ownValue, withOwn } from '../../jsonrpc/own.js';
import type { NotificationHandler, RequestHandler, RequestOptions as PeerRequestOptions } from '../../engine/peer.js';
import { RESULTS_CHECKED, hasCapability } from '../../engine/peer.js';
import { isThenable } from '../../engine/dispatch.js';
import {
  LOG_LEVEL_META,
  type LogLevel,
  type RequestContext,
  type LogLevelOrder,
  isLogLevel,
  logLevelOrderOf,
} from '../../engine/context.js';
import { type MethodEntry, type ProtocolTable, errorCodeOf } from '../../protocol/table.js';
import {
  type InputHandler,
  checkInputRequired,
  clientCapabilitiesOf,
  decodeResult,
  runInputRounds,
} from '../../stateless/mrtr.js';
import { type RequestHost, sendRequest } from '../../engine/request.js';
import { CACHEABLE_METHODS, ResultCache, applyCacheHints } from '../../stateless/cache.js';
import { TASKS_EXTENSION, TASK_RESULT_TYPE } from '../../tasks/extension-wire.js';
import {
  LISTEN_NOTIFICATIONS,
  type ListenOptions,
  type Subscription,
  type SubscriptionFilter,
  SubscriptionHub,
  SubscriptionRouter,
} from '../../stateless/subscriptions.js';
import {
  type ClientHost,
  type ClientLifecycle,
  type ConnectOptions,
  type Implementation,
  META,
  type ResultStep,
  type ServerDescription,
  type ServerHost,
  type ServerLifecycle,
  UnsupportedVersionError,
} from './strategy.js';

/** The MCP errors only a stateless-era server gives: a discover failing with one of these is not a legacy server. */
const MODERN_ERRORS = ['UNSUPPORTED_PROTOCOL_VERSION', 'HEADER_MISMATCH', 'MISSING_REQUIRED_CLIENT_CAPABILITY'];
const JSON_RPC_CODES = new Set<number>(Object.values(JsonRpcErrorCode));

/**
 * Whether `code` is one of `table`'s {@link MODERN_ERRORS}, as its revision numbers them; a code
 * JSON-RPC itself defines tells no era apart (the 2026-05-14 draft answers an unsupported version
 * with -32602), so it is none.
 */
const isModernError = (table: ProtocolTable, code: number): boolean =>
  !JSON_RPC_CODES.has(code) && MODERN_ERRORS.some((name) => ownValue(table.errorCodes, name) === code);

/** The options of a request whose result this layer checks itself (decodeResult), not the engine. */
const NOT_VALIDATED: PeerRequestOptions = Object.freeze({ validateResult: false });
/** `options` with `validateResult: false` (a copy; one frozen object when there are none). */
const unvalidated = (options: PeerRequestOptions | undefined): PeerRequestOptions =>
  options === undefined ? NOT_VALIDATED : withOwn(options, 'validateResult', false);

const PROTOCOL_VERSION_META = `${META}protocolVersion`;
const CLIENT_CAPABILITIES_META = `${META}clientCapabilities`;
const CLIENT_INFO_META = `${META}clientInfo`;

/**
 * The client side of the stateless lifecycle (see the module doc). Gives the session its result
 * cache (option `cache`; none when `false`) and its `subscriptions/listen` router, once.
 */
export function statelessClient(host: ClientHost): ClientLifecycle {
  const o = host.options;
  if (!host.subscriptions)
    host.setStateless(o.cache === false ? undefined : new ResultCache(o.cache), new SubscriptionRouter(o.logger));
  return new StatelessClient(host);
}

class StatelessClient implements ClientLifecycle {
  readonly pending = undefined;

  constructor(readonly host: ClientHost) {}

  notificationMethods(): string[] {
    return Object.keys(this.host.table.notifications.serverToClient);
  }

  async connect(_transport: unknown, options: ConnectOptions): Promise<ServerDescription | undefined> {
    const { host } = this;
    const result = await this.#discover(options);
    if (!result) return undefined;
    const versions = (result.supportedVersions as string[] | undefined) ?? [];
    if (versions.length && !versions.includes(host.table.protocolVersion) && !this.#fallback(versions)) {
      await host.peer.close();
      throw new UnsupportedVersionError(host.table.protocolVersion, versions, [host.table.protocolVersion]);
    }
    const server: ServerDescription = {
      protocolVersion: host.table.protocolVersion,
      capabilities: (result.capabilities as Record<string, unknown>) ?? {},
      serverInfo: (result.serverInfo ?? (result._meta as Params | undefined)?.[`${META}serverInfo`]) as
        | Implementation
        | undefined,
      instructions: result.instructions as string | undefined,
      result,
    };
    host.setServer(server);
    if (host.options.enforceCapabilities !== false) host.peer.setRemoteCapabilities(server.capabilities);
    const key = host.cache?.key('server/discover', {});
    if (key !== undefined) host.cache!.put(key, 'server/discover', {}, result);
    return server;
  }

  /** `server/discover`; undefined when the dual-era probe switched to a handshake table (module doc). */
  async #discover(options: ConnectOptions): Promise<Record<string, unknown> | undefined> {
    const { host } = this;
    const legacy = (host.options.fallbackTables ?? []).find((t) => t.lifecycle === 'handshake');
    try {
      return await this.#send(
        'server/discover',
        {},
        legacy ? { timeout: host.options.timeout ?? 10_000, ...options } : options,
      );
    } catch (e) {
      if (!legacy || options.signal?.aborted || (e instanceof RpcError && isModernError(host.table, e.code))) throw e;
      host.options.logger?.debug?.('server/discover failed: falling back to initialize', {
        error: (e as Error).message,
        protocolVersion: legacy.protocolVersion,
      });
      host.setTable(legacy);
      return undefined;
    }
  }

  /** `params` with the request's `_meta` (protocol version, client capabilities and info); the caller's objects are not changed. */
  withMeta(params: Params | undefined): Params {
    const { host } = this;
    const own = params?._meta as Params | undefined;
    let meta: Params;
    if (own === undefined || own === null) {
      // (a literal: one object of a fixed shape, where keys added one by one cost a shape change each)
      meta = {
        'io.modelcontextprotocol/protocolVersion': host.table.protocolVersion,
        'io.modelcontextprotocol/clientCapabilities': host.options.capabilities ?? {},
        'io.modelcontextprotocol/clientInfo': host.options.clientInfo,
      };
    } else {
      meta = withOwn(own, PROTOCOL_VERSION_META, host.table.protocolVersion);
      meta[CLIENT_CAPABILITIES_META] = host.options.capabilities ?? {};
      meta[CLIENT_INFO_META] = host.options.clientInfo;
    }
    return withOwn(params, '_meta', meta);
  }

  /**
   * Sends once; on -32022 naming a version of a `fallbackTables` table, switches to it and
   * resends once (naming the version sent: resends it once). See {@link StatelessCall}.
   */
  #send(method: string, params: Params, options?: PeerRequestOptions): Promise<Record<string, unknown>> {
    return new StatelessCall(this, method, params, options).send();
  }

  /** Whether a request refused with `e` is sent again (see StatelessCall); switches the table when a fallback names the version. */
  resendable(e: unknown): boolean {
    const { host } = this;
    if (!(e instanceof RpcError) || e.code !== errorCodeOf(host.table, 'UNSUPPORTED_PROTOCOL_VERSION')) return false;
    const supported = (e.data as { supported?: unknown } | undefined)?.supported;
    // a refusal naming the version just sent among the supported ones is answered by sending it again, once
    if (Array.isArray(supported) && supported.includes(host.table.protocolVersion)) return true;
    return this.#fallback(supported);
  }

  /** Switches to the first stateless table (requested, then `fallbackTables`) whose version is in `supported`. */
  #fallback(supported: unknown): boolean {
    if (!Array.isArray(supported)) return false;
    const { host } = this;
    const t = [host.requestedTable, ...(host.options.fallbackTables ?? [])].find(
      (x: ProtocolTable) =>
        x.lifecycle === 'stateless' &&
        x.protocolVersion !== host.table.protocolVersion &&
        supported.includes(x.protocolVersion),
    );
    if (!t) return false;
    host.setTable(t);
    return true;
  }

  extensionRequest(
    method: string,
    params: Params | undefined,
    options: PeerRequestOptions | undefined,
  ): Promise<Record<string, unknown>> {
    return this.#send(method, params ?? {}, unvalidated(options));
  }

  /**
   * The cache, then the request; a result of another `resultType` than `complete` goes on to
   * the multi round-trip loop over #send (`rounds`). `after` takes the result either way. A call
   * answered `complete` at once (most) runs as one engine request whose result and failure
   * steps do the rest: no promise, nor async function, of this layer.
   */
  request(
    method: string,
    entry: MethodEntry,
    params: Params | undefined,
    options: PeerRequestOptions | undefined,
    after?: ResultStep,
    self?: unknown,
  ): Promise<Record<string, unknown>> {
    try {
      // (a step called on `self` becomes one called as it is: this layer calls `after(result)`)
      if (after !== undefined && self !== undefined) after = after.bind(self);
      const { host } = this;
      const sent = params ?? {};
      const cache = host.cache;
      const key = cache?.key(method, sent);
      const hit = key === undefined ? undefined : cache!.get(key);
      if (hit) return Promise.resolve(after === undefined ? hit : after(hit));
      const call = new StatelessCall(this, method, sent, unvalidated(options));
      call.entry = entry;
      call.given = options;
      call.after = after;
      call.key = key;
      return call.send();
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** The multi round-trip loop over #send, from the first attempt's result `first` on. */
  async rounds(
    method: string,
    entry: MethodEntry,
    sent: Params,
    options: PeerRequestOptions | undefined,
    after: ResultStep | undefined,
    key: string | undefined,
    first: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    const { host } = this;
    const { result, rounds } = await runInputRounds({
      table: host.table,
      entry,
      params: sent,
      first,
      send: (attempt) => this.#send(method, attempt, unvalidated(options)),
      handlers: (host.options.handlers ?? {}) as Record<string, InputHandler>,
      capabilities: host.options.capabilities ?? {},
      maxRounds: host.options.maxInputRounds,
      validate: options?.validateResult ?? true,
      signal: options?.signal,
      // the tasks extension (SEP-2663): a tools/call the client opted in for may be answered with a task
      passThrough: (type) =>
        type === TASK_RESULT_TYPE &&
        method === 'tools/call' &&
        hasCapability(host.options.capabilities, ['extensions', TASKS_EXTENSION]),
    });
    if (key !== undefined && rounds === 0) host.cache!.put(key, method, sent, result);
    return after === undefined ? result : after(result);
  }

  listen(filter: SubscriptionFilter, options: ListenOptions): Subscription {
    const peer = this.host.peer;
    const id = peer.nextRequestId;
    return this.host.subscriptions!.open(id, filter, options, (signal) =>
      peer.request('subscriptions/listen', this.withMeta({ notifications: filter }), {
        signal,
        timeout: Infinity,
        validateResult: false,
      }),
    );
  }
}

/**
 * One request of a {@link StatelessClient}, sent with its `_meta` (and resent once on a -32022
 * the client answers by resending): its state as fields and its result and failure steps as
 * methods the engine calls on it (PendingRequest `self`), so a request costs this one object and
 * no closure. With `entry` (a session request, `StatelessClient.request`), a result of another
 * `resultType` than `complete` goes on to the multi round-trip loop, a `complete` one is decoded
 * (checked unless the caller's options say not), cached under `key`, and handed to `after`.
 */
class StatelessCall {
  /** The method's table entry: set for a session request, whose result {@link step} decodes. */
  entry: MethodEntry | undefined = undefined;
  /** The caller's options (`options` is what is sent: without the engine's result check). */
  given: PeerRequestOptions | undefined = undefined;
  after: ResultStep | undefined = undefined;
  key: string | undefined = undefined;

  constructor(
    readonly client: StatelessClient,
    readonly method: string,
    readonly params: Params,
    readonly options: PeerRequestOptions | undefined,
  ) {}

  send(): Promise<Record<string, unknown>> {
    return this.request(StatelessCall.prototype.resend);
  }

  /** Sends the request (its `_meta` made afresh), its result through {@link step}, its failure through `recover`. */
  private request(recover: ((e: unknown) => unknown) | undefined): Promise<Record<string, unknown>> {
    const { client } = this;
    return sendRequest(
      client.host.peer as unknown as RequestHost,
      this.method,
      client.withMeta(this.params),
      this.options,
      this.entry === undefined ? undefined : StatelessCall.prototype.step,
      recover,
      this,
    );
  }

  /** The failure step: resends once when the client answers `e` so, else rethrows it. */
  resend(e: unknown): unknown {
    if (!this.client.resendable(e)) throw e;
    return this.request(undefined);
  }

  /** The result step of a session request (see the class doc). */
  step(raw: unknown): unknown {
    const { method, entry, params, given, after, key } = this;
    const type = (raw as Params).resultType;
    if (type !== undefined && type !== 'complete')
      return this.client.rounds(method, entry!, params, given, after, key, raw as Record<string, unknown>);
    const { result } = decodeResult(entry!, raw as Record<string, unknown>, given?.validateResult ?? true);
    if (key !== undefined) this.client.host.cache!.put(key, method, params, result);
    return after === undefined ? result : after(result);
  }
}

/** The server side of the stateless lifecycle (see the module doc). */
export function statelessServer(host: ServerHost): ServerLifecycle {
  return new StatelessServer(host);
}

/** `logging/setLevel` where the revision still has it: accepted; levels come with each request's `_meta`. */
const onSetLevel: RequestHandler = () => ({});

class StatelessServer implements ServerLifecycle {
  readonly client = undefined;
  readonly initialized = false;
  subscriptions: SubscriptionHub | undefined;

  constructor(readonly host: ServerHost) {}

  handlers() {
    const o = this.host.options;
    return {
      requests: Object.fromEntries(
        Object.entries(o.handlers ?? {}).map(([m, h]) => [m, this.#wrap(m, h as RequestHandler)]),
      ),
      notifications: o.notificationHandlers as Record<string, NotificationHandler> | undefined,
    };
  }

  attach(peer: ServerHost['peer']): void {
    const { host } = this;
    const o = host.options;
    const handled = (m: string) => !!(o.handlers as Record<string, unknown> | undefined)?.[m];
    peer.setRequestHandler('server/discover', () => this.#discover());
    peer.setPreDispatch((req) => this.#checkMeta(req.params as Params | undefined));
    const hub = new SubscriptionHub({
      capabilities: () => o.capabilities ?? {},
      canSubscribe: o.canSubscribe,
      logger: o.logger,
    });
    this.subscriptions = hub;
    if (!handled('subscriptions/listen')) peer.setRequestHandler('subscriptions/listen', hub.handler);
    const bus = o.listenBus;
    if (bus) {
      const off = bus.subscribe((m) => {
        const p = m.payload as { method?: unknown; params?: unknown } | undefined;
        if (
          m.topic === 'listen' &&
          m.from !== bus.processId &&
          typeof p?.method === 'string' &&
          LISTEN_NOTIFICATIONS.includes(p.method)
        ) {
          hub.publish(p.method, typeof p.params === 'object' && p.params !== null ? (p.params as Params) : undefined);
        }
      });
      host.onClose(off);
    }
    if (hasCapability(o.capabilities, ['logging']) && !handled('logging/setLevel'))
      peer.setRequestHandler('logging/setLevel', onSetLevel);
  }

  /** The request's own `_meta` level when it is one of the revision's `loggingLevels`, else none (nothing is sent). */
  logThreshold(meta: Record<string, unknown> | undefined): LogLevel | undefined {
    return isLogLevel(meta?.[LOG_LEVEL_META], this.logLevelOrder()) ? (meta![LOG_LEVEL_META] as LogLevel) : undefined;
  }

  logLevelOrder(): LogLevelOrder {
    return logLevelOrderOf(this.host.table);
  }

  /**
   * A handler's result: resultType default, InputRequiredResult checks, caching hints. As the
   * handler it wraps: a plain value when the handler gave one (the engine then answers it at
   * once), else a promise (one `then`, no async function); a throw of the handler or of the
   * checks rejects the promise the call returns, as from an async function. A handler whose
   * results are checked already (flagged {@link RESULTS_CHECKED}: the features' tables) keeps the
   * flag where this adds nothing the check did not see (the resultType default, which that check
   * fills in too; the input_required checks refuse, never add), so that the engine does not run
   * the same validator again; the cacheable methods lose it (their hints come from the policy).
   */
  #wrap(method: string, h: RequestHandler): RequestHandler {
    const { host } = this;
    const finish = (r: unknown, ctx: RequestContext): unknown => {
      if (typeof r !== 'object' || r === null || Array.isArray(r)) return r;
      const out = (r as Params).resultType === undefined ? { resultType: 'complete', ...(r as Params) } : (r as Params);
      if (out.resultType === 'input_required') {
        const table = host.table;
        const refusal = checkInputRequired(
          table,
          ownValue(table.requests.clientToServer, method),
          out,
          clientCapabilitiesOf(ctx),
        );
        if (refusal) {
          if (refusal.code === ErrorCode.InternalError)
            host.options.logger?.error?.('invalid input_required result', { method, error: refusal.message });
          throw refusal;
        }
      }
      return applyCacheHints(method, out, host.options.cache);
    };
    const wrapped: RequestHandler = (params, ctx) => {
      try {
        const r = h(params, ctx);
        return isThenable(r) ? Promise.resolve(r).then((v) => finish(v, ctx)) : finish(r, ctx);
      } catch (e) {
        return Promise.reject(e);
      }
    };
    const checked =
      (h as { [RESULTS_CHECKED]?: boolean })[RESULTS_CHECKED] === true && !CACHEABLE_METHODS.includes(method);
    return checked ? Object.assign(wrapped, { [RESULTS_CHECKED]: true }) : wrapped;
  }

  #discover(): Record<string, unknown> {
    const o = this.host.options;
    const result: Record<string, unknown> = {
      resultType: 'complete',
      supportedVersions: [this.host.table.protocolVersion],
      // server/utilities/caching: discovery may be cached for a minute, by anyone (no user data)
      ...(o.cache?.methods?.['server/discover'] ?? { ttlMs: 60_000, cacheScope: 'public' }),
      capabilities: o.capabilities ?? {},
    };
    // the revision's place for the server's Implementation (table.discoverServerInfo)
    if (this.host.table.discoverServerInfo === 'result') result.serverInfo = o.serverInfo;
    else result._meta = { [`${META}serverInfo`]: o.serverInfo };
    if (o.instructions !== undefined) result.instructions = o.instructions;
    return result;
  }

  #checkMeta(params: Params | undefined): RpcError | undefined {
    // (constant keys: a template literal made, and hashed for the lookup, a new string per request)
    const table = this.host.table;
    const meta = params?._meta as Params | undefined;
    const version = meta?.[PROTOCOL_VERSION_META];
    if (typeof version !== 'string')
      return new RpcError(ErrorCode.InvalidParams, `Invalid params: missing _meta["${META}protocolVersion"]`);
    if (version !== table.protocolVersion) {
      return new RpcError(errorCodeOf(table, 'UNSUPPORTED_PROTOCOL_VERSION'), 'Unsupported protocol version', {
        supported: [table.protocolVersion],
        requested: version,
      });
    }
    const capabilities = meta?.[CLIENT_CAPABILITIES_META];
    if (typeof capabilities !== 'object' || capabilities === null) {
      return new RpcError(ErrorCode.InvalidParams, `Invalid params: missing _meta["${META}clientCapabilities"]`);
    }
    return undefined;
  }

  adoptHandshake(): never {
    throw new RpcError(
      ErrorCode.InvalidRequest,
      `protocol version ${this.host.table.protocolVersion} has no handshake to adopt`,
    );
  }

  route(method: string, params: Params | undefined): boolean {
    const hub = this.subscriptions;
    if (!hub || !LISTEN_NOTIFICATIONS.includes(method)) return false;
    hub.publish(method, params);
    // the listen streams of the other processes (a bus that cannot be reached loses the change for them)
    this.host.options.listenBus
      ?.publish({ topic: 'listen', sessionId: '', payload: { method, params } })
      .catch((e: Error) => this.host.options.logger?.warn?.(`listen bus: ${e.message}`));
    return true;
  }

  log(): Promise<boolean> {
    return Promise.resolve(false);
  }

  async close(): Promise<void> {
    if (this.subscriptions && !this.host.peer.closed) await this.subscriptions.close();
  }
}
