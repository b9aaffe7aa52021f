/**
 * Inbound dispatch of the peer engine (./peer.ts): a request admitted (pre-dispatch hook, method
 * lookup, capability gate, params validation) and run, then answered exactly once (./answer.ts);
 * a notification routed (cancellation, progress) and handed to its handler. Spec: 2025-11-25
 * `basic/index.mdx`, `utilities/{cancellation,progress,ping}.mdx`.
 */
import { startServerSpan, traceRefusal, tracing, withContext } from './tracing.js';
import { type MethodEntry, hasCapability, missingParamCapability } from '../protocol/table.js';
import type { MessageInfo } from '../jsonrpc/transport.js';
import { ErrorCode, validationIssues } from '../jsonrpc/errors.js';
import {
  errorResponse,
  idText,
  type JSONRPCErrorResponse,
  type JSONRPCNotification,
  type JSONRPCRequest,
} from '../jsonrpc/message.js';
import { answerAtOnce, reply, respond, settle } from './answer.js';
import type { DispatchHost, PreparedMethod } from './dispatch-host.js';
import { parseCancelled, watchCarrier } from './cancellation.js';
import type { BatchReply } from './batch.js';
import { InboundContext, type RequestHandler } from './context.js';
import { DIRECT_CALL, type DirectCall, NOT_DIRECT, RESULTS_CHECKED } from './peer-options.js';

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
 * The table row of `method` in the served table and its handler (one set on the engine, undefined
 * there: removed, before the option table's; `ping`'s default). A method of the table that has a
 * handler is remembered in `host.prepared` when the option table cannot change (absent or
 * frozen, as the sessions' are), so that its next request is one map lookup: at most one record
 * per row of the table. The engine empties it whenever the table or its handlers change
 * (`setTable`, `setRequestHandler`).
 */
function prepare(host: DispatchHost, method: string): PreparedMethod {
  const entry = own(host.table.requests[host.in], method);
  const set = host.handlers?.get(method);
  const table = host.options.requestHandlers;
  const handler =
    set !== undefined || host.handlers?.has(method)
      ? set
      : (own(table ?? EMPTY, method) ?? (method === 'ping' ? pong : undefined));
  const found = { entry, handler, direct: (handler as Directable | undefined)?.[DIRECT_CALL] };
  if (entry !== undefined && handler !== undefined && (table === undefined || Object.isFrozen(table)))
    (host.prepared ??= new Map()).set(method, found);
  return found;
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
  const { entry, handler, direct: form } = host.prepared?.get(method) ?? prepare(host, method);
  const refusal = refuse(host, req, entry, handler, info);
  if (refusal) {
    traceRefusal(req, info, host.table.protocolVersion, refusal.error);
    return batch ? batch.add(refusal) : reply(host, refusal);
  }
  // the handler's direct form, when nothing needs the request's context (see DIRECT_CALL)
  const direct = batch === undefined && info === undefined ? form : undefined;
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
  const traced = tracing() ? startServerSpan(req, info, host.table.protocolVersion) : undefined;
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
    out = traced?.context ? withContext(traced.context, handler!, params, ctx) : handler!(params, ctx);
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
