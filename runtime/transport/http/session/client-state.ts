/**
 * The state of a Streamable HTTP client transport (./fetch-client.ts): its options, the session
 * it holds, the streams open or being resumed, the POSTs in flight, and what every part does
 * with them: the headers of a request, delivering a message, giving a stream up, and dropping a
 * session the server no longer knows (case 006). The parts build on it in this order: SSE
 * streams, the standalone GET stream and resumption (./client-streams.ts), the POST of a message
 * and its answer (./client-post.ts), ending the session and close (./client-close.ts).
 */
import { ConnectionClosedError, RpcError, ErrorCode } from '../../../jsonrpc/errors.js';
import { FewSet } from '../../../jsonrpc/few.js';
import { isObject } from '../../../jsonrpc/message.js';
import type { Cancel, Requester } from '../io/request.js';
import type { Cuts, RetryOptions } from '../io/delivery.js';
import type { JSONRPCMessage, TransportEvents } from '../../../jsonrpc/transport.js';

/**
 * The server no longer knows the session (HTTP 404 to a request carrying its id; 2025-11-25
 * basic/transports, "Session Management"): the request it answered was not processed. Code
 * -32000, `data: { sessionId }`.
 */
export class SessionExpiredError extends RpcError {
  readonly sessionId: string;
  constructor(sessionId: string) {
    super(ErrorCode.ServerError, `MCP session ${sessionId} expired (HTTP 404); start a new session`, { sessionId });
    this.name = 'SessionExpiredError';
    this.sessionId = sessionId;
  }
}

/** The SessionExpiredError of a 404 to `what` (e.g. "POST tools/call"), whose message says it was not processed. */
export function expiredAt(sessionId: string, what: string): SessionExpiredError {
  const error = new SessionExpiredError(sessionId);
  error.message = `MCP session ${sessionId} expired (HTTP 404): ${what} was not processed; start a new session`;
  return error;
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
  /**
   * How long a stream is still resumed while every attempt is refused at connect (ECONNREFUSED:
   * nothing listens at the address, e.g. the server process died or is restarting), ms from the
   * first refusal of the run: an attempt that would start later is not made, and the stream's
   * requests fail at once with a ConnectionClosedError (the last refusal as `cause`). Any other
   * failure (a reset, a timeout, an HTTP status) starts the run anew; `maxRetries` bounds both.
   * Default 5000; `Infinity`: only `maxRetries`.
   */
  refusedForMs?: number;
}

/** Options of the Streamable HTTP client transport (`HttpClientTransport`). */
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
  /**
   * Called once per expired session, after it was dropped and before any of its requests fail (at
   * once, from the handling of the 404: a new session started here is under way when a failed
   * request's caller sends again); see the module docs.
   */
  onSessionExpired?: (info: { sessionId: string }) => void | Promise<void>;
  /** Largest SSE event accepted, in characters. Default 16 MiB. */
  maxEventSize?: number;
  /**
   * Retries of a POST the server did not process: a refused connection (nothing written), or
   * 503 with `Retry-After` (../io/delivery.ts). `false`: none. Default 5 retries, waits with
   * jitter, none longer than 30 s. A POST that may have been processed is sent again only where
   * the server replays requests (./client-post.ts), at least `maxRetries` times and until
   * `resendForMs` (default 30 s) after its first cut.
   */
  retry?: RetryOptions | false;
}

/** One stream of the transport: the reply stream of a POST, or the standalone GET stream. */
export interface StreamState {
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
  /** A POST stream's request, kept when the server replays requests (sent again if the stream is lost before an event ID). */
  request?: JSONRPCMessage;
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
export class Streams {
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
export function stopStream(state: StreamState): void {
  state.aborted = true;
  state.abort?.abort();
}

/** The abort signal of a stream's GETs and waits (aborted once the stream was stopped). */
export function signalOf(state: StreamState): AbortSignal {
  if (!state.abort) {
    state.abort = new AbortController();
    if (state.aborted) state.abort.abort();
  }
  return state.abort.signal;
}

/** The transport's public face, as its state sees it: where the session-expiry hook is set. */
export interface ClientOwner {
  onSessionExpired: ((info: { sessionId: string }) => void | Promise<void>) | undefined;
}

/** The state every part of the client transport shares (see the module docs). */
export class ClientState {
  events: TransportEvents | undefined;
  session: string | undefined;
  version: string | undefined;
  /** One handle per POST in flight (its reply included), all cancelled by close(). */
  readonly inFlight = new FewSet<Cancel>();
  /** The POSTs of requests waiting to be retried, by id: `notifications/cancelled` for one ends its wait. */
  retrying: Map<string | number, Cancel> | undefined;
  /** The `initialize` request awaiting its response (its result says whether the server replays requests). */
  initId: string | number | undefined;
  /** The session's server advertised request replay (./client-post.ts). */
  replay = false;
  /** The cuts of a request sent again after its POST or its reply stream was cut (./client-post.ts). */
  resent: WeakMap<JSONRPCMessage, Cuts> | undefined;
  readonly streams = new Streams();
  standalone: StreamState | undefined;
  /** Settles `standaloneOpened()`'s promise (once: later calls change nothing): true once the GET stream answered, false once given up. */
  standaloneSettle: ((open: boolean) => void) | undefined;
  standaloneOutcome: Promise<boolean> | undefined;
  closed = false;
  /** Set by close() while it reads the standalone stream to its end; resolved as that stream ends. */
  closing: (() => void) | undefined;

  constructor(
    readonly request: Requester,
    readonly opts: HttpClientTransportOptions,
    /** The transport's public face, whose `onSessionExpired` is called on a 404. */
    protected readonly owner: ClientOwner,
  ) {}

  /** The headers of one request: the user's (a promise when they come from a function), then `base`, then session ones. */
  headers(
    base: Record<string, string>,
    sessionId = this.session,
  ): Record<string, string> | Promise<Record<string, string>> {
    const extra = this.opts.headers;
    if (typeof extra === 'function')
      return Promise.resolve(extra()).then((e) => this.withSession({ ...e, ...base }, sessionId));
    return this.withSession(extra === undefined ? base : { ...extra, ...base }, sessionId);
  }

  withSession(out: Record<string, string>, sessionId: string | undefined): Record<string, string> {
    if (sessionId !== undefined) out['Mcp-Session-Id'] = sessionId;
    if (this.version !== undefined) out['MCP-Protocol-Version'] = this.version;
    return out;
  }

  deliver(m: JSONRPCMessage): void {
    if (this.initId !== undefined && m.id === this.initId && !('method' in m)) {
      this.initId = undefined;
      const experimental = (m.result as { capabilities?: { experimental?: unknown } } | undefined)?.capabilities
        ?.experimental;
      this.replay = isObject(experimental) && Object.hasOwn(experimental, 'mcpgen/requestReplay');
    }
    if (!this.closed) this.events?.onMessage(m);
  }

  /**
   * Whether a request of session `sent` may be POSTed again after its reply was lost: request
   * replay, in the same session (how often and how long: ../io/delivery.ts `resendDelay`).
   */
  mayResend(sent: string | undefined): boolean {
    return this.replay && !this.closed && sent !== undefined && this.session === sent;
  }

  track(kind: StreamState['kind'], sessionId: string | undefined): StreamState {
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

  forget(state: StreamState): void {
    this.streams.delete(state);
    if (this.standalone === state) {
      this.standalone = undefined;
      this.standaloneSettle?.(false);
      this.closing?.();
    }
  }

  /** Gives up a stream: its waiting requests fail with `error`. */
  failStream(state: StreamState, error: Error): void {
    this.forget(state);
    if (state.pending.size === 0 && state.kind === 'standalone') {
      if (!(error instanceof SessionExpiredError)) this.events?.onError?.(error);
      return;
    }
    for (const id of [...state.pending]) {
      if (this.events?.onRequestError) this.events.onRequestError(id, error);
      else {
        const wire =
          error instanceof RpcError ? error.toJSON() : { code: ErrorCode.ServerError, message: error.message };
        this.deliver({ jsonrpc: '2.0', id, error: wire });
      }
    }
    state.pending.clear();
  }

  /**
   * Forgets session `sessionId` (a 404 said it is gone for new requests). A POST's reply stream
   * being read goes on to its responses (the server took its request; if it ends without them,
   * it cannot be resumed: ./client-streams.ts fails its requests as "may have run"); a reply
   * stream waiting to be resumed fails with a ConnectionClosedError (its request may have
   * run); the standalone stream stops. `ended` (the client ended the session itself,
   * `terminateSession`): every stream of the session stops, its requests fail with
   * SessionExpiredError. `then` runs after the session is forgotten and before any stream
   * fails (so that what it starts, a new session, is under way when a failed request's caller
   * sends its next one).
   */
  dropSession(sessionId: string, ended: boolean, then?: () => void): boolean {
    if (this.session !== sessionId) return false;
    this.session = undefined;
    this.version = undefined;
    then?.();
    for (const s of this.streams.list()) {
      if (s.sessionId !== sessionId || (!ended && s.kind === 'post' && s.reading)) continue;
      stopStream(s);
      const expired = new SessionExpiredError(sessionId);
      this.failStream(
        s,
        !ended && s.kind === 'post'
          ? new ConnectionClosedError(
              expired,
              'SSE response stream lost before the response (the request may have run)',
            )
          : expired,
      );
    }
    return true;
  }

  /**
   * Handles a 404 for `sessionId` once: drop it, fail or leave its streams (see
   * {@link dropSession}), call the hook. The hook (where the lifecycle starts a new session) is
   * called before any request of the session fails: a caller that sends again as soon as its
   * request failed then waits for the new session instead of posting without one (a 400).
   * Returns false when the session was already dropped.
   */
  expire(sessionId: string): boolean {
    const hook = this.owner.onSessionExpired;
    return this.dropSession(sessionId, false, () => {
      if (!hook) return;
      let started: void | Promise<void>;
      try {
        started = hook({ sessionId });
      } catch (e) {
        this.events?.onError?.(e instanceof Error ? e : new Error(String(e)));
        return;
      }
      Promise.resolve(started).catch((e: unknown) =>
        this.events?.onError?.(e instanceof Error ? e : new Error(String(e))),
      );
    });
  }
}
