/**
 * Answering an inbound request of the peer engine (./dispatch.ts runs it): its handler's value
 * checked and shaped into the response, or its error; handed to its batch or the transport
 * exactly once, nothing once cancelled or closed. Spec: 2025-11-25 `basic/index.mdx`
 * ("Responses"), `utilities/cancellation.mdx`.
 */
import { endSpan } from './tracing.js';
import type { MethodEntry, Validator } from '../protocol/table.js';
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
  isObject,
  resultResponse,
  type JSONRPCErrorResponse,
  type JSONRPCResultResponse,
  type RequestId,
} from '../jsonrpc/message.js';
import type { InboundRequest } from './cancellation.js';
import type { BatchReply } from './batch.js';
import type { DispatchHost } from './dispatch-host.js';

/** Answers `r` when the handler's promise (or thenable) `out` settles. */
export function settle(
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
export function answerAtOnce(
  host: DispatchHost,
  id: RequestId,
  method: string,
  entry: MethodEntry | undefined,
  value: unknown,
  failed: boolean,
  params: unknown,
): void {
  if (host.ended) closeLater(host);
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
  if (host.ended) closeLater(host);
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
  // a complete result against the method's own type where its results are a union with
  // InputRequiredResult (entry.complete: that union lets `{"resultType":"complete"}` through)
  const check: Validator | undefined =
    host.table.resultType === true && isObject(result) && result.resultType === 'complete' && entry?.complete
      ? entry.complete
      : entry?.result;
  if (!isObject(result))
    returned = result === null ? 'null' : Array.isArray(result) ? 'an array' : `a ${typeof result}`;
  else if (check && !check(result)) {
    const handler = handlerLabel(method, params);
    host.log.error?.('handler result fails the result schema', {
      method,
      handler,
      id,
      errors: validationIssues(check.errors),
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
 * Hands a response to the transport, with `{ relatedRequestId: <its id> }` unless the transport
 * says it routes no response by options (`routesResponses: false`). A result the transport cannot serialise (a cycle, a value
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
  // no options object where the transport does not route responses by them (stdio)
  const id = message.id;
  const related =
    id === undefined || id === null || host.transport.routesResponses === false ? undefined : { relatedRequestId: id };
  let sent: Promise<void>;
  try {
    sent = host.transport.send(message, related);
  } catch (e) {
    sent = Promise.reject(e);
  }
  if (sent !== SENT) sent.catch((e: Error) => unsent(host, message, e, method, params));
}

// The closures of answering live in these small functions, not in the functions every request
// runs: a function whose closures capture its parameters allocates their context on each call.

/** Closes `host` in a microtask when it is done (its other side has ended). */
function closeLater(host: DispatchHost): void {
  queueMicrotask(() => host.closeIfDone());
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
      (message as JSONRPCResultResponse).id,
      ErrorCode.InternalError,
      `Internal error: ${label} returned a result that cannot be serialised as JSON`,
    ),
  );
}
