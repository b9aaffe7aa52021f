// size: the peer: correlation, dispatch and lanes share private state of one class; split pending (#36)
/**
 * The peer engine: one side (`client` or `server`) of one connection, over one Transport and one
 * ProtocolTable. Revision-agnostic; the lifecycle (initialize handshake or per-request `_meta`)
 * sits on top and plugs in through {@link PeerOptions.preDispatch} and
 * {@link Peer.setCapabilities}.
 *
 * Outbound: ids `0, 1, 2, ...`; responses correlate by exact id (`"1"` is not `1`); unknown,
 * late or duplicate responses are dropped with a debug log. Inbound: every request gets exactly
 * one response (unless it is cancelled: then none, case 007); notifications never get one
 * (case 004). Spec: 2025-11-25 `basic/index.mdx`, `utilities/{cancellation,progress,ping}.mdx`.
 */
import { endSpan, startClientSpan, startServerSpan, traceRefusal, withContext } from './tracing.js';
import {
  type Direction,
  type MethodEntry,
  type ProtocolTable,
  hasCapability,
  missingParamCapability,
} from '../protocol/table.js';
import type { JSONRPCMessage, MessageInfo, Transport, TransportEvents } from '../jsonrpc/transport.js';
import {
  CapabilityNotDeclaredError,
  ConnectionClosedError,
  ErrorCode,
  InvalidResultError,
  RequestAbortedError,
  RequestTimeoutError,
  RpcError,
  UnserializableMessageError,
  reasonText,
  validationIssues,
} from '../jsonrpc/errors.js';
import { handlerLabel } from '../protocol/subject.js';
import {
  classify,
  errorResponse,
  isObject,
  isRequestId,
  kindOf,
  resultResponse,
  type JSONRPCErrorResponse,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  type Params,
  type ProgressToken,
  type RequestId,
} from '../jsonrpc/message.js';
import { ProgressRouter, type ProgressCallback } from './progress.js';
import {
  type InboundRequest,
  InboundRequests,
  UNCANCELLABLE_METHODS,
  cancelledParams,
  parseCancelled,
  watchCarrier,
} from './cancellation.js';
import { OutboundRequests, PendingRequest } from './outbound.js';
import { SENT } from '../jsonrpc/sent.js';
import type { BatchHost, BatchReply, dispatchBatch } from './batch.js';
import {
  InboundContext,
  type Logger,
  type NotificationHandler,
  type RequestHandler,
  type RequestOptions,
} from './context.js';

export type { Logger, NotificationHandler, RequestContext, RequestHandler, RequestOptions } from './context.js';

export { hasCapability } from '../protocol/table.js';

/** Which side of the connection a peer is. */
export type Side = 'client' | 'server';

/** Refuses a request before dispatch (e.g. before initialization) by returning the error to send. */
export type PreDispatch = (
  request: JSONRPCRequest,
  entry: MethodEntry | undefined,
  info: MessageInfo | undefined,
) => RpcError | undefined;

/** Options of a {@link Peer}: its side, its protocol table, the lifecycle's hooks; times in ms. */
export interface PeerOptions {
  side: Side;
  table: ProtocolTable;
  transport: Transport;
  requestHandlers?: Record<string, RequestHandler>;
  notificationHandlers?: Record<string, NotificationHandler>;
  /** This side's declared capabilities; while undefined, no method is gated. */
  capabilities?: Record<string, unknown>;
  /** Replaces the capability check: may this side serve `entry`? False → -32601. */
  canHandle?: (entry: MethodEntry) => boolean;
  preDispatch?: PreDispatch;
  logger?: Logger;
  /** Default request timeout in ms (default 60000). */
  timeout?: number;
  /** Validate results of outbound requests (default true). */
  validateResults?: boolean;
  /** Methods for which no `notifications/cancelled` is ever sent (default `['initialize']`). */
  uncancellable?: readonly string[];
  /** Stateless revisions: methods outside the table that an extension serves (e.g. `tasks/get`). */
  extensionMethods?: readonly string[];
  onClose?: (error?: Error) => void;
  onError?: (error: Error) => void;
  /** What handlers see as `ctx.session` (e.g. the ServerSession on top of this engine). */
  session?: object;
}

/** Transport errors logged one by one before only counts are logged. */
const TRANSPORT_ERRORS_LOGGED = 10;
const isPowerOfTen = (n: number): boolean => {
  while (n >= 10 && n % 10 === 0) n /= 10;
  return n === 1;
};

/** Shared stand-in for an absent logger or handler table. */
const EMPTY: Readonly<Record<string, never>> = Object.freeze({});
const pong = (): Record<string, never> => ({});
const DEFAULT_UNCANCELLABLE: ReadonlySet<string> = new Set(UNCANCELLABLE_METHODS);

const own = <T>(rec: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(rec, key) ? rec[key] : undefined;
const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  (typeof v === 'object' || typeof v === 'function') &&
  v !== null &&
  typeof (v as PromiseLike<unknown>).then === 'function';

/**
 * A request handler flagged `true` under this key answers only results it has already checked
 * against the result schema of the table the engine serves (the `result` validator of
 * `ctx.table`'s entry for its method), so the engine does not check them a second time before
 * answering. A wrapper that changes a flagged handler's results must not carry the flag over:
 * the results of an unflagged handler are checked by the engine.
 */
export const RESULTS_CHECKED: unique symbol = Symbol('mcpgen.resultsChecked');

const PEER = Symbol('peer');
/** The events object a {@link Peer} gives its transport. */
type PeerEvents = TransportEvents & { readonly [PEER]: Peer };

/**
 * One side of one connection (see the module doc): sends requests and notifications over a
 * {@link Transport}, correlates responses by id, dispatches inbound messages to handlers by
 * method, and carries cancellation (`notifications/cancelled`), progress and `ping`
 * (2025-11-25 basic/utilities). Outbound requests reject with {@link RpcError},
 * `RequestTimeoutError`, `RequestAbortedError`, `CapabilityNotDeclaredError` or `ConnectionClosedError`.
 */
export class Peer {
  readonly side: Side;
  /** What handlers see as `ctx.session` (PeerOptions.session). */
  readonly session: object | undefined;
  #table: ProtocolTable;
  private readonly transport: Transport;
  private readonly out: Direction;
  private readonly in: Direction;
  /** Handlers set on this engine (undefined: removed), over the option tables, which are used as given (not copied). */
  private handlers: Map<string, RequestHandler | undefined> | undefined;
  private notificationHandlers: Map<string, NotificationHandler | undefined> | undefined;
  private readonly outbound = new OutboundRequests((p, ms, total) =>
    this.abandon(p, new RequestTimeoutError(p.method, ms, total), `Request timed out after ${ms} ms`),
  );
  /** Set once the other side sent its last message (see onEnd). */
  private ended: { error: Error | undefined } | undefined;
  private readonly inbound = new InboundRequests();
  private readonly progress = new ProgressRouter();
  private readonly log: Logger;
  private readonly uncancellable: ReadonlySet<string>;
  private capabilities: Record<string, unknown> | undefined;
  /** What the other side declared (set by the lifecycle layer once known); undefined: unknown, nothing is gated. */
  private remoteCapabilities: Record<string, unknown> | undefined;
  private preDispatch: PreDispatch | undefined;
  /** The inbound batch each request of one belongs to (its answer joins the batch's array). */
  private batchOf: WeakMap<InboundRequest, BatchReply> | undefined;
  private nextId = 0;
  /** Transport errors seen (see the rate limit in {@link start}). */
  private transportErrors = 0;
  private closedWith: { error?: Error } | undefined;

  constructor(private readonly options: PeerOptions) {
    this.side = options.side;
    this.#table = options.table;
    this.transport = options.transport;
    this.out = options.side === 'client' ? 'clientToServer' : 'serverToClient';
    this.in = options.side === 'client' ? 'serverToClient' : 'clientToServer';
    this.session = options.session;
    this.log = options.logger ?? EMPTY;
    this.uncancellable = options.uncancellable ? new Set(options.uncancellable) : DEFAULT_UNCANCELLABLE;
    this.capabilities = options.capabilities;
    this.preDispatch = options.preDispatch;
  }

  /** Starts the transport; inbound messages flow from then on. */
  start(): Promise<void> {
    const e = Peer.#events;
    const events: PeerEvents = {
      onMessage: e.onMessage,
      onBatch: e.onBatch,
      onClose: e.onClose,
      onEnd: e.onEnd,
      onRequestError: e.onRequestError,
      onError: e.onError,
      [PEER]: this,
    };
    return this.transport.start(events);
  }

  /**
   * The transport events of every peer: functions shared by all of them, each finding its
   * peer on the events object (`this[PEER]`), so that a connection costs one small object here
   * instead of six closures (idle sessions are what a server holds most). Transports call them
   * as methods of the object they were given (or of a spread copy of it).
   */
  static readonly #events = {
    onMessage(this: PeerEvents, m: JSONRPCMessage, info?: MessageInfo): void {
      this[PEER].onMessage(m, info);
    },
    onBatch(this: PeerEvents, items: unknown[], info?: MessageInfo): void {
      this[PEER].onBatch(items, info);
    },
    onClose(this: PeerEvents, e?: Error): void {
      this[PEER].onClose(e);
    },
    onEnd(this: PeerEvents, e?: Error): void {
      this[PEER].onEnd(e);
    },
    onRequestError(this: PeerEvents, id: RequestId, e: Error): void {
      this[PEER].settle(id)?.reject(e);
    },
    onError(this: PeerEvents, e: Error): void {
      const peer = this[PEER];
      // The first TRANSPORT_ERRORS_LOGGED are logged, then one line per power of ten: a peer
      // that sends garbage cannot flood the log.
      const n = ++peer.transportErrors;
      if (n <= TRANSPORT_ERRORS_LOGGED) peer.log.warn?.('transport error', { error: e.message });
      else if (n === TRANSPORT_ERRORS_LOGGED + 1 || isPowerOfTen(n))
        peer.log.warn?.('transport errors repeat (not logged one by one)', { count: n, last: e.message });
      peer.options.onError?.(e);
    },
  };

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** Registers (or with undefined removes) the handler of an inbound request method. `ping` answers `{}` by default. */
  setRequestHandler(method: string, handler: RequestHandler | undefined): void {
    (this.handlers ??= new Map()).set(method, handler);
  }

  setNotificationHandler(method: string, handler: NotificationHandler | undefined): void {
    (this.notificationHandlers ??= new Map()).set(method, handler);
  }

  /** Sets this side's declared capabilities (gating inbound requests by `entry.capability`). */
  setCapabilities(capabilities: Record<string, unknown> | undefined): void {
    this.capabilities = capabilities;
  }

  /**
   * Sets the capabilities the other side declared (the client's from `initialize`, the server's
   * from its result). From then on every outbound request whose table entry names a capability
   * the other side lacks is refused by {@link request} without being sent.
   * Undefined turns the check off.
   */
  setRemoteCapabilities(capabilities: Record<string, unknown> | undefined): void {
    this.remoteCapabilities = capabilities;
  }

  setPreDispatch(hook: PreDispatch | undefined): void {
    this.preDispatch = hook;
  }

  /** Routes progress for `token` to `callback` outside any request (e.g. a task's lifetime). */
  onProgressToken(token: ProgressToken, callback: ProgressCallback): () => void {
    return this.progress.register(token, callback);
  }

  /** The revision table that validates and routes messages. */
  get table(): ProtocolTable {
    return this.#table;
  }

  /** Switches to the negotiated revision's table (the lifecycle layer calls it after the handshake). */
  setTable(table: ProtocolTable): void {
    this.#table = table;
  }

  /** The id the next `request()` call will use: ids are allocated in order, synchronously. */
  get nextRequestId(): RequestId {
    return this.nextId;
  }

  /**
   * Sends a request and resolves with its result. Rejects with: RpcError (the error response),
   * RequestTimeoutError, RequestAbortedError, InvalidResultError (result fails the method's
   * schema), ConnectionClosedError, or the transport's send error.
   */
  request<R = unknown>(method: string, params?: Params, options?: RequestOptions): Promise<R> {
    if (this.closedWith) return Promise.reject(new ConnectionClosedError(this.closedWith.error));
    // the other side has ended its input: no response could arrive
    if (this.ended) return Promise.reject(new ConnectionClosedError(this.ended.error));
    const refusal = this.outboundRefusal(method, params);
    if (refusal) return Promise.reject(refusal);
    const signal = options?.signal;
    const onProgress = options?.onProgress;
    if (signal?.aborted) return Promise.reject(new RequestAbortedError(method, signal.reason));
    const id = this.nextId++;
    const p = new PendingRequest<R>(
      id,
      method,
      own(this.table.requests[this.out], method),
      options?.validateResult ?? this.options.validateResults ?? true,
    );
    const promise = p.take();
    let sendParams = params;
    if (onProgress) {
      const given = isObject(params?._meta) ? params._meta.progressToken : undefined;
      const token = isRequestId(given) ? given : id;
      try {
        this.progress.register(token, (progress) => {
          this.outbound.progress(p);
          onProgress(progress);
        });
      } catch (e) {
        return Promise.reject(e);
      }
      p.token = token;
      sendParams = { ...params, _meta: { ...(params?._meta as Params | undefined), progressToken: token } };
    }
    if (signal) {
      p.signal = signal;
      p.onAbort = () =>
        this.abandon(
          p,
          new RequestAbortedError(method, signal.reason),
          reasonText(signal.reason).slice(2) || 'Aborted',
        );
      signal.addEventListener('abort', p.onAbort, { once: true });
    }
    this.outbound.add(
      p,
      options?.timeout ?? this.options.timeout ?? 60_000,
      options?.resetTimeoutOnProgress,
      options?.maxTotalTimeout,
    );
    // a client span (no-op without an OpenTelemetry SDK); its trace context rides in _meta
    const traced = startClientSpan(method, id, sendParams, this.table.protocolVersion);
    sendParams = traced.params;
    const span = traced.span;
    if (span)
      promise.then(
        (v) => endSpan(span, undefined, v),
        (e: unknown) => endSpan(span, e),
      );
    const message: JSONRPCRequest =
      sendParams === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: sendParams };
    try {
      const related = options?.relatedRequestId;
      const sent = this.transport.send(message, related === undefined ? undefined : { relatedRequestId: related });
      if (sent !== SENT) sent.catch((e) => this.settle(id)?.reject(e));
    } catch (e) {
      this.settle(id)?.reject(e);
    }
    return promise;
  }

  /**
   * Why an outbound request may not be sent, or undefined: this one place decides for every
   * request path (session facades, handlers' `ctx.sendRequest`, task contexts, requestors).
   * - a handshake revision's session sends only its table's requests (-32601);
   * - the other side must have declared the capability the table entry names
   *   (CapabilityNotDeclaredError; e.g. `elicitation` for elicitation/create, `tasks` for
   *   tasks/* to a client), and the sub-capability its params need (`elicitation.url` for a URL
   *   elicitation, `sampling.tools` for sampling with tools: ../protocol/table.ts
   *   `missingParamCapability`). Task augmentation's own capability (`tasks.requests.<method>`, a
   *   SHOULD for requestors) is the requestor's check (../tasks/requestor.ts `callWithTask`).
   */
  private outboundRefusal(method: string, params: Params | undefined): RpcError | undefined {
    const entry = own(this.table.requests[this.out], method);
    if (!entry) {
      return this.table.lifecycle === 'handshake'
        ? new RpcError(
            ErrorCode.MethodNotFound,
            `${method} is not a ${this.side} request of protocol version ${this.table.protocolVersion}`,
          )
        : undefined;
    }
    const remote = this.remoteCapabilities;
    if (!remote) return undefined;
    const receiver = this.side === 'server' ? 'client' : 'server';
    if (entry.capability && !hasCapability(remote, entry.capability))
      return new CapabilityNotDeclaredError(method, entry.capability, receiver);
    const sub = missingParamCapability(method, params, remote);
    if (sub) return new CapabilityNotDeclaredError(method, sub, receiver);
    return undefined;
  }

  /**
   * Sends a notification. Rejects with ConnectionClosedError once closed. A handshake session
   * sends only its negotiated table's notifications: another revision's (e.g.
   * notifications/tasks/status after a 2024-11-05 initialize) is dropped (debug log), resolved.
   */
  notify(method: string, params?: Params, options?: { relatedRequestId?: RequestId }): Promise<void> {
    if (this.closedWith) return Promise.reject(new ConnectionClosedError(this.closedWith.error));
    if (this.table.lifecycle === 'handshake' && !own(this.table.notifications[this.out], method)) {
      this.log.debug?.('dropped notification outside the protocol version', {
        method,
        protocolVersion: this.table.protocolVersion,
      });
      return Promise.resolve();
    }
    const message: JSONRPCNotification =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    return this.transport.send(message, options);
  }

  /** Closes the transport; pending requests reject with ConnectionClosedError, handlers are aborted. */
  async close(): Promise<void> {
    if (!this.closedWith) await this.transport.close();
    this.onClose(undefined);
  }

  /** Removes a pending request and its clock, progress route and abort listener. */
  private settle(id: RequestId): PendingRequest | undefined {
    const p = this.outbound.settle(id);
    if (p?.token !== undefined) this.progress.delete(p.token);
    return p;
  }

  /** Fails a pending request locally and tells the other side (timeout, abort). */
  private abandon(pending: PendingRequest, error: RpcError, reason: string): void {
    const id = pending.id;
    const p = this.settle(id);
    if (!p) return;
    p.reject(error);
    if (this.closedWith || this.uncancellable.has(p.method)) return;
    this.notify('notifications/cancelled', cancelledParams(id, reason)).catch((e: Error) =>
      this.log.debug?.('could not send notifications/cancelled', { id, error: e.message }),
    );
  }

  /**
   * The other side sent its last message (TransportEvents.onEnd): our pending requests fail
   * (ConnectionClosedError), the requests in flight are answered, then the engine closes.
   */
  private onEnd(error: Error | undefined): void {
    if (this.closedWith || this.ended) return;
    this.ended = { error };
    const closedError = new ConnectionClosedError(error);
    for (const id of this.outbound.ids()) this.settle(id)?.reject(closedError);
    this.outbound.stopClocks();
    this.closeIfDone();
  }

  /** After the other side's end: closes once no inbound request is in flight. */
  private closeIfDone(): void {
    if (!this.ended || this.closedWith || this.inbound.size > 0) return;
    this.onClose(this.ended.error);
    this.transport.close().catch((e: Error) => this.log.debug?.('closing the transport failed', { error: e.message }));
  }

  private onClose(error: Error | undefined): void {
    if (this.closedWith) return;
    this.closedWith = { error };
    const closedError = new ConnectionClosedError(error);
    for (const id of this.outbound.ids()) this.settle(id)?.reject(closedError);
    this.outbound.stopClocks();
    this.inbound.cancelAll(closedError);
    this.progress.clear();
    this.options.onClose?.(error);
  }

  private onMessage(m: JSONRPCMessage, info: MessageInfo | undefined): void {
    switch (kindOf(m)) {
      case 'request':
        return this.onRequest(m as JSONRPCRequest, info);
      case 'notification':
        return this.onNotification(m as JSONRPCNotification, info);
      case 'result':
        return this.onResult(m as JSONRPCResultResponse);
      case 'error':
        return this.onErrorResponse(m as JSONRPCErrorResponse);
    }
    const c = classify(m);
    if (c.kind !== 'invalid') return;
    this.log.warn?.('invalid message', { reason: c.reason });
    if (c.reply) this.reply(c.reply);
    if (c.responseId !== undefined) {
      this.settle(c.responseId)?.reject(new RpcError(ErrorCode.InternalError, `Malformed response: ${c.reason}`));
    }
  }

  private onResult(m: JSONRPCResultResponse): void {
    const p = this.settle(m.id);
    if (!p) return void this.log.debug?.('dropped response with unknown id', { id: m.id });
    if (p.validate && p.entry?.result && !p.entry.result(m.result)) {
      return p.reject(new InvalidResultError(p.method, validationIssues(p.entry.result.errors)));
    }
    p.resolve(m.result);
  }

  private onErrorResponse(m: JSONRPCErrorResponse): void {
    if (m.id === undefined || m.id === null) {
      return void this.log.warn?.('error response without id', { code: m.error.code, message: m.error.message });
    }
    const p = this.settle(m.id);
    if (!p) return void this.log.debug?.('dropped error response with unknown id', { id: m.id });
    p.reject(RpcError.from(m.error));
  }

  private onNotification(m: JSONRPCNotification, info: MessageInfo | undefined): void {
    const { method, params } = m;
    if (method === 'notifications/cancelled') {
      const c = parseCancelled(params);
      if (c && this.inbound.cancel(c.requestId, c.reason ?? 'cancelled')) {
        this.log.debug?.('request cancelled by peer', { id: c.requestId, reason: c.reason });
      } else this.log.debug?.('ignored notifications/cancelled', { requestId: c?.requestId });
    } else if (method === 'notifications/progress') {
      const outcome = this.progress.route(params, (e) =>
        this.log.error?.('progress callback threw', { error: String(e) }),
      );
      if (outcome !== 'delivered') this.log.debug?.(`dropped progress (${outcome})`);
    }
    const handler = this.notificationHandlers?.has(method)
      ? this.notificationHandlers.get(method)
      : own(this.options.notificationHandlers ?? EMPTY, method);
    if (!handler) {
      if (method !== 'notifications/cancelled' && method !== 'notifications/progress')
        this.log.debug?.('unhandled notification', { method });
      return;
    }
    const entry = own(this.table.notifications[this.in], method);
    // a handshake session takes its negotiated revision's notifications only (as for requests)
    if (!entry && this.table.lifecycle === 'handshake')
      return void this.log.debug?.('dropped notification outside the protocol version', { method });
    if (
      entry &&
      ((params === undefined && entry.paramsRequired) ||
        (params !== undefined && entry.params && !entry.params(params)))
    ) {
      return void this.log.debug?.('dropped notification with invalid params', { method });
    }
    try {
      const r = handler(params, { method, info, session: this.session });
      if (r && typeof (r as Promise<void>).then === 'function') {
        (r as Promise<void>).catch((e) =>
          this.log.error?.('notification handler failed', { method, error: String(e) }),
        );
      }
    } catch (e) {
      this.log.error?.('notification handler failed', { method, error: String(e) });
    }
  }

  /**
   * Hands a response to the transport. A result the transport cannot serialise (a cycle, a value
   * JSON has no form for: `UnserializableMessageError`, thrown before anything is sent) is
   * logged and answered -32603 naming the handler of `method` (with `params`) instead, so that
   * the request is answered once.
   */
  private reply(message: JSONRPCResultResponse | JSONRPCErrorResponse, method?: string, params?: unknown): void {
    if (this.closedWith) return;
    const related = message.id === undefined || message.id === null ? undefined : { relatedRequestId: message.id };
    let sent: Promise<void>;
    try {
      sent = this.transport.send(message, related);
    } catch (e) {
      sent = Promise.reject(e);
    }
    if (sent !== SENT) sent.catch((e: Error) => this.unsent(message, e, method, params));
  }

  private unsent(
    message: JSONRPCResultResponse | JSONRPCErrorResponse,
    e: Error,
    method: string | undefined,
    params: unknown,
  ): void {
    if (!(e instanceof UnserializableMessageError) || !('result' in message) || this.closedWith) {
      this.log.debug?.('could not send response', { error: e.message });
      return;
    }
    const label = method === undefined ? 'the handler' : handlerLabel(method, params);
    this.log.error?.('result cannot be serialised as JSON', {
      method,
      handler: label,
      id: message.id,
      error: e.message,
    });
    this.reply(
      errorResponse(
        message.id ?? undefined,
        ErrorCode.InternalError,
        `Internal error: ${label} returned a result that cannot be serialised as JSON`,
      ),
    );
  }

  /**
   * Decides whether a request may run: the pre-dispatch hook, method lookup, capability gate and
   * params validation, in that order. Returns the error response to send, or undefined.
   */
  private refuse(
    req: JSONRPCRequest,
    entry: MethodEntry | undefined,
    handler: RequestHandler | undefined,
    info: MessageInfo | undefined,
  ): JSONRPCErrorResponse | undefined {
    const { id, method, params } = req;
    try {
      const refusal = this.preDispatch?.(req, entry, info);
      if (refusal) return errorResponse(id, refusal.code, refusal.message, refusal.data);
      const allowed =
        !entry?.capability ||
        (this.options.canHandle
          ? this.options.canHandle(entry)
          : this.capabilities === undefined || hasCapability(this.capabilities, entry.capability));
      // a session serves its (negotiated) revision's table and nothing else: a handler for a
      // method of another revision (tasks/* after a 2024-11-05 initialize, ping in a stateless
      // revision) is not reached; extensions name theirs
      const known = entry !== undefined || !!this.options.extensionMethods?.includes(method);
      if (!handler || !allowed || !known)
        return errorResponse(id, ErrorCode.MethodNotFound, `Method not found: ${method}`);
      if (entry && (params === undefined ? entry.paramsRequired : entry.params && !entry.params(params))) {
        const issues =
          params === undefined
            ? [{ path: '', keyword: 'required', message: 'params are required' }]
            : validationIssues(entry.params!.errors);
        return errorResponse(
          id,
          ErrorCode.InvalidParams,
          `Invalid params for ${method}: ${issues[0].path || '/'} ${issues[0].message}`,
          { errors: issues },
        );
      }
      // a mode or feature this side did not declare (client/elicitation, "Error Handling": -32602)
      const sub =
        entry?.capability && this.capabilities !== undefined
          ? missingParamCapability(method, params, this.capabilities)
          : undefined;
      if (sub)
        return errorResponse(
          id,
          ErrorCode.InvalidParams,
          `Invalid params for ${method}: capability ${sub.join('.')} was not declared`,
          { capability: sub.join('.') },
        );
      return undefined;
    } catch (e) {
      this.log.error?.('request dispatch failed', { method, id, error: e instanceof Error ? e.message : String(e) });
      return errorResponse(id, ErrorCode.InternalError, 'Internal error');
    }
  }

  /**
   * Runs an admitted request's handler. A handler that returns a value (not a promise) is
   * answered before this returns; a promise is answered when it settles.
   */
  private onRequest(req: JSONRPCRequest, info: MessageInfo | undefined, batch?: BatchReply): void {
    const { id, method, params } = req;
    if (this.inbound.has(id)) return void this.log.warn?.('dropped request reusing an in-flight id', { id, method });
    const entry = own(this.table.requests[this.in], method);
    const handler = this.handlers?.has(method)
      ? this.handlers.get(method)
      : (own(this.options.requestHandlers ?? EMPTY, method) ?? (method === 'ping' ? pong : undefined));
    const refusal = this.refuse(req, entry, handler, info);
    if (refusal) {
      traceRefusal(
        method,
        info?.requestId ?? id,
        params,
        info?.protocolVersion ?? this.table.protocolVersion,
        info?.sessionId,
        refusal.error,
      );
      return batch ? batch.add(refusal) : this.reply(refusal);
    }
    const r = this.inbound.begin(id, method);
    if (batch) {
      batch.expect();
      (this.batchOf ??= new WeakMap()).set(r, batch);
    }
    watchCarrier(r, info);
    // a server span, child of the trace context the request's _meta carries (no-op without an SDK)
    const traced = startServerSpan(
      method,
      info?.requestId ?? id,
      params,
      info?.protocolVersion ?? this.table.protocolVersion,
      info?.sessionId,
    );
    r.span = traced.span;
    let out: unknown;
    let pending: boolean;
    try {
      out = withContext(traced.context, () => handler!(params, new InboundContext(this, r, params, info, this.log)));
      pending = isThenable(out);
    } catch (e) {
      return this.respond(r, entry, e, true, params);
    }
    // the row whose result validator checks the answer: none when the handler checked it already
    const checks = (handler as { [RESULTS_CHECKED]?: boolean })[RESULTS_CHECKED] === true ? undefined : entry;
    if (!pending) return this.respond(r, checks, out, false, params);
    Promise.resolve(out).then(
      (v) => this.respond(r, checks, v, false, params),
      (e: unknown) => this.respond(r, checks, e, true, params),
    );
  }

  /**
   * Answers a finished handler: its result (checked by `entry`'s result validator, if any), its
   * RpcError, or -32603 naming the handler (`params` tell which: ../protocol/subject.ts), the
   * failure logged with the error; nothing once cancelled or closed.
   */
  private respond(
    r: InboundRequest,
    entry: MethodEntry | undefined,
    value: unknown,
    failed: boolean,
    params: unknown,
  ): void {
    const { id, method } = r;
    this.inbound.end(r);
    r.onEnd?.();
    // the other side has ended: close once this answer (handed to the transport below) was the last
    if (this.ended) queueMicrotask(() => this.closeIfDone());
    const batch = this.batchOf?.get(r);
    const span = r.span;
    if (this.closedWith) {
      if (span) endSpan(span, new ConnectionClosedError(this.closedWith.error));
      return batch?.skip();
    }
    if (r.cancelled) {
      if (span) endSpan(span, new RequestAbortedError(method, 'cancelled'));
      if (batch) return batch.skip();
      void this.transport.unanswered?.(id);
      return;
    }
    const answer = (m: JSONRPCErrorResponse | JSONRPCResultResponse) => {
      if (span) endSpan(span, 'error' in m ? m.error : undefined, 'result' in m ? m.result : undefined);
      if (batch) batch.answer(m);
      else this.reply(m, method, params);
    };
    if (failed) {
      if (value instanceof RpcError) return answer(errorResponse(id, value.code, value.message, value.data));
      // the error stays in the log (it may hold what the client must not see); the answer names the handler
      const handler = handlerLabel(method, params);
      this.log.error?.('request handler failed', {
        method,
        handler,
        id,
        error: value instanceof Error ? value.message : String(value),
        stack: value instanceof Error ? value.stack : undefined,
      });
      return answer(errorResponse(id, ErrorCode.InternalError, `Internal error: ${handler} failed`));
    }
    // a revision whose results carry resultType: one without it is a complete result (the
    // default its Result type gives), filled in before the check (table.resultType)
    const result =
      this.table.resultType === true && isObject(value) && value.resultType === undefined
        ? { resultType: 'complete', ...value }
        : value === undefined
          ? this.table.resultType === true
            ? { resultType: 'complete' }
            : {}
          : value;
    // what came back when it is no result object (its type, never its contents); undefined
    // stands for {}, so it is named only when the method's result has required members
    let returned: string | undefined;
    if (!isObject(result))
      returned = result === null ? 'null' : Array.isArray(result) ? 'an array' : `a ${typeof result}`;
    else if (entry?.result && !entry.result(result)) {
      const handler = handlerLabel(method, params);
      this.log.error?.('handler result fails the result schema', {
        method,
        handler,
        id,
        errors: validationIssues(entry.result.errors),
      });
      if (value !== undefined)
        return answer(
          errorResponse(
            id,
            ErrorCode.InternalError,
            `Internal error: ${handler} returned a result that is not a valid ${method} result`,
          ),
        );
      returned = 'undefined';
    }
    if (returned !== undefined) {
      this.log.error?.('handler result is not an object', { method, id, returned });
      return answer(
        errorResponse(
          id,
          ErrorCode.InternalError,
          `Internal error: the ${method} handler returned ${returned}, not a result object`,
          { returned },
        ),
      );
    }
    answer(resultResponse(id, result as Record<string, unknown>));
  }

  /**
   * An inbound JSON-RPC batch (JSON-RPC 2.0 §6). Where the negotiated revision has batches (its
   * table's `batches`: 2025-03-26, whose basic page says implementations MUST support receiving
   * them) every entry is handled as if it came alone, and the responses (requests' answers and
   * the -32600 of invalid entries, ids as read) leave as one array once every request of the
   * batch is answered (cancelled ones have none); a batch of only notifications and responses
   * is answered with nothing. An empty array, or any batch where the revision has none, gets
   * one -32600 error (no id).
   */
  private onBatch(items: unknown[], info: MessageInfo | undefined): void {
    if (items.length === 0 || !this.table.batches) {
      const reason =
        items.length === 0 ? 'empty batch' : `protocol version ${this.table.protocolVersion} has no JSON-RPC batches`;
      this.log.warn?.('invalid message', { reason });
      return this.reply(errorResponse(undefined, ErrorCode.InvalidRequest, `Invalid Request: ${reason}`));
    }
    // the dispatch comes with the generated tables of revisions that have batches (so a bundle of
    // others carries none); a hand-built table with `batches` names it too (`dispatchBatch`)
    const dispatch = this.table.batchDispatch as typeof dispatchBatch | undefined;
    if (dispatch) return dispatch(this as unknown as BatchHost, items, info);
    this.reply(
      errorResponse(undefined, ErrorCode.InternalError, 'Internal error: the table has batches but no batchDispatch'),
    );
  }

  private replyBatch(responses: Array<JSONRPCResultResponse | JSONRPCErrorResponse>): void {
    if (this.closedWith) return;
    if (!this.transport.sendBatch) {
      for (const m of responses) this.reply(m);
      return;
    }
    this.transport
      .sendBatch(responses)
      .catch((e: Error) => this.log.debug?.('could not send batch response', { error: e.message }));
  }
}
