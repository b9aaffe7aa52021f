/**
 * Cancellation (2025-11-25 `basic/utilities/cancellation.mdx`); the request timeouts are
 * ./outbound.ts's.
 *
 * Inbound: a `notifications/cancelled` for a request being handled aborts the handler's signal
 * and no response is sent for it (case 007). Unknown or finished ids and malformed notifications
 * are ignored. Outbound: the sender of a cancel ignores a response that arrives afterwards.
 */
import { exactField, isObject, isRequestId, type Params, type RequestId } from '../jsonrpc/message.js';
import type { Span } from '@opentelemetry/api';
import type { MessageInfo } from '../jsonrpc/transport.js';

/** Requests that are never cancelled by notification (`initialize` MUST NOT be cancelled). */
export const UNCANCELLABLE_METHODS: readonly string[] = ['initialize'];

/** Parses `notifications/cancelled` params; undefined when malformed. */
export function parseCancelled(params: unknown): { requestId: RequestId; reason?: string } | undefined {
  if (!isObject(params)) return undefined;
  const { reason } = params;
  const requestId = exactField(params, 'requestId');
  if (!isRequestId(requestId)) return undefined;
  return typeof reason === 'string' ? { requestId, reason } : { requestId };
}

/** `notifications/cancelled` params for `requestId`. */
export function cancelledParams(requestId: RequestId, reason?: string): Params {
  return reason === undefined ? { requestId } : { requestId, reason };
}

/** The signals {@link InboundRequest.warn} aborted, of requests not cancelled since. */
const WARNED = new WeakSet<AbortSignal>();
/**
 * Whether `signal` (a handler's `ctx.signal`) aborted only because the other side's input ended
 * ({@link InboundRequest.warn}): its request is still answered, so a handler not yet started starts.
 */
export const warnedOnly = (signal: AbortSignal): boolean => WARNED.has(signal);

/**
 * One inbound request being handled. Its AbortSignal is created on first use (most handlers
 * never read it); `cancel` aborts it with the reason.
 */
export class InboundRequest {
  private controller: AbortController | undefined;
  private reasonValue: unknown;
  cancelled = false;
  /** Set when the handler has finished (its response, if any, is decided). */
  finished = false;
  /** Called once when the handler has finished (e.g. to stop watching the carrying stream). */
  onEnd: (() => void) | undefined = undefined;
  /** The request's OpenTelemetry span while an SDK records it (./tracing.ts), ended with its answer. */
  span: Span | undefined = undefined;

  constructor(
    readonly id: RequestId,
    readonly method: string,
  ) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.reasonValue);
    }
    return this.controller.signal;
  }

  /** Aborts the handler's signal (once; not after the handler finished). */
  cancel(reason: unknown): void {
    if (this.cancelled || this.finished) return;
    this.cancelled = true;
    this.reasonValue = reason;
    if (this.controller) WARNED.delete(this.controller.signal);
    this.controller?.abort(reason);
  }

  /**
   * Aborts the handler's signal with `reason` without cancelling the request: what the handler
   * then returns or throws is still answered (the other side's input ended, its output did not).
   */
  warn(reason: unknown): void {
    if (this.cancelled || this.finished) return;
    // the getter makes the controller, not aborted (the request is not cancelled)
    WARNED.add(this.signal);
    this.controller!.abort(reason);
  }
}

/**
 * A {@link MessageInfo} whose transport tells the engine directly when the connection that
 * carried a request dies before the request is answered, so that `signal` need not exist
 * unless someone reads it (HTTP: one per POSTed request otherwise).
 */
export interface CarrierWatch extends MessageInfo {
  /**
   * Called by the engine at most once, with the handle of the inbound request the message
   * began: the transport calls `request.cancel(reason)` (reason: an Error) when the carrier
   * dies unanswered, at once when it already has. `signal`, when read, aborts alike.
   */
  watchCarrier(request: { cancel(reason: unknown): void }): void;
}

/**
 * Cancels `r` when the connection that carried it goes away: through
 * `CarrierWatch.watchCarrier` when the transport offers it, else through `info.signal`
 * (its listener is removed when the handler finishes, via `r.onEnd`).
 */
export function watchCarrier(r: InboundRequest, info: MessageInfo | undefined): void {
  if (info === undefined) return;
  if (typeof (info as Partial<CarrierWatch>).watchCarrier === 'function') return (info as CarrierWatch).watchCarrier(r);
  const signal = info.signal;
  if (!signal) return;
  const onAbort = (): void => r.cancel(signal.reason ?? 'transport closed');
  if (signal.aborted) return onAbort();
  signal.addEventListener('abort', onAbort, { once: true });
  r.onEnd = () => signal.removeEventListener('abort', onAbort);
}

/**
 * The inbound requests being handled, by id (ids compare by type and value). One request at a
 * time (a session's usual pace) is held in a field, not the Map: a Map that is emptied after
 * every entry rebuilds its table on each delete.
 */
export class InboundRequests {
  /** The request in flight while it is the only one (then `map` holds none). */
  private one: InboundRequest | undefined;
  /** The requests in flight by id while there are more than one. */
  private map = new Map<RequestId, InboundRequest>();

  /** The request in flight with `id`, finished or not. */
  private get(id: RequestId): InboundRequest | undefined {
    return this.one ? (this.one.id === id ? this.one : undefined) : this.map.get(id);
  }

  has(id: RequestId): boolean {
    return !!this.get(id);
  }

  begin(id: RequestId, method: string): InboundRequest {
    const r = new InboundRequest(id, method);
    const one = this.one;
    if (!one && !this.map.size) this.one = r;
    else {
      if (one) this.map.set(one.id, one);
      this.one = undefined;
      this.map.set(id, r);
    }
    return r;
  }

  end(r: InboundRequest): void {
    r.finished = true;
    if (this.one === r) this.one = undefined;
    else if (this.map.get(r.id) === r) this.map.delete(r.id);
  }

  /** Cancels the request `id`; false when it is unknown or already finished. */
  cancel(id: RequestId, reason: unknown): boolean {
    const r = this.get(id);
    if (!r || r.finished) return false;
    r.cancel(reason);
    return true;
  }

  /** {@link InboundRequest.warn}s every request in flight (the other side's input ended). */
  warnAll(reason: unknown): void {
    this.one?.warn(reason);
    for (const r of this.map.values()) r.warn(reason);
  }

  /** Cancels every request (the connection closed). */
  cancelAll(reason: unknown): void {
    this.one?.cancel(reason);
    this.one = undefined;
    for (const r of this.map.values()) r.cancel(reason);
    this.map.clear();
  }

  get size(): number {
    return this.one ? 1 : this.map.size;
  }
}
