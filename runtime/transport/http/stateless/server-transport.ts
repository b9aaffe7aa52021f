/**
 * The one {@link Transport} behind a stateless endpoint (./server.ts): every POST's request
 * reaches the engine under an id of this transport's, and its answer goes back on that POST's
 * response, as one JSON body or as the last event of an SSE stream scoped to the request.
 */
import { encodeComment, encodeEvent } from '../../../codec/sse.js';
import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { errorResponse, serializeMessage } from '../../../jsonrpc/message.js';
import { SENT } from '../../../jsonrpc/sent.js';
import type {
  JSONRPCMessage,
  MessageInfo,
  SendOptions,
  Transport,
  TransportEvents,
} from '../../../jsonrpc/transport.js';
import type { ResponseSink } from '../io/exchange.js';
import { JSON_HEADERS } from '../io/node.js';
import type { ReplyMode } from '../session/session.js';

type Id = string | number | bigint;
type Obj = Record<string, unknown>;

/** HTTP status of a JSON-RPC error answer (draft streamable-http, Backward Compatibility). */
export function statusOfError(code: unknown): number {
  if (code === ErrorCode.MethodNotFound) return 404;
  if (
    code === ErrorCode.HeaderMismatch ||
    code === ErrorCode.UnsupportedProtocolVersion ||
    code === ErrorCode.MissingRequiredClientCapability
  )
    return 400;
  return 200;
}

/** An error response's JSON; `id` null (none could be read) writes no `id` member (the error-id rule of ../../../jsonrpc/message.ts). */
export function errorJson(id: Id | null, e: RpcError): string {
  return serializeMessage(errorResponse(id ?? undefined, e.code, e.message, e.data));
}

interface Stream {
  sink: ResponseSink;
  clientId: Id;
  sse: boolean;
  done: boolean;
  timer?: ReturnType<typeof setInterval>;
}

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const CLOSED_BY_CLIENT = 'response stream closed by the client';
/** The headers of every SSE response (the sinks copy them, never change them). */
const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
});

/**
 * The one {@link Transport} behind a stateless endpoint. Messages the engine sends with
 * `relatedRequestId` (or responses) go to that request's POST; anything else has no stream in
 * this revision and is dropped. Server→client requests reject (MRTR carries them instead).
 *
 * Inbound requests reach the engine with an id of this transport's (a number, unique for its
 * lifetime). These inner ids are never reachable from outside: a POSTed
 * `notifications/cancelled` or `notifications/progress` does not reach the engine (202,
 * ignored: see `namesRequest`), so one client can never cancel another's request. When a response stream closes before its answer (the client went away or
 * cancelled by closing it), the engine gets `notifications/cancelled` for that id: the
 * handler's `ctx.signal` aborts with reason "response stream closed by the client" and its
 * answer is not sent. `MessageInfo.signal` is not set.
 */
export class StatelessHttpServerTransport implements Transport {
  #events: TransportEvents | undefined;
  readonly #streams = new Map<number, Stream>();
  #next = 0;
  #closed = false;
  /** Stateless revisions only: a server session of a handshake revision refuses this transport. */
  readonly lifecycle = 'stateless';
  constructor(private readonly settings: { replyMode: ReplyMode; keepAliveMs: number }) {}

  async start(events: TransportEvents): Promise<void> {
    this.#events = events;
  }

  /** Requests awaiting their response (listen streams included). */
  get inFlight(): number {
    return this.#streams.size;
  }

  /**
   * Hands one validated request or notification to the engine; the request's answer goes to
   * `sink`. The transport takes `message` over (a request's `id` is replaced by the inner one).
   */
  accept(message: JSONRPCMessage, sink: ResponseSink, info: MessageInfo): void {
    const events = this.#events;
    if (!events || this.#closed) {
      sink.respond(
        503,
        JSON_HEADERS,
        errorJson((message.id as Id) ?? null, new RpcError(ErrorCode.InternalError, 'server not connected')),
      );
      return;
    }
    if (message.id === undefined) {
      sink.respond(202, {});
      if (!namesRequest(message)) events.onMessage(message, info);
      return;
    }
    const inner = ++this.#next;
    const s: Stream = { sink, clientId: message.id as Id, sse: false, done: false };
    this.#streams.set(inner, s);
    sink.onClose(() => {
      if (s.done) return;
      this.#finish(inner, s);
      events.onMessage({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: inner, reason: CLOSED_BY_CLIENT },
      });
    });
    if (this.settings.replyMode === 'sse') this.#open(s);
    message.id = inner;
    info.requestId = s.clientId;
    events.onMessage(message, info);
  }

  /** Writes `message` to its request's response; returns {@link SENT} (nothing to wait for), or rejects. */
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('transport closed'));
    const isResponse = !('method' in message);
    if (!isResponse && message.id !== undefined) {
      return Promise.reject(
        new RpcError(
          ErrorCode.MethodNotFound,
          `${String(message.method)}: servers send no requests over stateless Streamable HTTP (use input_required)`,
        ),
      );
    }
    const inner = isResponse ? message.id : options?.relatedRequestId;
    const s = typeof inner === 'number' ? this.#streams.get(inner) : undefined;
    if (!s || s.done) return SENT;
    if (!isResponse) {
      this.#open(s);
      const params = restoreIds(message.params, inner as number, s.clientId, true);
      s.sink.write(
        encodeEvent({ data: serializeMessage(params === message.params ? message : { ...message, params }) }),
      );
      return SENT;
    }
    // the envelope is written here with the client's id: neither the message nor its result is
    // copied; serialised before the stream is finished, so that a result JSON cannot express
    // (UnserializableMessageError) leaves the request open for the engine's -32603
    const id = serializeMessage(s.clientId);
    let text: string;
    try {
      text =
        'result' in message
          ? `{"jsonrpc":"2.0","id":${id},"result":${serializeMessage(restoreIds(message.result, inner as number, s.clientId, false))}}`
          : `{"jsonrpc":"2.0","id":${id},"error":${serializeMessage(message.error)}}`;
    } catch (e) {
      return Promise.reject(e);
    }
    this.#finish(inner as number, s);
    this.#last(s, text, 'error' in message ? statusOfError((message.error as Obj | undefined)?.code) : 200);
    return SENT;
  }

  /**
   * Closes the transport. A request still in flight is answered on its own response with
   * `{"jsonrpc":"2.0","id":<its id>,"error":{"code":-32000,"message":"server shutting down"}}`
   * (as JSON, or as the last event of its SSE stream) rather than an empty body.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const [inner, s] of this.#streams) {
      this.#finish(inner, s);
      this.#last(s, errorJson(s.clientId, new RpcError(ErrorCode.ConnectionClosed, 'server shutting down')), 200);
    }
    this.#events?.onClose();
  }

  /** Answers `s` with its response `text`: the last event of its SSE stream, else a JSON body with `status`. */
  #last(s: Stream, text: string, status: number): void {
    if (!s.sse) return s.sink.respond(status, JSON_HEADERS, text);
    s.sink.write(encodeEvent({ data: text }));
    s.sink.end();
  }

  #open(s: Stream): void {
    if (s.sse) return;
    s.sse = true;
    // the keep-alive timer starts in the deferred call that sends the head (one per stream, not two)
    s.sink.open(
      200,
      SSE_HEADERS as Record<string, string>,
      this.settings.keepAliveMs > 0 ? this.#keepAlive : undefined,
      s,
    );
  }

  /**
   * Starts the keep-alive comments of an SSE stream once its head is out, when it is still open
   * (a reply that ended within the tick it opened in needs no timer). Called once per stream at
   * most (#open opens it once; the sink calls `afterTick` once).
   */
  readonly #keepAlive = (s: Stream): void => {
    if (s.done) return;
    s.timer = setInterval(() => s.sink.write(encodeComment()), this.settings.keepAliveMs);
    s.timer.unref?.();
  };

  #finish(inner: number, s: Stream): void {
    s.done = true;
    if (s.timer) clearInterval(s.timer);
    this.#streams.delete(inner);
  }
}

/**
 * Whether a notification names a request or a progress token of the engine's
 * (`notifications/cancelled` `requestId`, `notifications/progress` `progressToken`). A POSTed
 * notification is an exchange of its own that carries no request: whatever id it names, it
 * names none of its exchange's, and the ids the engine knows are inner ones, never reachable
 * from outside. Such a notification is accepted (202) and ignored, as the cancellation page
 * asks for an unknown request id (draft basic/patterns/cancellation, Error Handling); on this
 * transport closing the response stream is the cancellation (streamable-http, Cancellation).
 */
function namesRequest(message: JSONRPCMessage): boolean {
  return message.method === 'notifications/cancelled' || message.method === 'notifications/progress';
}

/**
 * `o` with the client's id where the engine wrote the inner one: `_meta[subscriptionId]`, and
 * for notifications `requestId` (notifications/cancelled, progress of a listen). `o` itself
 * when there is nothing to change (the common case: no copy).
 */
function restoreIds(o: unknown, inner: number, clientId: Id, notification: boolean): unknown {
  if (typeof o !== 'object' || o === null) return o;
  const x = o as Obj;
  const meta = x._meta as Obj | undefined;
  const fixMeta = meta !== undefined && meta !== null && meta[SUBSCRIPTION_ID] === inner;
  const fixRequest = notification && x.requestId === inner;
  if (!fixMeta && !fixRequest) return o;
  const out = { ...x };
  if (fixMeta) out._meta = { ...meta, [SUBSCRIPTION_ID]: clientId };
  if (fixRequest) out.requestId = clientId;
  return out;
}
