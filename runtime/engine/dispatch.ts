// size: a request admitted, dispatched and answered (respond, answerOf, the direct form's answerAtOnce) share the in-flight bookkeeping; 31 lines over
/**
 * Inbound dispatch of the peer engine (./peer.ts): a request admitted (pre-dispatch hook, method
 * lookup, capability gate, params validation), run and answered exactly once; a notification
 * routed (cancellation, progress) and handed to its handler. Spec: 2025-11-25 `basic/index.mdx`,
 * `utilities/{cancellation,progress,ping}.mdx`.
 */
import { endSpan, startServerSpan, traceRefusal, tracing, withContext } from './tracing.js';
import {
  type Direction,
  type MethodEntry,
  type ProtocolTable,
  hasCapability,
  missingParamCapability,
} from '../protocol/table.js';
import type { MessageInfo, Transport } from '../jsonrpc/transport.js';
import {
  ConnectionClosedError,
  ErrorCode,
  RequestAbortedError,
  RpcError,
  UnserializableMessageError,
  validationIssues,
} from '../jsonrpc/errors.js';
import { SENT } from '../jsonrpc/sent.js';
import { handlerLabel } from '../protocol/subject.js';
import {
  errorResponse,
  idText,
  isObject,
  resultResponse,
  type JSONRPCErrorResponse,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  type RequestId,
} from '../jsonrpc/message.js';
import type { ProgressRouter } from './progress.js';
import { type InboundRequest, type InboundRequests, parseCancelled, watchCarrier } from './cancellation.js';
import type { BatchReply } from './batch.js';
import { InboundContext, type Logger, type NotificationHandler, type RequestHandler } from './context.js';
import {
  DIRECT_CALL,
  type DirectCall,
  NOT_DIRECT,
  type PeerOptions,
  type PreDispatch,
  RESULTS_CHECKED,
} from './peer-options.js';

/** Shared stand-in for an absent logger or handler table. */
export const EMPTY: Readonly<Record<string, never>> = Object.freeze({});
const pong = (): Record<string, never> => ({});

/** `rec[key]` when `key` is its own property (peer input never reaches the prototype). */
export const own = <T>(rec: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(rec, key) ? rec[key] : undefined;
/** True for a promise or any object or function with a `then` method (a handler's result that is awaited). */
export const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  (typeof v === 'object' || typeof v === 'function') &&
  v !== null &&
  typeof (v as PromiseLike<unknown>).then === 'function';

/** What dispatch reads and changes of the engine: a `Peer`'s private state, structurally. */
export interface DispatchHost {
  readonly table: ProtocolTable;
  readonly in: Direction;
  readonly log: Logger;
  readonly session: object | undefined;
  readonly options: PeerOptions;
  readonly transport: Transport;
  readonly inbound: InboundRequests;
  readonly progress: ProgressRouter;
  readonly handlers: Map<string, RequestHandler | undefined> | undefined;
  readonly notificationHandlers: Map<string, NotificationHandler | undefined> | undefined;
  readonly capabilities: Record<string, unknown> | undefined;
  readonly preDispatch: PreDispatch | undefined;
  readonly ended: { error: Error | undefined } | undefined;
  readonly closedWith: { error?: Error } | undefined;
  batchOf: WeakMap<InboundRequest, BatchReply> | undefined;
  closeIfDone(): void;
}

export function dispatchNotification(host: DispatchHost, m: JSONRPCNotification, info: MessageInfo | undefined): void {
  const { method, params } = m;
  if (method === 'notifications/cancelled') {
    const c = parseCancelled(params);
    if (c && host.inbound.cancel(c.requestId, c.reason ?? 'cancelled')) {
      host.log.debug?.('request cancelled by peer', { id: c.requestId, reason: c.reason });
    } else host.log.debug?.('ignored notifications/cancelled', { requestId: c?.requestId });
  } else if (method === 'notifications/progress') {
    const outcome = host.progress.route(params, (e) =>
      host.log.error?.('progress callback threw', { error: String(e) }),
    );
    if (outcome !== 'delivered') host.log.debug?.(`dropped progress (${outcome})`);
  }
  const handler = host.notificationHandlers?.has(method)
    ? host.notificationHandlers.get(method)
    : own(host.options.notificationHandlers ?? EMPTY, method);
  if (!handler) {
    if (method !== 'notifications/cancelled' && method !== 'notifications/progress')
      host.log.debug?.('unhandled notification', { method });
    return;
  }
  const entry = own(host.table.notifications[host.in], method);
  // a handshake session takes its negotiated revision's notifications only (as for requests)
  if (!entry && host.table.lifecycle === 'handshake')
    return void host.log.debug?.('dropped notification outside the protocol version', { method });
  if (
    entry &&
    ((params === undefined && entry.paramsRequired) || (params !== undefined && entry.params && !entry.params(params)))
  ) {
    return void host.log.debug?.('dropped notification with invalid params', { method });
  }
  try {
    const r = handler(params, { method, info, session: host.session });
    if (r && typeof (r as Promise<void>).then === 'function') {
      (r as Promise<void>).catch((e) => host.log.error?.('notification handler failed', { method, error: String(e) }));
    }
  } catch (e) {
    host.log.error?.('notification handler failed', { method, error: String(e) });
  }
}

/**
 * Decides whether a request may run: the pre-dispatch hook, method lookup, capability gate and
 * params validation, in that order. Returns the error response to send, or undefined.
 */
export function refuse(
  host: DispatchHost,
  req: JSONRPCRequest,
  entry: MethodEntry | undefined,
  handler: RequestHandler | undefined,
  info: MessageInfo | undefined,
): JSONRPCErrorResponse | undefined {
  const { id, method, params } = req;
  try {
    const refusal = host.preDispatch?.(req, entry, info);
    if (refusal) return errorResponse(id, refusal.code, refusal.message, refusal.data);
    const allowed =
      !entry?.capability ||
      (host.options.canHandle
        ? host.options.canHandle(entry)
        : host.capabilities === undefined || hasCapability(host.capabilities, entry.capability));
    // a session serves its (negotiated) revision's table and nothing else: a handler for a
    // method of another revision (tasks/* after a 2024-11-05 initialize, ping in a stateless
    // revision) is not reached; extensions name theirs
    const known = entry !== undefined || !!host.options.extensionMethods?.includes(method);
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
      entry?.capability && host.capabilities !== undefined
        ? missingParamCapability(method, params, host.capabilities)
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
    host.log.error?.('request dispatch failed', { method, id, error: e instanceof Error ? e.message : String(e) });
    return errorResponse(id, ErrorCode.InternalError, 'Internal error');
  }
}

/**
 * Runs an admitted request's handler. A handler that returns a value (not a promise) is
 * answered before this returns; a promise is answered when it settles. A request whose id is
 * that of a request still in flight is answered -32600 with that id and not run (ids are
 * unique among a sender's requests, 2025-11-25 basic/index "Requests"; the HTTP transport
 * answers the same on the POST).
 */
export function dispatchRequest(
  host: DispatchHost,
  req: JSONRPCRequest,
  info: MessageInfo | undefined,
  batch?: BatchReply,
): void {
  const { id, method, params } = req;
  if (host.inbound.has(id)) {
    host.log.warn?.('refused a request reusing an in-flight id', { id, method });
    const reused = errorResponse(
      id,
      ErrorCode.InvalidRequest,
      `Invalid Request: request id ${idText(id)} is already in use`,
    );
    return batch ? batch.add(reused) : reply(host, reused);
  }
  const entry = own(host.table.requests[host.in], method);
  // a handler set on the engine (undefined there: removed) before the option table's
  const set = host.handlers?.get(method);
  const handler =
    set !== undefined || host.handlers?.has(method)
      ? set
      : (own(host.options.requestHandlers ?? EMPTY, method) ?? (method === 'ping' ? pong : undefined));
  const refusal = refuse(host, req, entry, handler, info);
  if (refusal) {
    traceRefusal(
      method,
      info?.requestId ?? id,
      params,
      info?.protocolVersion ?? host.table.protocolVersion,
      info?.sessionId,
      refusal.error,
    );
    return batch ? batch.add(refusal) : reply(host, refusal);
  }
  // the handler's direct form, when nothing needs the request's context (see DIRECT_CALL)
  const direct = batch === undefined && info === undefined ? (handler as Directable)[DIRECT_CALL] : undefined;
  if (direct !== undefined && !tracing()) {
    let out: unknown;
    let pending: boolean;
    try {
      out = direct(params, host.table);
      pending = out !== NOT_DIRECT && isThenable(out);
    } catch (e) {
      return answerAtOnce(host, id, method, entry, e, true, params);
    }
    if (out !== NOT_DIRECT) {
      const checks = (handler as Directable)[RESULTS_CHECKED] === true ? undefined : entry;
      if (!pending) return answerAtOnce(host, id, method, checks, out, false, params);
      // pending: in flight from now on (cancellable, counted until answered)
      return settle(host, host.inbound.begin(id, method), checks, out, params);
    }
  }
  const r = host.inbound.begin(id, method);
  if (batch) {
    batch.expect();
    (host.batchOf ??= new WeakMap()).set(r, batch);
  }
  watchCarrier(r, info);
  // a server span, child of the trace context the request's _meta carries (none without an SDK)
  const traced = tracing()
    ? startServerSpan(
        method,
        info?.requestId ?? id,
        params,
        info?.protocolVersion ?? host.table.protocolVersion,
        info?.sessionId,
      )
    : undefined;
  r.span = traced?.span;
  let out: unknown;
  let pending: boolean;
  try {
    const ctx = new InboundContext(
      host as unknown as ConstructorParameters<typeof InboundContext>[0],
      r,
      params,
      info,
      host.log,
    );
    out = traced?.context ? withContext(traced.context, () => handler!(params, ctx)) : handler!(params, ctx);
    pending = isThenable(out);
  } catch (e) {
    return respond(host, r, entry, e, true, params);
  }
  // the row whose result validator checks the answer: none when the handler checked it already
  const checks = (handler as Directable)[RESULTS_CHECKED] === true ? undefined : entry;
  if (!pending) return respond(host, r, checks, out, false, params);
  settle(host, r, checks, out, params);
}

/** A request handler as dispatch reads it: its flags and direct form (./peer-options.ts). */
type Directable = RequestHandler & { [RESULTS_CHECKED]?: boolean; [DIRECT_CALL]?: DirectCall };

/** Answers `r` when the handler's promise (or thenable) `out` settles. */
function settle(
  host: DispatchHost,
  r: InboundRequest,
  checks: MethodEntry | undefined,
  out: unknown,
  params: unknown,
): void {
  Promise.resolve(out).then(
    (v) => respond(host, r, checks, v, false, params),
    (e: unknown) => respond(host, r, checks, e, true, params),
  );
}

/**
 * {@link respond} for a request answered by the direct form of its handler within its dispatch:
 * never in flight, outside any batch, without a span; so answered as `respond` answers such a
 * request, without the in-flight entry.
 */
function answerAtOnce(
  host: DispatchHost,
  id: RequestId,
  method: string,
  entry: MethodEntry | undefined,
  value: unknown,
  failed: boolean,
  params: unknown,
): void {
  if (host.ended) queueMicrotask(() => host.closeIfDone());
  if (host.closedWith) return;
  reply(host, answerOf(host, id, method, entry, value, failed, params), method, params);
}

/**
 * Answers a finished handler: its result (checked by `entry`'s result validator, if any), its
 * RpcError, or -32603 naming the handler (`params` tell which: ../protocol/subject.ts), the
 * failure logged with the error; nothing once cancelled or closed.
 */
export function respond(
  host: DispatchHost,
  r: InboundRequest,
  entry: MethodEntry | undefined,
  value: unknown,
  failed: boolean,
  params: unknown,
): void {
  const { id, method } = r;
  host.inbound.end(r);
  r.onEnd?.();
  // the other side has ended: close once this answer (handed to the transport below) was the last
  if (host.ended) queueMicrotask(() => host.closeIfDone());
  const batch = host.batchOf?.get(r);
  const span = r.span;
  if (host.closedWith) {
    if (span) endSpan(span, new ConnectionClosedError(host.closedWith.error));
    return batch?.skip();
  }
  if (r.cancelled) {
    if (span) endSpan(span, new RequestAbortedError(method, 'cancelled'));
    if (batch) return batch.skip();
    void host.transport.unanswered?.(id);
    return;
  }
  answerWith(host, r, batch, params, answerOf(host, id, method, entry, value, failed, params));
}

/**
 * The answer to request `id` of `method` whose handler finished with `value` (its error when
 * `failed`), as {@link respond} describes it; logs what it logs.
 */
function answerOf(
  host: DispatchHost,
  id: RequestId,
  method: string,
  entry: MethodEntry | undefined,
  value: unknown,
  failed: boolean,
  params: unknown,
): JSONRPCErrorResponse | JSONRPCResultResponse {
  if (failed) {
    if (value instanceof RpcError) return errorResponse(id, value.code, value.message, value.data);
    // the error stays in the log (it may hold what the client must not see); the answer names the handler
    const handler = handlerLabel(method, params);
    host.log.error?.('request handler failed', {
      method,
      handler,
      id,
      error: value instanceof Error ? value.message : String(value),
      stack: value instanceof Error ? value.stack : undefined,
    });
    return errorResponse(id, ErrorCode.InternalError, `Internal error: ${handler} failed`);
  }
  // a revision whose results carry resultType: one without it is a complete result (the
  // default its Result type gives), filled in before the check (table.resultType)
  const result =
    host.table.resultType === true && isObject(value) && value.resultType === undefined
      ? { resultType: 'complete', ...value }
      : value === undefined
        ? host.table.resultType === true
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
    host.log.error?.('handler result fails the result schema', {
      method,
      handler,
      id,
      errors: validationIssues(entry.result.errors),
    });
    if (value !== undefined)
      return errorResponse(
        id,
        ErrorCode.InternalError,
        `Internal error: ${handler} returned a result that is not a valid ${method} result`,
      );
    returned = 'undefined';
  }
  if (returned !== undefined) {
    host.log.error?.('handler result is not an object', { method, id, returned });
    return errorResponse(
      id,
      ErrorCode.InternalError,
      `Internal error: the ${method} handler returned ${returned}, not a result object`,
      { returned },
    );
  }
  return resultResponse(id, result as Record<string, unknown>);
}

/** Hands `m`, the answer to `r`, to its batch or the transport, ending `r`'s span with it. */
function answerWith(
  host: DispatchHost,
  r: InboundRequest,
  batch: BatchReply | undefined,
  params: unknown,
  m: JSONRPCErrorResponse | JSONRPCResultResponse,
): void {
  const span = r.span;
  if (span) endSpan(span, 'error' in m ? m.error : undefined, 'result' in m ? m.result : undefined);
  if (batch) batch.answer(m);
  else reply(host, m, r.method, params);
}

/**
 * Hands a response to the transport. A result the transport cannot serialise (a cycle, a value
 * JSON has no form for: `UnserializableMessageError`, thrown before anything is sent) is
 * logged and answered -32603 naming the handler of `method` (with `params`) instead, so that
 * the request is answered once.
 */
export function reply(
  host: DispatchHost,
  message: JSONRPCResultResponse | JSONRPCErrorResponse,
  method?: string,
  params?: unknown,
): void {
  if (host.closedWith) return;
  const related = message.id === undefined || message.id === null ? undefined : { relatedRequestId: message.id };
  let sent: Promise<void>;
  try {
    sent = host.transport.send(message, related);
  } catch (e) {
    sent = Promise.reject(e);
  }
  if (sent !== SENT) sent.catch((e: Error) => unsent(host, message, e, method, params));
}

function unsent(
  host: DispatchHost,
  message: JSONRPCResultResponse | JSONRPCErrorResponse,
  e: Error,
  method: string | undefined,
  params: unknown,
): void {
  if (!(e instanceof UnserializableMessageError) || !('result' in message) || host.closedWith) {
    host.log.debug?.('could not send response', { error: e.message });
    return;
  }
  const label = method === undefined ? 'the handler' : handlerLabel(method, params);
  host.log.error?.('result cannot be serialised as JSON', {
    method,
    handler: label,
    id: message.id,
    error: e.message,
  });
  reply(
    host,
    errorResponse(
      message.id ?? undefined,
      ErrorCode.InternalError,
      `Internal error: ${label} returned a result that cannot be serialised as JSON`,
    ),
  );
}
