// size: the Streamable HTTP client: POST, GET stream, reconnection; split pending (#36)
/**
 * Streamable HTTP, client side (2025-11-25 basic/transports, "Streamable HTTP"), over `fetch`
 * and Web Streams (../io/request.ts): the form for browsers, workers, Bun and Deno, with no
 * `node:` import. On Node, ./node-client.ts is the same transport over `node:http` by default.
 *
 * Every message is one POST with `Accept: application/json, text/event-stream` and
 * `Content-Type: application/json`; `Mcp-Session-Id` once the server assigned one and
 * `MCP-Protocol-Version` once {@link HttpClientTransport.setProtocolVersion} was called go on
 * every request (POST, GET, DELETE). Replies: 202 (nothing), one JSON body, or an SSE stream
 * read in the background. After `notifications/initialized` is accepted the standalone GET
 * stream opens (405: the server offers none) and is reopened whenever it ends. SSE streams
 * that end or break before their responses arrived are resumed with GET and `Last-Event-ID`,
 * waiting the server's `retry` (else a capped exponential backoff) between attempts; a reply
 * stream lost before it delivered any event ID cannot be resumed, and its request fails.
 *
 * Session expiry (case 006): a 404 to a request that carried the session id drops the session
 * (id and protocol version), fails that send with {@link SessionExpiredError} — the message is
 * not resent, a tool call may not be idempotent — fails requests still waiting on streams of
 * that session the same way, and calls `onSessionExpired`, where the lifecycle layer starts a
 * new session (a fresh `initialize`, sent without a session id). A 400 never does this.
 */
import { SseParser, type SseEvent } from '../../../codec/sse.js';
import { ConnectionClosedError, ErrorCode, RequestAbortedError, RpcError } from '../../../jsonrpc/errors.js';
import { exactIds, idText, isObject, serializeMessage } from '../../../jsonrpc/message.js';
import { FewSet } from '../../../jsonrpc/few.js';
import {
  BODY_HEAD,
  bodyHead,
  type BodySink,
  Cancel,
  fetchRequester,
  HttpStatusError,
  mediaType,
  readBody,
  readInto,
  sleep,
  type HttpReply,
  type Requester,
} from '../io/request.js';
import { deliver, type RetryOptions } from '../io/delivery.js';
import type { JSONRPCMessage, SendOptions, Transport, TransportEvents } from '../../../jsonrpc/transport.js';

export { HttpStatusError } from '../io/request.js';
export type { RetryOptions } from '../io/delivery.js';

/** A value that is a JSON-RPC message or close to one: an object with its own `method`, `result` or `error`. */
const rpcLike = (m: unknown): boolean =>
  isObject(m) && (Object.hasOwn(m, 'method') || Object.hasOwn(m, 'result') || Object.hasOwn(m, 'error'));

/** Whether `m` is a response to request `id` (a bigint id, parsed as a number, is taken as its own). */
const answers = (m: unknown, id: string | number | bigint): boolean =>
  isObject(m) && !Object.hasOwn(m, 'method') && (m.id === id || (typeof id === 'bigint' && typeof m.id === 'number'));

/** How long close() reads the standalone stream after ending the session, at most, ms. */
const CLOSE_READ_MS = 2000;

/** JSON-RPC code of the local errors below (implementation-defined server error range). */
const TRANSPORT_ERROR = ErrorCode.ServerError;

/** The server no longer knows the session (HTTP 404 to a request carrying its id). */
export class SessionExpiredError extends RpcError {
  readonly sessionId: string;
  constructor(sessionId: string) {
    super(TRANSPORT_ERROR, `MCP session ${sessionId} expired (HTTP 404); start a new session`, { sessionId });
    this.name = 'SessionExpiredError';
    this.sessionId = sessionId;
  }
}

/** Backoff for SSE reconnection. */
export interface ReconnectOptions {
  /** First delay when the server sent no `retry`, ms. Default 1000. */
  initialDelayMs?: number;
  /** Cap of the backoff, ms (a larger server `retry` still wins). Default 30000. */
  maxDelayMs?: number;
  /** Growth per failed attempt. Default 1.5. */
  factor?: number;
  /** Failed attempts in a row before a stream is given up. Default 5. */
  maxRetries?: number;
}

/** Options of {@link HttpClientTransport}. */
export interface HttpClientTransportOptions {
  /** The MCP endpoint. */
  url: string | URL;
  /**
   * A fetch to send every request with (auth wrappers, proxies, tests). Default: the global
   * `fetch` here; on Node's transport (./node-client.ts) none, requests go over `node:http`.
   */
  fetch?: typeof globalThis.fetch;
  /** Extra headers on every request (e.g. `Authorization`); a function is called per request. */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** Open the standalone GET stream after initialization. Default true. */
  standaloneStream?: boolean;
  reconnect?: ReconnectOptions;
  /** Called once per expired session, after it was dropped; see the module docs. */
  onSessionExpired?: (info: { sessionId: string }) => void | Promise<void>;
  /** Largest SSE event accepted, in characters. Default 16 MiB. */
  maxEventSize?: number;
  /**
   * Retries of a POST the server did not process: a refused connection (nothing written), or
   * 503 with `Retry-After` (../io/delivery.ts). `false`: none. Default 5 retries, waits with
   * jitter, none longer than 30 s. A POST that may have been processed is never sent again.
   */
  retry?: RetryOptions | false;
}

interface StreamState {
  kind: 'post' | 'standalone';
  /** Requests whose responses are expected on this stream, by id (`1` and `"1"` are two; one, except in a batch, so no Set made). */
  pending: FewSet<string | number>;
  sessionId: string | undefined;
  lastEventId?: string;
  retry?: number;
  failures: number;
  /** The stream was stopped (close, session dropped). */
  aborted: boolean;
  /** A response body of the stream is being read. */
  reading?: boolean;
  /** Behind the signal of the stream's GETs and waits; made when first needed (see {@link signalOf}). */
  abort?: AbortController;
  /** Its neighbours in the transport's {@link Streams} (undefined: not in it). */
  prev?: StreamState;
  next?: StreamState;
}

/**
 * The streams of a transport that are open or being resumed: a doubly linked list through the
 * streams themselves. A POST stream joins and leaves it on every request, beside the standalone
 * stream that stays: a `Set` that holds one entry for good and gains and loses another each
 * request rebuilds its table every few requests (in the old generation once the Set is there,
 * garbage that only full collections reclaim); linking allocates nothing.
 */
class Streams {
  #first: StreamState | undefined;
  #last: StreamState | undefined;

  /** Appends `state` (a stream is added once, when it is made). */
  add(state: StreamState): void {
    state.prev = this.#last;
    state.next = undefined;
    if (this.#last) this.#last.next = state;
    else this.#first = state;
    this.#last = state;
  }

  delete(state: StreamState): void {
    if (state.prev === undefined && this.#first !== state) return;
    if (state.prev) state.prev.next = state.next;
    else this.#first = state.next;
    if (state.next) state.next.prev = state.prev;
    else this.#last = state.prev;
    state.prev = state.next = undefined;
  }

  /** The streams, oldest first, as a list of their own (the caller may delete while going through it). */
  list(): StreamState[] {
    const out: StreamState[] = [];
    for (let s = this.#first; s !== undefined; s = s.next) out.push(s);
    return out;
  }

  clear(): void {
    for (const s of this.list()) s.prev = s.next = undefined;
    this.#first = this.#last = undefined;
  }
}

/** Stops a stream: its GET or wait in progress is aborted. */
function stopStream(state: StreamState): void {
  state.aborted = true;
  state.abort?.abort();
}

/** The abort signal of a stream's GETs and waits (aborted once the stream was stopped). */
function signalOf(state: StreamState): AbortSignal {
  if (!state.abort) {
    state.abort = new AbortController();
    if (state.aborted) state.abort.abort();
  }
  return state.abort.signal;
}

/** The client {@link Transport} for Streamable HTTP. */
export class HttpClientTransport implements Transport {
  /** Set by the lifecycle layer to re-initialize after a session expired (see module docs). */
  onSessionExpired: ((info: { sessionId: string }) => void | Promise<void>) | undefined;
  private readonly request: Requester;
  private readonly opts: HttpClientTransportOptions;
  private events: TransportEvents | undefined;
  private session: string | undefined;
  private version: string | undefined;
  /** One handle per POST in flight (its reply included), all cancelled by close(). */
  private readonly inFlight = new FewSet<Cancel>();
  /** The POSTs of requests waiting to be retried, by id: `notifications/cancelled` for one ends its wait. */
  private retrying: Map<string | number, Cancel> | undefined;
  private readonly streams = new Streams();
  private standalone: StreamState | undefined;
  /** Settles {@link standaloneOpened}'s promise: true once the GET stream answered, false once given up. */
  private standaloneSettle: ((open: boolean) => void) | undefined;
  private standaloneOutcome: Promise<boolean> | undefined;
  private closed = false;
  /** Set by close() while it reads the standalone stream to its end; resolved as that stream ends. */
  private closing: (() => void) | undefined;
  private closeRun: Promise<void> | undefined;

  /**
   * @param requester how requests go out (library authors: another I/O layer). Default: over
   * `options.fetch`, else the global `fetch`.
   * @throws TypeError for a URL that does not parse.
   */
  constructor(options: HttpClientTransportOptions, requester?: Requester) {
    this.opts = options;
    const url = new URL(options.url);
    this.request = requester ?? fetchRequester(url, options.fetch ?? ((input, init) => globalThis.fetch(input, init)));
    this.onSessionExpired = options.onSessionExpired;
  }

  /** The session id the server assigned, while the session lives. */
  get sessionId(): string | undefined {
    return this.session;
  }

  /** The `MCP-Protocol-Version` sent on requests; undefined before negotiation. */
  get protocolVersion(): string | undefined {
    return this.version;
  }

  /** Sets the negotiated version; sent as `MCP-Protocol-Version` from the next request on. */
  setProtocolVersion(version: string | undefined): void {
    this.version = version;
  }

  async start(events: TransportEvents): Promise<void> {
    if (this.events) throw new Error('HttpClientTransport already started');
    this.events = events;
  }

  /**
   * POSTs one message. Resolves once the server accepted it (202, a JSON reply delivered, or
   * an SSE reply stream opened — its events arrive later through `onMessage`).
   * @throws SessionExpiredError on 404 to a request that carried the session id.
   * @throws HttpStatusError on other HTTP errors, unless the body is a JSON-RPC error for this
   * request's id (then that error is delivered as the response), and on a reply to a request
   * that is not JSON-RPC: a Content-Type other than JSON or SSE, or JSON that does not parse
   * (`body`: the first 1 KiB of its text, `contentType`: the header).
   * @throws RpcError -32000 "connection closed before the response" when a 2xx reply to a
   * request has an empty body (the server closed it while shutting down).
   */
  // size: a POST and each kind of answer it gets
  async send(message: JSONRPCMessage, _options?: SendOptions): Promise<void> {
    if (this.closed || !this.events)
      throw new Error(this.closed ? 'HttpClientTransport is closed' : 'HttpClientTransport not started');
    if (message.method === 'notifications/cancelled' && this.retrying) {
      // a request still waiting to be retried was never processed: it is not sent again
      const target = (message.params as { requestId?: unknown } | undefined)?.requestId;
      const waiting = typeof target === 'string' || typeof target === 'number' ? this.retrying.get(target) : undefined;
      waiting?.cancel(new RequestAbortedError(String(target), 'cancelled while waiting to be retried'));
    }
    const sent = this.session;
    const base = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const made = this.headers(base);
    const headers = made instanceof Promise ? await made : made;
    // One handle per POST, cancelled by close(): fetch keeps its abort listener on the signal it
    // is given until the request is garbage collected, so one shared signal would pile them up.
    const cancel = new Cancel();
    this.inFlight.add(cancel);
    let streaming = false;
    const requestId = typeof message.method === 'string' ? (message.id as string | number | undefined) : undefined;
    const what = `POST ${String(message.method ?? 'response')}`;
    try {
      const res = await deliver(
        this.request,
        { method: 'POST', headers, body: serializeMessage(message), cancel },
        {
          what,
          retry: this.opts.retry,
          onRetry: requestId === undefined ? undefined : () => (this.retrying ??= new Map()).set(requestId, cancel),
        },
      );
      const assigned = res.header('mcp-session-id');
      if (assigned && this.session === undefined && sent === undefined) this.session = assigned;

      if (res.status === 404 && sent !== undefined) {
        res.discard();
        // a POST that reached the server after close()'s DELETE: the session did not expire, this transport closed it
        if (this.closed)
          throw new ConnectionClosedError(
            undefined,
            `Connection closed before the response (POST ${String(message.method)}: the transport was closed)`,
          );
        const error = new SessionExpiredError(sent);
        this.expire(sent);
        throw error;
      }
      if (!res.ok) {
        const body = await readBody(res);
        const err = (body as { id?: unknown; error?: unknown } | undefined) ?? {};
        if (requestId !== undefined && err.id === requestId && typeof err.error === 'object') {
          this.deliver(body as JSONRPCMessage);
          return;
        }
        throw new HttpStatusError(
          res.status,
          body,
          `POST ${String(message.method ?? 'response')}`,
          res.header('content-type'),
        );
      }
      const contentType = res.header('content-type');
      const type = mediaType(contentType);
      if (requestId === undefined || res.status === 202) {
        res.discard();
        if (message.method === 'notifications/initialized' && (this.opts.standaloneStream ?? true))
          this.openStandalone();
        return;
      }
      if (type === 'application/json' || type === '') {
        const text = await res.text();
        if (text === '')
          throw new ConnectionClosedError(
            undefined,
            `Connection closed before the response (POST ${String(message.method)}: HTTP ${res.status}, empty body)`,
          );
        if (type === '')
          throw new HttpStatusError(
            res.status,
            text.slice(0, BODY_HEAD),
            `POST ${String(message.method)}: unexpected Content-Type (none)`,
            contentType,
          );
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch (e) {
          throw new HttpStatusError(
            res.status,
            text.slice(0, BODY_HEAD),
            `POST ${String(message.method)}: the ${contentType} body is not JSON (${(e as Error).message})`,
            contentType,
          );
        }
        // the JSON reply to a request is its response (2025-11-25 basic/transports, POST rule 5):
        // JSON that holds no message ({"status":"ok"}), or only one for another id, would leave
        // the request waiting out its timeout
        const all: unknown[] = Array.isArray(body) ? body : [body];
        if (!all.some((m) => answers(m, requestId))) {
          const other = all.filter(rpcLike).map((m) => idText((m as { id?: unknown }).id));
          throw new HttpStatusError(
            res.status,
            other.length ? body : text.slice(0, BODY_HEAD),
            `POST ${String(message.method)}: the ${other.length ? `JSON reply holds no response to request id ${idText(requestId)} (it answers id ${other.join(', ')})` : `${contentType} body is not JSON-RPC`}`,
            contentType,
          );
        }
        for (const m of all) this.deliver(m as JSONRPCMessage);
        return;
      }
      if (type === 'text/event-stream') {
        const state = this.track('post', this.session);
        state.pending.add(requestId);
        streaming = true;
        this.consume(res, state, cancel);
        return;
      }
      throw new HttpStatusError(
        res.status,
        await bodyHead(res),
        `POST ${String(message.method)}: unexpected Content-Type ${type || '(none)'}`,
        contentType,
      );
    } finally {
      if (!streaming) this.inFlight.delete(cancel);
      if (requestId !== undefined && this.retrying?.get(requestId) === cancel) this.retrying.delete(requestId);
    }
  }

  /**
   * Ends the session on the server (DELETE; 405 and 404 are fine) and forgets it; requests
   * still waiting on its streams fail with {@link SessionExpiredError}. Gives up after 5 s.
   */
  async terminateSession(): Promise<void> {
    const sid = this.session;
    if (sid === undefined) return;
    const headers = await this.headers({}, sid);
    this.dropSession(sid);
    const res = await this.request({ method: 'DELETE', headers, signal: AbortSignal.timeout(5000) });
    res.discard();
    if (!res.ok && res.status !== 405 && res.status !== 404) throw new HttpStatusError(res.status, undefined, 'DELETE');
  }

  /**
   * close()'s DELETE while the standalone stream stays open (the other streams of the session
   * stopped): whether the server ended the session (2xx).
   */
  private async endSession(sid: string): Promise<boolean> {
    try {
      const headers = await this.headers({}, sid);
      for (const s of this.streams.list()) {
        if (s === this.standalone || s.sessionId !== sid) continue;
        stopStream(s);
      }
      const res = await this.request({ method: 'DELETE', headers, signal: AbortSignal.timeout(5000) });
      res.discard();
      this.session = undefined;
      this.version = undefined;
      return res.ok;
    } catch {
      return false;
    }
  }

  /**
   * Ends a live session (DELETE; errors ignored), stops all streams, fires `onClose`. While the
   * standalone GET stream is open, the session is ended first and that stream read to its end
   * (the server ends it as the session ends, after what it sent there), waiting
   * 2000 ms (`CLOSE_READ_MS`) at most: messages sent outside any request before a response (log
   * messages of a tool) are delivered though they travel on another connection than it.
   */
  close(): Promise<void> {
    return (this.closeRun ??= this.closeOnce());
  }

  private async closeOnce(): Promise<void> {
    if (this.closed) return;
    const standalone = this.standalone;
    const sid = this.session;
    if (standalone?.reading && sid !== undefined) {
      const ended = new Promise<void>((r) => (this.closing = r));
      const ok = await this.endSession(sid);
      if (ok) await Promise.race([ended, sleep(CLOSE_READ_MS, signalOf(standalone))]);
      stopStream(standalone);
    }
    this.closing = undefined;
    this.closed = true;
    for (const s of this.streams.list()) stopStream(s);
    this.streams.clear();
    if (this.session !== undefined) await this.terminateSession().catch(() => undefined);
    for (const c of [...this.inFlight]) c.cancel();
    this.inFlight.clear();
    this.events?.onClose();
  }

  /** The headers of one request: the user's (a promise when they come from a function), then `base`, then session ones. */
  private headers(
    base: Record<string, string>,
    sessionId = this.session,
  ): Record<string, string> | Promise<Record<string, string>> {
    const extra = this.opts.headers;
    if (typeof extra === 'function')
      return Promise.resolve(extra()).then((e) => this.withSession({ ...e, ...base }, sessionId));
    return this.withSession(extra === undefined ? base : { ...extra, ...base }, sessionId);
  }

  private withSession(out: Record<string, string>, sessionId: string | undefined): Record<string, string> {
    if (sessionId !== undefined) out['Mcp-Session-Id'] = sessionId;
    if (this.version !== undefined) out['MCP-Protocol-Version'] = this.version;
    return out;
  }

  private deliver(m: JSONRPCMessage): void {
    if (!this.closed) this.events?.onMessage(m);
  }

  private track(kind: StreamState['kind'], sessionId: string | undefined): StreamState {
    const state: StreamState = {
      kind,
      pending: new FewSet(),
      sessionId,
      failures: 0,
      aborted: false,
      prev: undefined,
      next: undefined,
    };
    this.streams.add(state);
    return state;
  }

  /**
   * Whether the standalone GET stream (basic/transports "Listening for Messages from the
   * Server") is open: resolves true once the server answered the GET with an event stream,
   * false when it has none (405), the stream was given up, the option `standaloneStream` is
   * false or the session is not initialized yet (no stream was started). Messages the server
   * sends outside any request (log messages, list_changed) arrive on that stream.
   */
  standaloneOpened(): Promise<boolean> {
    return this.standaloneOutcome ?? Promise.resolve(false);
  }

  private openStandalone(): void {
    if (this.standalone || this.closed) return;
    this.standaloneOutcome ??= new Promise<boolean>((r) => (this.standaloneSettle = r));
    this.standalone = this.track('standalone', this.session);
    void this.reconnect(this.standalone, 0);
  }

  /**
   * Reads one SSE response body as it arrives (../io/request.ts readInto: from the socket's
   * callbacks on node:http); a POST stream stops once its responses are in. On its end (the
   * POST's `cancel` leaves {@link inFlight} then) decides between done, resume and failure.
   */
  private consume(res: HttpReply, state: StreamState, cancel?: Cancel): void {
    readInto(res, new StreamReader(this, state, new SseParser({ maxEventSize: this.opts.maxEventSize }), cancel));
  }

  /** @internal A stream's body ended (its reader's `end`): out of the requests in flight, then done, resumed or failed. */
  streamRead(state: StreamState, broken: unknown, cancel: Cancel | undefined): void {
    if (cancel) this.inFlight.delete(cancel);
    this.streamEnded(state, broken);
  }

  /** @internal Delivers the messages of a stream's `events`; keeps its `retry` and last event ID. */
  take(state: StreamState, parser: SseParser, events: SseEvent[]): void {
    if (parser.retry !== undefined) state.retry = parser.retry;
    if (parser.lastEventId !== undefined) state.lastEventId = parser.lastEventId;
    for (const e of events) {
      if (e.event !== 'message' || e.data === '') continue;
      let m: JSONRPCMessage;
      try {
        m = JSON.parse(e.data) as JSONRPCMessage;
        exactIds(m, e.data);
      } catch {
        this.events?.onError?.(new Error(`SSE event is not JSON: ${e.data.slice(0, 80)}`));
        continue;
      }
      if (!('method' in m) && (typeof m.id === 'string' || typeof m.id === 'number')) state.pending.delete(m.id);
      this.deliver(m);
    }
  }

  /** A stream's body ended (`broken`: why it broke): done, resumed, or its requests fail. */
  private streamEnded(state: StreamState, broken: unknown): void {
    state.reading = false;
    if (state.aborted || this.closed || (this.closing && state === this.standalone)) return this.forget(state);
    if (state.kind === 'post' && state.pending.size === 0) return this.forget(state);
    if (state.kind === 'post' && state.lastEventId === undefined) {
      return this.failStream(
        state,
        new ConnectionClosedError(
          broken instanceof Error ? broken : undefined,
          'SSE response stream lost before the response, and it cannot be resumed (no event ID came)',
        ),
      );
    }
    void this.reconnect(state);
  }

  /**
   * GET (with `Last-Event-ID` when known) until a stream opens or attempts run out. The k-th
   * wait (k from 0) is `min(maxDelayMs, (retry ?? initialDelayMs) * factor^k)`, never less than
   * the server's `retry`; `firstDelay` replaces the first wait (0: try at once).
   */
  private async reconnect(state: StreamState, firstDelay?: number): Promise<void> {
    const r = this.opts.reconnect ?? {};
    const initial = r.initialDelayMs ?? 1000;
    for (let k = 0; ; ) {
      let delay: number;
      if (firstDelay !== undefined) delay = firstDelay;
      else {
        const backoff = Math.min(r.maxDelayMs ?? 30000, (state.retry ?? initial) * (r.factor ?? 1.5) ** k++);
        delay = Math.max(state.retry ?? 0, backoff);
      }
      firstDelay = undefined;
      if (delay > 0 && !(await sleep(delay, signalOf(state)))) return this.forget(state);
      if (this.closed || state.aborted) return this.forget(state);
      if (state.sessionId !== this.session)
        return this.failStream(state, new SessionExpiredError(state.sessionId ?? ''));
      const extra: Record<string, string> = { Accept: 'text/event-stream' };
      if (state.lastEventId !== undefined) extra['Last-Event-ID'] = state.lastEventId;
      let res: HttpReply | undefined;
      try {
        const headers = await this.headers(extra, state.sessionId);
        res = await this.request({
          method: 'GET',
          headers,
          signal: signalOf(state),
          stream: state.kind === 'standalone',
        });
      } catch (e) {
        if (state.aborted || this.closed) return this.forget(state);
        this.events?.onError?.(e instanceof Error ? e : new Error(String(e)));
      }
      if (res?.ok && mediaType(res.header('content-type')) === 'text/event-stream') {
        state.failures = 0;
        if (state.kind === 'standalone') this.settleStandalone(true);
        state.reading = true;
        this.consume(res, state);
        return;
      }
      if (res) {
        const body = await readBody(res);
        if (res.status === 404 && state.sessionId !== undefined) {
          const err = new SessionExpiredError(state.sessionId);
          this.expire(state.sessionId);
          return this.failStream(state, err);
        }
        if (res.status === 405 && state.kind === 'standalone' && state.lastEventId === undefined)
          return this.forget(state);
        if (res.status === 400 && state.kind === 'standalone' && state.lastEventId !== undefined) {
          state.lastEventId = undefined; // cursor unknown to the server: start a fresh stream
        } else if (res.status === 405 || res.status === 400 || (res.status === 409 && state.kind === 'post')) {
          return this.failStream(state, new HttpStatusError(res.status, body, 'GET (SSE stream)'));
        }
      }
      if (++state.failures > (r.maxRetries ?? 5)) {
        return this.failStream(
          state,
          new ConnectionClosedError(
            undefined,
            `Connection lost: the SSE stream could not be re-established after ${state.failures - 1} retries`,
          ),
        );
      }
    }
  }

  private forget(state: StreamState): void {
    this.streams.delete(state);
    if (this.standalone === state) {
      this.standalone = undefined;
      this.settleStandalone(false);
      this.closing?.();
    }
  }

  private settleStandalone(open: boolean): void {
    this.standaloneSettle?.(open);
    this.standaloneSettle = undefined;
  }

  /** Gives up a stream: its waiting requests fail with `error`. */
  private failStream(state: StreamState, error: Error): void {
    this.forget(state);
    if (state.pending.size === 0 && state.kind === 'standalone') {
      if (!(error instanceof SessionExpiredError)) this.events?.onError?.(error);
      return;
    }
    for (const id of [...state.pending]) {
      if (this.events?.onRequestError) this.events.onRequestError(id, error);
      else {
        const wire = error instanceof RpcError ? error.toJSON() : { code: TRANSPORT_ERROR, message: error.message };
        this.deliver({ jsonrpc: '2.0', id, error: wire });
      }
    }
    state.pending.clear();
  }

  private dropSession(sessionId: string): boolean {
    if (this.session !== sessionId) return false;
    this.session = undefined;
    this.version = undefined;
    for (const s of this.streams.list()) {
      if (s.sessionId !== sessionId) continue;
      stopStream(s);
      this.failStream(s, new SessionExpiredError(sessionId));
    }
    return true;
  }

  /** Handles a 404 for `sessionId` once: drop it, fail its streams, call the hook. */
  private expire(sessionId: string): void {
    if (!this.dropSession(sessionId)) return;
    const hook = this.onSessionExpired;
    if (hook) {
      Promise.resolve()
        .then(() => hook({ sessionId }))
        .catch((e: unknown) => this.events?.onError?.(e instanceof Error ? e : new Error(String(e))));
    }
  }
}

/**
 * The {@link BodySink} of one SSE response body (../io/request.ts readInto: called from the
 * socket's callbacks on node:http): parses it, hands its messages to the transport, and stops a
 * POST stream once its responses are in. One object per body, with its methods on the prototype
 * (no closures per reply).
 */
class StreamReader implements BodySink {
  #broken: unknown = undefined;
  #stopped = false;

  constructor(
    private readonly transport: HttpClientTransport,
    private readonly state: StreamState,
    private readonly parser: SseParser,
    private readonly cancel: Cancel | undefined,
  ) {}

  chunk(data: string | Uint8Array): boolean {
    const state = this.state;
    try {
      this.transport.take(state, this.parser, this.parser.push(data));
    } catch (e) {
      this.#broken = e;
    }
    if (this.#broken === undefined && !(state.kind === 'post' && state.pending.size === 0)) return true;
    this.#stopped = true;
    return false;
  }

  end(error: Error | undefined): void {
    if (error) this.#broken = error;
    else if (!this.#stopped) {
      try {
        this.transport.take(this.state, this.parser, this.parser.end());
      } catch (e) {
        this.#broken = e;
      }
    }
    this.transport.streamRead(this.state, this.#broken, this.cancel);
  }
}
