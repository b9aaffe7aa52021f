/**
 * Outbound requests of the peer engine (./peer.ts): the one check that decides whether a request
 * may be sent, then its id, its pending entry (clock, progress route, abort listener), its client
 * span and the send. Spec: 2025-11-25 `basic/index.mdx`, `utilities/{cancellation,progress}.mdx`.
 */
import { endSpan, startClientSpan, tracing } from './tracing.js';
import {
  type Direction,
  type MethodEntry,
  type ProtocolTable,
  hasCapability,
  missingParamCapability,
} from '../protocol/table.js';
import type { Transport } from '../jsonrpc/transport.js';
import {
  CapabilityNotDeclaredError,
  ConnectionClosedError,
  ErrorCode,
  RequestAbortedError,
  RpcError,
  reasonText,
} from '../jsonrpc/errors.js';
import {
  type JSONRPCRequest,
  type Params,
  type ProgressToken,
  type RequestId,
  isObject,
  isRequestId,
} from '../jsonrpc/message.js';
import { SENT } from '../jsonrpc/sent.js';
import type { ProgressCallback, ProgressRouter } from './progress.js';
import { type OutboundRequests, PendingRequest } from './outbound.js';
import type { RequestOptions } from './context.js';
import { own } from './dispatch.js';
import type { PeerOptions, Side } from './peer-options.js';

/** What sending a request reads and changes of the engine: a `Peer`'s private state, structurally. */
export interface RequestHost {
  readonly side: Side;
  readonly table: ProtocolTable;
  readonly out: Direction;
  readonly options: PeerOptions;
  readonly transport: Transport;
  readonly outbound: OutboundRequests;
  readonly progress: ProgressRouter;
  readonly remoteCapabilities: Record<string, unknown> | undefined;
  readonly ended: { error: Error | undefined } | undefined;
  readonly closedWith: { error?: Error } | undefined;
  /** The id of the next outbound request (`Peer`'s, see its module doc); each call mints a new one. */
  mintId(): RequestId;
  settle(id: RequestId): PendingRequest | undefined;
  abandon(pending: PendingRequest, error: RpcError, reason: string): void;
}

/**
 * Sends a request and resolves with its result. Rejects with: RpcError (the error response),
 * RequestTimeoutError, RequestAbortedError, InvalidResultError (result fails the method's
 * schema), ConnectionClosedError, or the transport's send error. `after`: applied to the checked
 * result before the promise settles (PendingRequest `after`); `recover`: applied to the failure
 * of the request once sent (PendingRequest `recover`; a refusal before it is sent, e.g. an
 * undeclared capability, rejects as it is): for the session layer, which would otherwise chain
 * a `.then` or a `.catch`. `self`: what `after` and `recover` are called on (their `this`;
 * PendingRequest `self`), so that they may be methods of one per-request object rather than
 * closures. `host` is a `Peer` (./peer.ts; its private state, structurally).
 */
export function sendRequest<R>(
  host: RequestHost,
  method: string,
  params?: Params,
  options?: RequestOptions,
  after?: (result: unknown) => unknown,
  recover?: (error: unknown) => unknown,
  self?: unknown,
): Promise<R> {
  // closed, or the other side has ended its input: no response could arrive
  const closed = host.closedWith ?? host.ended;
  if (closed)
    return Promise.reject(new ConnectionClosedError(closed.error, 'Connection closed (the request was not sent)'));
  const entry = own(host.table.requests[host.out], method);
  const refusal = outboundRefusal(host, entry, method, params);
  if (refusal) return Promise.reject(refusal);
  const signal = options?.signal;
  const onProgress = options?.onProgress;
  if (signal?.aborted) return Promise.reject(new RequestAbortedError(method, signal.reason));
  const id = host.mintId();
  const p = new PendingRequest<R>(id, method, entry, options?.validateResult ?? host.options.validateResults ?? true);
  const promise = p.take();
  let sendParams = params;
  if (onProgress) {
    try {
      sendParams = routeProgress(host, p, params, onProgress);
    } catch (e) {
      return Promise.reject(e);
    }
  }
  if (signal) listenAbort(host, p, signal);
  host.outbound.add(
    p,
    options?.timeout ?? host.options.timeout ?? 60_000,
    options?.resetTimeoutOnProgress,
    options?.maxTotalTimeout,
  );
  // a client span (none without an OpenTelemetry SDK); its trace context rides in _meta
  let spanned = false;
  if (tracing()) {
    const traced = startClientSpan(method, id, sendParams, host.table.protocolVersion);
    sendParams = traced.params;
    if (traced.span) {
      spanned = true;
      endSpanWith(promise, traced.span);
    }
  }
  // the span ends with the response itself, not with what `after` makes of it
  if (!spanned) {
    if (after) p.after = after;
    if (recover) p.recover = recover;
    p.self = self;
  }
  const message: JSONRPCRequest =
    sendParams === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params: sendParams };
  try {
    const related = options?.relatedRequestId;
    const sent = host.transport.send(
      message,
      options?.retry === false
        ? { relatedRequestId: related, retry: false }
        : related === undefined
          ? undefined
          : { relatedRequestId: related },
    );
    if (sent !== SENT) failOnSendError(host, id, sent);
  } catch (e) {
    host.settle(id)?.reject(e);
  }
  if (!spanned || !(after || recover)) return promise;
  return thenOn(promise, self, after, recover) as Promise<R>;
}

// The closures a request may need live in these helpers, so that sendRequest itself keeps no
// variable in a context (which it would allocate on every call, closures made or not).

/** Routes progress of `p` to `onProgress`; the params to send, with the token in `_meta`. Throws when the token is in use. */
function routeProgress(
  host: RequestHost,
  p: PendingRequest,
  params: Params | undefined,
  onProgress: ProgressCallback,
): Params {
  const given = isObject(params?._meta) ? params._meta.progressToken : undefined;
  const token = isRequestId(given) ? given : (p.id as ProgressToken);
  host.progress.register(token, (progress) => {
    host.outbound.progress(p);
    onProgress(progress);
  });
  p.token = token;
  return { ...params, _meta: { ...(params?._meta as Params | undefined), progressToken: token } };
}

/** Abandons `p` when `signal` aborts (the listener goes when `p` settles). */
function listenAbort(host: RequestHost, p: PendingRequest, signal: AbortSignal): void {
  p.signal = signal;
  p.onAbort = () =>
    host.abandon(p, new RequestAbortedError(p.method, signal.reason), reasonText(signal.reason).slice(2) || 'Aborted');
  signal.addEventListener('abort', p.onAbort, { once: true });
}

/** A send that fails later fails its request. */
function failOnSendError(host: RequestHost, id: RequestId, sent: Promise<void>): void {
  sent.catch((e) => host.settle(id)?.reject(e));
}

/** `promise.then(after, recover)` with `self` as their `this`. */
function thenOn(
  promise: Promise<unknown>,
  self: unknown,
  after: ((result: unknown) => unknown) | undefined,
  recover: ((error: unknown) => unknown) | undefined,
): Promise<unknown> {
  return promise.then(after && ((v) => after.call(self, v)), recover && ((e) => recover.call(self, e)));
}

function endSpanWith(promise: Promise<unknown>, span: NonNullable<ReturnType<typeof startClientSpan>['span']>): void {
  promise.then(
    (v) => endSpan(span, undefined, v),
    (e: unknown) => endSpan(span, e),
  );
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
function outboundRefusal(
  host: RequestHost,
  entry: MethodEntry | undefined,
  method: string,
  params: Params | undefined,
): RpcError | undefined {
  if (!entry) {
    return host.table.lifecycle === 'handshake'
      ? new RpcError(
          ErrorCode.MethodNotFound,
          `${method} is not a ${host.side} request of protocol version ${host.table.protocolVersion}`,
        )
      : undefined;
  }
  const remote = host.remoteCapabilities;
  if (!remote) return undefined;
  const receiver = host.side === 'server' ? 'client' : 'server';
  if (entry.capability && !hasCapability(remote, entry.capability))
    return new CapabilityNotDeclaredError(method, entry.capability, receiver);
  const sub = missingParamCapability(method, params, remote);
  if (sub) return new CapabilityNotDeclaredError(method, sub, receiver);
  return undefined;
}
