/**
 * The peer engine: one side (`client` or `server`) of one connection, over one Transport and one
 * ProtocolTable. Revision-agnostic; the lifecycle (initialize handshake or per-request `_meta`)
 * sits on top and plugs in through {@link PeerOptions.preDispatch} and
 * {@link Peer.setCapabilities}.
 *
 * Outbound: ids `0, 1, 2, ...`, or `<prefix>0, <prefix>1, ...` (strings) over a transport that
 * names a {@link Transport.requestIdPrefix} (a session served by several processes: ids unique
 * across them); responses correlate by exact id (`"1"` is not `1`); unknown, late or duplicate
 * responses are dropped with a debug log, never completing another request. Inbound: every request gets exactly
 * one response (unless it is cancelled: then none, case 007); notifications never get one
 * (case 004). Spec: 2025-11-25 `basic/index.mdx`, `utilities/{cancellation,progress,ping}.mdx`.
 */
import type { Direction, ProtocolTable } from '../protocol/table.js';
import type { JSONRPCMessage, MessageInfo, Transport, TransportEvents } from '../jsonrpc/transport.js';
import {
  ConnectionClosedError,
  ErrorCode,
  InvalidResultError,
  RequestTimeoutError,
  RpcError,
  validationIssues,
} from '../jsonrpc/errors.js';
import {
  classify,
  errorResponse,
  kindOf,
  type JSONRPCErrorResponse,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  type InvalidMessage,
  type MessageKind,
  type Params,
  type ProgressToken,
  type RequestId,
} from '../jsonrpc/message.js';
import { ProgressRouter, type ProgressCallback } from './progress.js';
import { type InboundRequest, InboundRequests, UNCANCELLABLE_METHODS, cancelledParams } from './cancellation.js';
import { OutboundRequests, type PendingRequest } from './outbound.js';
import type { BatchHost, BatchReply, dispatchBatch } from './batch.js';
import type { Logger, NotificationHandler, RequestHandler, RequestOptions } from './context.js';
import { EMPTY, dispatchNotification, dispatchRequest, own } from './dispatch.js';
import type { DispatchHost, PreparedMethod } from './dispatch-host.js';
import { reply } from './answer.js';
import type { PeerOptions, PreDispatch, Side } from './peer-options.js';
import { type RequestHost, sendRequest } from './request.js';

export type { Logger, NotificationHandler, RequestContext, RequestHandler, RequestOptions } from './context.js';
export {
  DIRECT_CALL,
  type DirectCall,
  NOT_DIRECT,
  RESULTS_CHECKED,
  type PeerOptions,
  type PreDispatch,
  type Side,
} from './peer-options.js';

export { hasCapability } from '../protocol/table.js';

/** Transport errors logged one by one before only counts are logged. */
const TRANSPORT_ERRORS_LOGGED = 10;
const isPowerOfTen = (n: number): boolean => {
  while (n >= 10 && n % 10 === 0) n /= 10;
  return n === 1;
};
const DEFAULT_UNCANCELLABLE: ReadonlySet<string> = new Set(UNCANCELLABLE_METHODS);

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
  /** Each inbound method's table row and handler once looked up (./dispatch.ts `prepare`); reset when either changes. */
  private prepared: Map<string, PreparedMethod> | undefined;
  private nextId = 0;
  /** The transport's {@link Transport.requestIdPrefix}: outbound ids are `<prefix><n>` strings. */
  private readonly idPrefix: string | undefined;
  /** Transport errors seen (see the rate limit in {@link start}). */
  private transportErrors = 0;
  private closedWith: { error?: Error } | undefined;
  /** The transport's close that {@link close} started, which every later call returns. */
  private closing: Promise<void> | undefined;

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
    this.idPrefix = options.transport.requestIdPrefix;
  }

  /** Starts the transport; inbound messages flow from then on. */
  start(): Promise<void> {
    const e = Peer.#events;
    const events: PeerEvents = {
      onMessage: e.onMessage,
      onMessageOfKind: e.onMessageOfKind,
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
    onMessageOfKind(this: PeerEvents, m: JSONRPCMessage, kind: MessageKind, info?: MessageInfo): void {
      this[PEER].onMessage(m, info, kind);
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
    this.prepared = undefined;
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
    this.prepared = undefined;
  }

  /** The id the next `request()` call will use: ids are allocated in order, synchronously. */
  get nextRequestId(): RequestId {
    return this.idPrefix === undefined ? this.nextId : `${this.idPrefix}${this.nextId}`;
  }

  /** Mints the id of an outbound request (./request.ts): the {@link nextRequestId}, then the next. */
  private mintId(): RequestId {
    const n = this.nextId++;
    return this.idPrefix === undefined ? n : `${this.idPrefix}${n}`;
  }

  /**
   * Sends a request and resolves with its result. Rejects with: RpcError (the error response),
   * RequestTimeoutError, RequestAbortedError, InvalidResultError (result fails the method's
   * schema), ConnectionClosedError, or the transport's send error.
   */
  request<R = unknown>(method: string, params?: Params, options?: RequestOptions): Promise<R> {
    return sendRequest<R>(this as unknown as RequestHost, method, params, options);
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

  /**
   * Closes: pending requests reject with ConnectionClosedError and handlers are aborted at once
   * (what the other side answers while the transport closes is dropped: a request may have run
   * all the same), then the transport closes.
   */
  close(): Promise<void> {
    // (a later call waits for the same transport close; a transport that closed by itself is done)
    if (this.closing) return this.closing;
    if (this.closedWith) return Promise.resolve();
    this.onClose(undefined);
    return (this.closing = this.transport.close());
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
   * (ConnectionClosedError), the handlers in flight are told (their `ctx.signal` aborts with
   * that error) and answered with what they return or throw, then the engine closes.
   */
  private onEnd(error: Error | undefined): void {
    if (this.closedWith || this.ended) return;
    this.ended = { error };
    this.failSent(error);
    this.inbound.warnAll(new ConnectionClosedError(error));
    this.closeIfDone();
  }

  /** Our requests in flight fail at the end or close: each was handed to the transport, so it may have run. */
  private failSent(error: Error | undefined): void {
    const closedError = new ConnectionClosedError(
      error,
      'Connection closed before the response (the request may have run)',
    );
    for (const id of this.outbound.ids()) this.settle(id)?.reject(closedError);
    this.outbound.stopClocks();
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
    this.failSent(error);
    this.inbound.cancelAll(new ConnectionClosedError(error));
    this.progress.clear();
    this.options.onClose?.(error);
  }

  /** One inbound message; `kind`: what the transport's `kindOf` found (else sorted here, once). */
  private onMessage(m: JSONRPCMessage, info: MessageInfo | undefined, kind?: MessageKind): void {
    switch (kind ?? kindOf(m)) {
      case 'request':
        return this.onRequest(m as JSONRPCRequest, info);
      case 'notification':
        return dispatchNotification(this as unknown as DispatchHost, m as JSONRPCNotification, info);
      case 'result':
        return this.onResult(m as JSONRPCResultResponse);
      case 'error':
        return this.onErrorResponse(m as JSONRPCErrorResponse);
    }
    // (none of the kinds above: classify says what is invalid)
    const c = classify(m) as InvalidMessage;
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

  /** Hands a response to the transport (./dispatch.ts `reply`). */
  private reply(message: JSONRPCResultResponse | JSONRPCErrorResponse, method?: string, params?: unknown): void {
    reply(this as unknown as DispatchHost, message, method, params);
  }

  /** Dispatches an inbound request (./dispatch.ts; batch.ts calls it with the batch it belongs to). */
  private onRequest(req: JSONRPCRequest, info: MessageInfo | undefined, batch?: BatchReply): void {
    dispatchRequest(this as unknown as DispatchHost, req, info, batch);
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
}
