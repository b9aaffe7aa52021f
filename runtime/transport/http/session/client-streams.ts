/**
 * The SSE streams of a Streamable HTTP client transport (./fetch-client.ts; 2025-11-25
 * basic/transports, "Listening for Messages from the Server", "Resumability and Redelivery"):
 * reading a reply or GET stream as it arrives, the standalone GET stream opened after
 * initialization, and resumption: a stream that ends or breaks before its responses arrived is
 * resumed with GET and `Last-Event-ID`, waiting the server's `retry` (else a capped exponential
 * backoff) between attempts.
 */
import { SseParser, type SseEvent } from '../../../codec/sse.js';
import { ConnectionClosedError } from '../../../jsonrpc/errors.js';
import { exactIds } from '../../../jsonrpc/message.js';
import {
  adoptAnswer,
  eventMessage,
  type BodySink,
  type Cancel,
  HttpStatusError,
  mediaType,
  readBody,
  readInto,
  sleep,
  stray,
  type HttpReply,
} from '../io/request.js';
import { connectionRefused } from '../io/delivery.js';
import { ClientState, type ReconnectOptions, SessionExpiredError, signalOf, type StreamState } from './client-state.js';

/** The streams of a client transport (see the module docs). */
export class ClientStreams extends ClientState {
  openStandalone(): void {
    if (this.standalone || this.closed) return;
    this.standaloneOutcome ??= new Promise<boolean>((r) => (this.standaloneSettle = r));
    this.standalone = this.track('standalone', this.session);
    void this.reconnect(this.standalone, 0);
  }

  /**
   * Reads one SSE response body as it arrives (../io/request.ts readInto: from the socket's
   * callbacks on node:http); a POST stream stops once its responses are in. On its end (the
   * POST's `cancel` leaves `inFlight` then) decides between done, resume and failure.
   */
  consume(res: HttpReply, state: StreamState, cancel?: Cancel): void {
    readInto(res, new StreamReader(this, state, new SseParser({ maxEventSize: this.opts.maxEventSize }), cancel));
  }

  /** A stream's body ended (its reader's `end`): out of the requests in flight, then done, resumed or failed. */
  streamRead(state: StreamState, broken: unknown, cancel: Cancel | undefined): void {
    if (cancel) this.inFlight.delete(cancel);
    this.streamEnded(state, broken);
  }

  /** Delivers the messages of a stream's `events`; keeps its `retry` and last event ID. */
  take(state: StreamState, parser: SseParser, events: SseEvent[]): void {
    if (parser.retry !== undefined) state.retry = parser.retry;
    if (parser.lastEventId !== undefined) state.lastEventId = parser.lastEventId;
    for (const e of events) {
      if (e.event !== 'message' || e.data === '') continue;
      const m = eventMessage(e.data);
      if (m instanceof Error) {
        this.events?.onError?.(m);
        continue;
      }
      exactIds(m, e.data);
      // an error with id null or absent on the reply stream of one request is its (JSON-RPC 2.0 §5)
      if (m.id == null && state.kind === 'post' && state.pending.size === 1) adoptAnswer(m, [...state.pending][0]);
      if (!('method' in m) && !state.pending.delete(m.id as string)) this.events?.onError?.(stray(m.id));
      this.deliver(m);
    }
  }

  /** A stream's body ended (`broken`: why it broke): done, resumed, or its requests fail. */
  streamEnded(state: StreamState, broken: unknown): void {
    state.reading = false;
    if (state.aborted || this.closed || (this.closing && state === this.standalone)) return this.forget(state);
    if (state.kind === 'post' && state.pending.size === 0) return this.forget(state);
    if (state.kind === 'post' && state.lastEventId === undefined) {
      return this.failStream(
        state,
        new ConnectionClosedError(
          broken instanceof Error ? broken : undefined,
          `SSE response stream ${broken === undefined ? 'closed by the server' : 'lost'} before the response (the request may have run), and it cannot be resumed (no event ID came)`,
        ),
      );
    }
    void this.reconnect(state);
  }

  /**
   * GET (with `Last-Event-ID` when known) until a stream opens or attempts run out. The k-th
   * wait (k from 0) is `min(maxDelayMs, (retry ?? initialDelayMs) * factor^k)`, never less than
   * the server's `retry`; `firstDelay` replaces the first wait (0: try at once). Attempts run out
   * after `maxRetries` failed retries, or sooner when every attempt since some time was refused at
   * connect and the next one would start more than `refusedForMs` after the first of them
   * ({@link ReconnectOptions}); the stream's error then says how many attempts over how long, with
   * the last attempt's error as `cause`.
   */
  async reconnect(state: StreamState, firstDelay?: number): Promise<void> {
    const r = this.opts.reconnect ?? {};
    const since = Date.now();
    let refusedSince: number | undefined;
    let last: Error | undefined;
    for (let k = 0; ; ) {
      const delay = firstDelay ?? reconnectDelay(r, state, k++);
      firstDelay = undefined;
      // (the waits of a standalone stream, as its socket, keep no Node process alive: nothing awaits
      // it, or standaloneOpened() keeps the process alive while it is awaited)
      if (delay > 0 && !(await sleep(delay, signalOf(state), state.kind === 'standalone'))) return this.forget(state);
      if (this.closed || state.aborted) return this.forget(state);
      if (state.sessionId !== this.session)
        return this.failStream(state, resumeFailed(state, new SessionExpiredError(state.sessionId ?? '')));
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
        last = e instanceof Error ? e : new Error(String(e));
        refusedSince = connectionRefused(e) ? (refusedSince ?? Date.now()) : undefined;
        this.events?.onError?.(last);
      }
      if (res?.ok && mediaType(res.header('content-type')) === 'text/event-stream') {
        state.failures = 0;
        if (state.kind === 'standalone') this.standaloneSettle?.(true);
        state.reading = true;
        this.consume(res, state);
        return;
      }
      if (res) {
        refusedSince = undefined;
        const body = await readBody(res);
        if (res.status === 404 && state.sessionId !== undefined) {
          const err = resumeFailed(state, new SessionExpiredError(state.sessionId));
          this.expire(state.sessionId);
          return this.failStream(state, err);
        }
        if (res.status === 405 && state.kind === 'standalone' && state.lastEventId === undefined)
          return this.forget(state);
        last = new HttpStatusError(res.status, body, 'GET (SSE stream)');
        if (res.status === 400 && state.kind === 'standalone' && state.lastEventId !== undefined) {
          state.lastEventId = undefined; // cursor unknown to the server: start a fresh stream
        } else if (res.status === 405 || res.status === 400 || (res.status === 409 && state.kind === 'post')) {
          return this.failStream(state, resumeFailed(state, last));
        }
      }
      const attempts = ++state.failures;
      const now = Date.now();
      const refusedFor = r.refusedForMs ?? REFUSED_FOR_MS;
      const why =
        attempts > (r.maxRetries ?? 5)
          ? ` after ${attempts - 1} retries`
          : refusedSince !== undefined && now + reconnectDelay(r, state, k) - refusedSince > refusedFor
            ? `: refused at connect (nothing listens there) for ${now - refusedSince} ms, and the next attempt would pass reconnect.refusedForMs (${refusedFor} ms)`
            : undefined;
      if (why !== undefined) {
        const mayHaveRun = state.kind === 'post' ? ' (the request may have run)' : '';
        const message = `Connection lost: the SSE stream could not be re-established${why}; ${attempts} attempts over ${now - since} ms${mayHaveRun}`;
        return this.failStream(state, new ConnectionClosedError(last, message));
      }
    }
  }
}

/** The default of `ReconnectOptions.refusedForMs`, ms. */
const REFUSED_FOR_MS = 5000;

/** The wait before reconnection attempt `k` (from 0) of `state`, ms (see `reconnect`). */
function reconnectDelay(r: ReconnectOptions, state: StreamState, k: number): number {
  const backoff = Math.min(r.maxDelayMs ?? 30000, (state.retry ?? r.initialDelayMs ?? 1000) * (r.factor ?? 1.5) ** k);
  return Math.max(state.retry ?? 0, backoff);
}

/**
 * The error the requests of `state` fail with when resuming it failed with `error`: on a POST's
 * reply stream, which gave an event ID before it was lost, the server had taken the request, so
 * it may have run: a ConnectionClosedError caused by `error` (e.g. a 400 for a cursor the server
 * no longer keeps, or the SessionExpiredError of a session that ended meanwhile), never a header
 * error nor a SessionExpiredError (which says the request was not processed).
 */
function resumeFailed(state: StreamState, error: Error): Error {
  if (state.kind !== 'post') return error;
  return new ConnectionClosedError(
    error,
    'SSE response stream lost before the response (the request may have run), and resuming it failed',
  );
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
    private readonly transport: ClientStreams,
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
