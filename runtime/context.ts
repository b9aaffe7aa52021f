/**
 * What request handlers see: the handler signature, the per-request context (cancellation
 * signal, progress, notifications and requests on behalf of the request) and outbound request
 * options. Spec: 2025-11-25 `basic/utilities/{cancellation,progress}.mdx`.
 */
import type { MessageInfo } from './transport/types.js';
import type { Params, RequestId } from './jsonrpc.js';
import { ProgressReporter, type ProgressCallback } from './progress.js';
import type { InboundRequest } from './cancellation.js';

/** Optional diagnostics sink; every method optional. Never receives message bodies. */
export interface Logger {
  debug?(message: string, data?: Record<string, unknown>): void;
  warn?(message: string, data?: Record<string, unknown>): void;
  error?(message: string, data?: Record<string, unknown>): void;
}

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
}

/** What a request handler gets besides the params. */
export interface RequestContext {
  readonly requestId: RequestId;
  readonly method: string;
  /** Aborted when the requester cancels (then no response is sent) or the connection closes. */
  readonly signal: AbortSignal;
  /** `params._meta` of the request, if any. */
  readonly meta: Record<string, unknown> | undefined;
  /** Transport facts (HTTP session, headers). */
  readonly info: MessageInfo | undefined;
  /**
   * The session object the engine serves (on a server: its `ServerSession`), so that handlers
   * shared by many sessions reach per-session state; undefined when the engine was given none.
   */
  readonly session?: object;
  /** Sends progress with the request's token; resolves without sending when it has none. */
  sendProgress(progress: number, total?: number, message?: string): Promise<void>;
  /** A notification tied to this request; nothing is sent once it finished or was cancelled. */
  sendNotification(method: string, params?: Params): Promise<void>;
  /** A request to the other side on behalf of this one; aborted if this one is cancelled. */
  sendRequest<R = unknown>(method: string, params?: Params, options?: RequestOptions): Promise<R>;
}

/**
 * Handles one inbound request. `params` is what the request carried (already checked against the
 * method's params schema; undefined when omitted). Return the result object (undefined sends
 * `{}`); it is checked against the method's result schema. Throw an RpcError to choose the error
 * response; any other throw becomes `-32603 Internal error` with no detail.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RequestHandler<P = any, R = unknown> = (params: P, ctx: RequestContext) => R | Promise<R>;
/**
 * Handles one inbound notification (params checked against the method's schema: an invalid one
 * is dropped before reaching the handler). Nothing is ever sent back; a throw is logged.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type NotificationHandler<P = any> = (params: P, ctx: { method: string; info: MessageInfo | undefined; session?: object }) => void | Promise<void>;

/** What a {@link InboundContext} needs from the engine. */
export interface ContextHost {
  notify(method: string, params?: Params, options?: { relatedRequestId?: RequestId }): Promise<void>;
  request<R = unknown>(method: string, params?: Params, options?: RequestOptions): Promise<R>;
  readonly session?: object;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The RequestContext of one inbound request (a class: no per-request closures). */
export class InboundContext implements RequestContext {
  readonly meta: Record<string, unknown> | undefined;
  private reporter: ProgressReporter | undefined;

  constructor(
    private readonly peer: ContextHost,
    private readonly r: InboundRequest,
    params: Params | undefined,
    readonly info: MessageInfo | undefined,
    private readonly log: Logger,
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

  sendProgress(progress: number, total?: number, message?: string): Promise<void> {
    if (this.r.finished || this.r.cancelled) return Promise.resolve();
    this.reporter ??= new ProgressReporter(
      ProgressReporter.tokenOf({ _meta: this.meta }),
      (p) => this.peer.notify('notifications/progress', p, { relatedRequestId: this.r.id }),
      (why) => this.log.debug?.('progress dropped', { id: this.r.id, why }),
    );
    return this.reporter.report(progress, total, message);
  }

  sendNotification(method: string, params?: Params): Promise<void> {
    if (this.r.finished || this.r.cancelled) {
      this.log.debug?.('notification after request end not sent', { id: this.r.id, method });
      return Promise.resolve();
    }
    return this.peer.notify(method, params, { relatedRequestId: this.r.id });
  }

  sendRequest<R = unknown>(method: string, params?: Params, options: RequestOptions = {}): Promise<R> {
    const signal = options.signal ? AbortSignal.any([options.signal, this.r.signal]) : this.r.signal;
    return this.peer.request<R>(method, params, { ...options, relatedRequestId: this.r.id, signal });
  }
}
