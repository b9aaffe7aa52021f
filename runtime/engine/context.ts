/**
 * What request handlers see: the handler signature, the per-request context (cancellation
 * signal, progress, notifications and requests on behalf of the request) and outbound request
 * options. Spec: 2025-11-25 `basic/utilities/{cancellation,progress}.mdx`.
 */
import type { AuthInfo, MessageInfo } from '../jsonrpc/transport.js';
import { type Params, type RequestId, isObject } from '../jsonrpc/message.js';
import type { ProtocolTable } from '../protocol/table.js';
import { ProgressReporter, type ProgressCallback } from './progress.js';
import type { InboundRequest } from './cancellation.js';

/**
 * RFC 5424's eight severities, least severe first: the order of a table that states none (a
 * hand-built one). A generated table carries its revision's own list, in schema order
 * (`table.loggingLevels`), and the session passes that to {@link setLogThreshold}.
 */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
/** A syslog severity of `logging/setLevel` and `notifications/message` (RFC 5424; server/utilities/logging), `debug` lowest. */
export type LogLevel = (typeof LOG_LEVELS)[number];
/** The `_meta` key of a stateless request's log level (draft basic/index, server/utilities/logging). */
export const LOG_LEVEL_META = 'io.modelcontextprotocol/logLevel';

/**
 * A severity order: each level's rank, least severe 0 (server/utilities/logging, "Log Levels").
 * Built from a revision's `loggingLevels` with {@link logLevelOrder}.
 */
export interface LogLevelOrder {
  readonly levels: readonly string[];
  /** Own members only: `rank.constructor` is not a level. */
  readonly rank: ReadonlyMap<string, number>;
}

/** The order of `levels` (least severe first; default {@link LOG_LEVELS}). */
export function logLevelOrder(levels: readonly string[] = LOG_LEVELS): LogLevelOrder {
  return { levels: [...levels], rank: new Map(levels.map((l, i) => [l, i])) };
}
const DEFAULT_ORDER = logLevelOrder();
const tableOrders = new WeakMap<object, LogLevelOrder>();

/** The severity order of `table`'s revision (`table.loggingLevels`; absent: {@link LOG_LEVELS}), built once per table. */
export function logLevelOrderOf(table: Pick<ProtocolTable, 'loggingLevels'>): LogLevelOrder {
  if (!table.loggingLevels) return DEFAULT_ORDER;
  let order = tableOrders.get(table);
  if (!order) tableOrders.set(table, (order = logLevelOrder(table.loggingLevels)));
  return order;
}

/** Whether `v` is a level of `order` (default: the eight {@link LOG_LEVELS}). */
export const isLogLevel = (v: unknown, order: LogLevelOrder = DEFAULT_ORDER): v is LogLevel =>
  typeof v === 'string' && order.rank.has(v);

/** Whether `level` is at or above `min` in `order` (both must be levels of it). */
export const passesLogLevel = (order: LogLevelOrder, level: string, min: string): boolean =>
  (order.rank.get(level) ?? -1) >= (order.rank.get(min) ?? Infinity);

/**
 * How the contexts of an engine's requests filter `log()`: set per engine by the server session
 * (../session/server.ts) to its lifecycle, whose methods these are.
 */
export interface LogThreshold {
  /** The lowest level a request's log messages go out at, from its `params._meta`; undefined: none go out. */
  logThreshold(meta: Record<string, unknown> | undefined): LogLevel | undefined;
  /** The rank of the levels: the negotiated revision's `loggingLevels` (see {@link logLevelOrderOf}). */
  logLevelOrder(): LogLevelOrder;
}
const thresholds = new WeakMap<ContextHost, LogThreshold>();

/**
 * Sets (or clears) how the contexts of `host`'s requests filter `log()` calls (without one,
 * nothing is sent).
 */
export function setLogThreshold(host: ContextHost, threshold: LogThreshold | undefined): void {
  if (threshold) thresholds.set(host, threshold);
  else thresholds.delete(host);
}

/**
 * The `log()` of a request context: sends notifications/message `{ level, data, logger? }`
 * through `send` when `host`'s threshold for a request with `meta` lets `level` pass (in the
 * order set with the threshold). Resolves true when sent, false when filtered out (no threshold:
 * nothing is sent). Throws TypeError for a level that is not one of that order.
 */
export async function logForRequest(
  host: ContextHost,
  meta: Record<string, unknown> | undefined,
  level: LogLevel,
  data: unknown,
  logger: string | undefined,
  send: (params: Params) => Promise<void>,
): Promise<boolean> {
  const entry = thresholds.get(host);
  const order = entry ? entry.logLevelOrder() : DEFAULT_ORDER;
  if (!isLogLevel(level, order))
    throw new TypeError(`log level must be one of ${order.levels.join(', ')}, not ${String(level)}`);
  const min = entry?.logThreshold(meta);
  if (min === undefined || !passesLogLevel(order, level, min)) return false;
  const params: Params = { level, data };
  if (logger !== undefined) params.logger = logger;
  await send(params);
  return true;
}

/**
 * Optional diagnostics sink; every method optional. Never receives message bodies (a failing
 * handler is named by its tool, prompt or resource, from the request's params).
 */
export interface Logger {
  debug?(message: string, data?: Record<string, unknown>): void;
  warn?(message: string, data?: Record<string, unknown>): void;
  error?(message: string, data?: Record<string, unknown>): void;
}

/**
 * The default logger of servers (ServerSession, ServerFeatures): errors only, one line each on
 * stderr (`console.error`: where a stdio server may write, stdout being the protocol's),
 * `mcpgen: <message> <data as JSON>`, then a `stack` of the data, if any, on the lines after.
 * Give a server `logger: {}` to log nothing.
 */
export const STDERR_LOGGER: Logger = {
  error(message, data) {
    if (data === undefined) return void console.error(`mcpgen: ${message}`);
    const { stack, ...rest } = data;
    console.error(`mcpgen: ${message} ${JSON.stringify(rest)}${typeof stack === 'string' ? `\n${stack}` : ''}`);
  },
};

/** Options of one outbound request. Times in milliseconds. */
export interface RequestOptions {
  /** Aborting sends `notifications/cancelled` and rejects with RequestAbortedError. */
  signal?: AbortSignal;
  /** Receives progress; puts a unique `progressToken` in `params._meta` (unless one is there). */
  onProgress?: ProgressCallback;
  /** ms without a response before RequestTimeoutError (default: the peer's, 60000; Infinity: none). */
  timeout?: number;
  /** Progress restarts the timeout clock (default false). */
  resetTimeoutOnProgress?: boolean;
  /** Hard cap in ms from the start, even while progress keeps resetting `timeout`. */
  maxTotalTimeout?: number;
  /** The inbound request this one belongs to (HTTP routes it to that request's stream). */
  relatedRequestId?: RequestId;
  /** Check the result against the method's result schema (default: the peer's setting). */
  validateResult?: boolean;
  /** `false`: the transport sends the request once, with no retries (SendOptions `retry`). */
  retry?: false;
}

/** What a request handler gets besides the params. */
export interface RequestContext {
  readonly requestId: RequestId;
  readonly method: string;
  /** Aborted when the requester cancels (then no response is sent) or the connection closes. */
  readonly signal: AbortSignal;
  /** `params._meta` of the request, if any. */
  readonly meta: Record<string, unknown> | undefined;
  /**
   * The request's params as received (undefined when omitted): what identifies the request beyond
   * its method (e.g. `name` of `tools/call`; ../stateless/request-state.ts binds `requestState` to it). Optional for
   * contexts built by hand.
   */
  readonly params?: Params;
  /** Transport facts (HTTP session, headers). */
  readonly info: MessageInfo | undefined;
  /** The verified access token of the request (`info.auth`), when the HTTP endpoint checks tokens. */
  readonly auth?: AuthInfo;
  /**
   * The session object the engine serves (on a server: its `ServerSession`), so that handlers
   * shared by many sessions reach per-session state; undefined when the engine was given none.
   */
  readonly session?: object;
  /**
   * The table of the revision the request was validated against (the negotiated one), so that
   * handlers shared by sessions of several revisions follow the right revision's rules (e.g.
   * `structuredContent` of a tool result, ../protocol/table.ts `structuredContentAllowed`).
   * Optional for contexts built by hand.
   */
  readonly table?: ProtocolTable;
  /** Sends progress with the request's token; resolves without sending when it has none. */
  sendProgress(progress: number, total?: number, message?: string): Promise<void>;
  /** A notification tied to this request; nothing is sent once it finished or was cancelled. */
  sendNotification(method: string, params?: Params): Promise<void>;
  /** A request to the other side on behalf of this one; aborted if this one is cancelled. */
  sendRequest<R = unknown>(method: string, params?: Params, options?: RequestOptions): Promise<R>;
  /**
   * Sends notifications/message `{ level, data, logger? }` on behalf of this request when its
   * level passes: stateless revisions (draft server/utilities/logging, "Per-request log level")
   * take the request's `_meta["io.modelcontextprotocol/logLevel"]`, and send nothing when the
   * request has none; handshake revisions take the level set with logging/setLevel (every level
   * until one is set). Nothing is sent when the server did not declare `logging`, or once the
   * request finished. Resolves true when sent, false when filtered out.
   */
  log(level: LogLevel, data: unknown, logger?: string): Promise<boolean>;
}

/**
 * Handles one inbound request. `params` is what the request carried (already checked against the
 * method's params schema; undefined when omitted). Return the result object (undefined sends
 * `{}`); it is checked against the method's result schema. Throw an RpcError to choose the error
 * response; any other throw becomes `-32603 Internal error` with no detail.
 */
// biome-ignore lint/suspicious/noExplicitAny: a handler table holds handlers of every request's params
export type RequestHandler<P = any, R = unknown> = (params: P, ctx: RequestContext) => R | Promise<R>;
/**
 * Handles one inbound notification (params checked against the method's schema: an invalid one
 * is dropped before reaching the handler). Nothing is ever sent back; a throw is logged.
 */
// biome-ignore lint/suspicious/noExplicitAny: a handler table holds handlers of every notification's params
export type NotificationHandler<P = any> = (
  params: P,
  ctx: { method: string; info: MessageInfo | undefined; session?: object },
) => void | Promise<void>;

/** What a {@link InboundContext} needs from the engine. */
export interface ContextHost {
  notify(method: string, params?: Params, options?: { relatedRequestId?: RequestId }): Promise<void>;
  request<R = unknown>(method: string, params?: Params, options?: RequestOptions): Promise<R>;
  readonly session?: object;
  readonly table?: ProtocolTable;
}

/**
 * The members of a {@link RequestContext} that are facts about the request rather than things
 * to do: every one of them, required (the compiler fails here when RequestContext gains a fact
 * and {@link contextFacts} does not copy it).
 */
export type RequestFacts = {
  [K in RequestFactKey]: RequestContext[K];
};
/** The names of the {@link RequestContext} members that are not methods. */
export type RequestFactKey = {
  // biome-ignore lint/complexity/noBannedTypes: methods are told apart from facts by their type
  [K in keyof RequestContext]-?: RequestContext[K] extends Function ? never : K;
}[keyof RequestContext];

/**
 * Every fact of `ctx` (request id, method, signal, `_meta`, params, transport info, the verified
 * principal `auth`, the `session`, the revision's `table`) as own data properties, read once:
 * what a context made from another one starts from (a task's context, ../tasks/context.ts and
 * ../tasks/extension.ts), so that none is lost. A spread or a field-by-field copy of `ctx` itself
 * drops what the context serves through getters (`auth`, `session` and `table` of
 * {@link InboundContext}): a protected tool run as a task would run as nobody.
 */
export function contextFacts(ctx: RequestContext): RequestFacts {
  return {
    requestId: ctx.requestId,
    method: ctx.method,
    signal: ctx.signal,
    meta: ctx.meta,
    params: ctx.params,
    info: ctx.info,
    auth: ctx.auth,
    session: ctx.session,
    table: ctx.table,
  };
}

/** The RequestContext of one inbound request (a class: no per-request closures). */
export class InboundContext implements RequestContext {
  readonly meta: Record<string, unknown> | undefined;
  private reporter: ProgressReporter | undefined;

  constructor(
    private readonly peer: ContextHost,
    private readonly r: InboundRequest,
    readonly params: Params | undefined,
    readonly info: MessageInfo | undefined,
    private readonly diagnostics: Logger,
  ) {
    this.meta = isObject(params?._meta) ? params._meta : undefined;
  }

  get requestId(): RequestId {
    return this.r.id;
  }

  get method(): string {
    return this.r.method;
  }

  get signal(): AbortSignal {
    return this.r.signal;
  }

  get session(): object | undefined {
    return this.peer.session;
  }

  get auth(): AuthInfo | undefined {
    return this.info?.auth;
  }

  get table(): ProtocolTable | undefined {
    return this.peer.table;
  }

  sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    if (this.r.finished || this.r.cancelled) return Promise.resolve();
    this.reporter ??= new ProgressReporter(
      ProgressReporter.tokenOf({ _meta: this.meta }),
      (p) => this.peer.notify('notifications/progress', p, { relatedRequestId: this.r.id }),
      (why) => this.diagnostics.debug?.('progress dropped', { id: this.r.id, why }),
    );
    return this.reporter.report(progress, total, message);
  }

  sendNotification(method: string, params?: Params): Promise<void> {
    if (this.r.finished || this.r.cancelled) {
      this.diagnostics.debug?.('notification after request end not sent', { id: this.r.id, method });
      return Promise.resolve();
    }
    return this.peer.notify(method, params, { relatedRequestId: this.r.id });
  }

  log(level: LogLevel, data: unknown, logger?: string): Promise<boolean> {
    if (this.r.finished || this.r.cancelled) return Promise.resolve(false);
    return logForRequest(this.peer, this.meta, level, data, logger, (p) =>
      this.peer.notify('notifications/message', p, { relatedRequestId: this.r.id }),
    );
  }

  sendRequest<R = unknown>(method: string, params?: Params, options: RequestOptions = {}): Promise<R> {
    const signal = options.signal ? AbortSignal.any([options.signal, this.r.signal]) : this.r.signal;
    return this.peer.request<R>(method, params, { ...options, relatedRequestId: this.r.id, signal });
  }
}
