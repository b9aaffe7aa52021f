/**
 * At-most-once delivery of the HTTP client transports' POSTs (../session/fetch-client.ts,
 * ../stateless/fetch-client.ts), over any {@link Requester}: a POST is sent again only when the
 * server cannot have processed it —
 * - no byte of it was written: the connection was refused (nothing listens there now, e.g. a
 *   process restarting); other failures to connect or resolve the host are not retried but are
 *   reported the same way ({@link RequestNotProcessedError} `reason: 'not-sent'`);
 * - the server refused it before dispatch: 503 with `Retry-After` (RFC 9110 §15.6.4: the server
 *   is unable to handle the request; §10.2.3: when to try again), the answer of the MCP endpoints
 *   when a session store, an event store or the authorization server cannot be reached, or the
 *   session cap is reached.
 * Any other failure after the request may have been written (a reset, a lost connection, a body
 * cut short) is a {@link ConnectionClosedError}, since the server may have run the request; it is
 * sent again only where the server replays requests (`resend`, request replay), with backoff,
 * until the re-sends are spent ({@link resendDelay}). A failure of an authorization step of the
 * requester (`oauthFetch`: discovery, registration, a token request; {@link authorizationFailed})
 * is not sent again and is the request's error as it is. Retries are bounded ({@link RetryOptions})
 * and spread with jitter, so that many clients refused (or cut) at once do not come back at once.
 * No `node:` import.
 */
import { ConnectionClosedError, RequestNotProcessedError } from '../../../jsonrpc/errors.js';
import {
  abortError,
  type Cancel,
  type HttpReply,
  type HttpRequestInit,
  type Requester,
  lostBefore,
  readBody,
} from './request.js';

/** Retries of a POST the server did not process (see the module docs). */
export interface RetryOptions {
  /**
   * Retries after the first attempt; 0 turns them off (re-sends after a cut too). Default 5.
   * Re-sends after a cut may go past it, within `resendForMs`.
   */
  maxRetries?: number;
  /**
   * First delay before retrying a refused connection, or re-sending a request after a cut, ms;
   * doubles per retry (per cut). Default 250.
   */
  initialDelayMs?: number;
  /**
   * Longest wait before a retry, ms: a refused connection's backoff is capped at it, and a
   * `Retry-After` longer than it is not waited for (the refusal is the caller's error). Default 30 000.
   */
  maxDelayMs?: number;
  /**
   * How long after a request's first cut (its connection lost after the POST may have been
   * written, or its SSE reply before an event ID) it is still sent again, ms, where the server
   * replays requests: re-sends go on past `maxRetries` until then, so that a burst of cuts (a
   * resetting proxy, a server stalled on its store) does not spend them all; no wait goes past it.
   * At least `maxRetries` re-sends are made in any case. Then the request fails with a
   * ConnectionClosedError saying how many times it was sent. Default 30 000.
   */
  resendForMs?: number;
}

const DEFAULTS = { maxRetries: 5, initialDelayMs: 250, maxDelayMs: 30_000, resendForMs: 30_000 } as const;

/** The POSTs of one request cut before its response (request replay), kept across re-sends by the transport. */
export interface Cuts {
  /** POSTs of it written (cut, or answered). */
  sends: number;
  /** Of them, cut before the response (or, on an SSE reply, before an event ID). */
  cuts: number;
  /** When it was first cut, ms since the epoch. */
  since: number;
}

/**
 * The wait before re-sending a request after its latest cut (`cuts.cuts` counts it), ms, with
 * the backoff of a refused connection; undefined once the re-sends are spent: `maxRetries` of
 * them made and `resendForMs` passed since the first cut ({@link RetryOptions}). `retry: false`
 * or `maxRetries: 0`: none.
 */
export function resendDelay(
  cuts: Cuts,
  retry: RetryOptions | false | undefined,
  random: () => number = Math.random,
  now = Date.now(),
): number | undefined {
  if (retry === false) return undefined;
  const max = retry?.maxRetries ?? DEFAULTS.maxRetries;
  if (max <= 0) return undefined;
  const delay = retryDelay(cuts.cuts - 1, undefined, retry, random);
  if (cuts.cuts <= max) return delay;
  const left = cuts.since + (retry?.resendForMs ?? DEFAULTS.resendForMs) - now;
  return left > 0 ? Math.min(delay, left) : undefined;
}

/**
 * The error of a request whose re-sends are spent ({@link resendDelay}): every POST of it was cut
 * before the response, so it may have run (a ConnectionClosedError whose cause is the last cut).
 */
export function resendsSpent(cuts: Cuts, what: string, cause: unknown, now = Date.now()): ConnectionClosedError {
  const each = cuts.cuts === cuts.sends ? 'each' : `${cuts.cuts} of them`;
  return new ConnectionClosedError(
    cause,
    `Connection lost before the response (${what}; the request may have run): sent ${cuts.sends} times, ${each} cut before the response, re-sends spent after ${now - cuts.since} ms`,
  );
}

/**
 * Network error codes of a failure to open the connection: nothing of the request was written.
 * (`syscall` 'connect' or 'getaddrinfo' on Node's errors, which fetch on Node carries as `cause`.)
 */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/** The network error under `error` (fetch wraps it: `TypeError('fetch failed', { cause })`). */
function networkError(error: unknown): { code?: unknown; syscall?: unknown } | undefined {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const x = e as { code?: unknown; syscall?: unknown; cause?: unknown };
    if (typeof x.code === 'string' || typeof x.syscall === 'string') return x;
    e = x.cause;
  }
  return undefined;
}

/**
 * Whether a requester's rejection came before any byte of the request was written: the
 * connection was never opened (refused, unreachable, the name did not resolve, or a port fetch
 * blocks: its TypeError caused by "bad port"). Only errors that say so (a Node `syscall` of
 * 'connect' or 'getaddrinfo', or a connect code) count; a browser's bare "Failed to fetch" does not.
 */
export function neverSent(error: unknown): boolean {
  const e = networkError(error);
  // (fetch's refusal of a port it blocks, the Fetch standard's "bad port": no connection was tried)
  if (!e) return error instanceof TypeError && (error.cause as Error | undefined)?.message === 'bad port';
  return e.syscall === 'connect' || e.syscall === 'getaddrinfo' || NOT_CONNECTED.has(e.code as string);
}

/** Set by `oauthFetch` (../../../auth/client.ts) on the failure of an authorization step. */
const AUTHORIZATION_STEP = Symbol.for('mcpgen.authorizationStep');

/**
 * Whether a requester's rejection is the failure of an authorization step of `oauthFetch`
 * (discovery, registration, a token request): the MCP request was not sent (or refused with
 * 401 / 403 before it was processed), and the error (AuthorizationError, AuthFetchError naming
 * the authorization server's URL) is the request's as it is, with no retry.
 */
export function authorizationFailed(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[AUTHORIZATION_STEP] === true;
}

/** Whether the connection was refused before any byte was written (ECONNREFUSED). */
export function connectionRefused(error: unknown): boolean {
  return networkError(error)?.code === 'ECONNREFUSED';
}

/**
 * A `Retry-After` value (RFC 9110 §10.2.3: delay-seconds or an HTTP-date) in ms from `now`;
 * undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before retry `retry` (from 0): at least the server's `Retry-After` when given, plus up
 * to half of it again; for a refused connection `initialDelayMs · 2^retry` capped at
 * `maxDelayMs`, between half of it and all of it ("equal jitter"). `random` in [0, 1).
 */
export function retryDelay(
  retry: number,
  retryAfter: number | undefined,
  options: RetryOptions = {},
  random: () => number = Math.random,
): number {
  if (retryAfter !== undefined) return Math.round(retryAfter * (1 + random() / 2));
  const cap = options.maxDelayMs ?? DEFAULTS.maxDelayMs;
  const base = Math.min(cap, (options.initialDelayMs ?? DEFAULTS.initialDelayMs) * 2 ** retry);
  return Math.round(base / 2 + (base / 2) * random());
}

/** How one POST goes out through {@link deliver}. */
export interface DeliverOptions {
  /** What the errors name, e.g. `POST tools/call`. */
  what: string;
  /** `false`: no retries. */
  retry?: RetryOptions | false;
  /** Called before each wait for a retry (a transport lets `notifications/cancelled` end it). */
  onRetry?: (delayMs: number) => void;
  /**
   * Whether a POST whose connection was lost after it may have been written is sent again: only
   * where the server says an identical re-send is answered without running it again (request
   * replay, ../session/session-replay.ts), and then until the re-sends are spent
   * ({@link resendDelay}: the backoff of a refused connection). Given the request's {@link Cuts}
   * (made at its first cut, or `cuts`), which the caller keeps for its later re-sends. Default: never.
   */
  resend?: (cuts: Cuts) => boolean;
  /**
   * The cuts of this request's earlier POSTs (this POST is a re-send of a request whose reply
   * was lost): a later refusal does not mean the request did not run, so it is a
   * ConnectionClosedError, never a RequestNotProcessedError; further cuts count on.
   */
  cuts?: Cuts;
  random?: () => number;
}

/** How the first attempt of a POST ended: its reply, or the requester's rejection. */
export type FirstAttempt = { reply: HttpReply; error?: undefined } | { reply?: undefined; error: unknown };

/**
 * Sends `init` with `request`, again only while the server cannot have processed it (see the
 * module docs). Resolves with the reply (any status but a 503 with `Retry-After`). `first`: how
 * the first attempt ended when the caller made it already (e.g. a transport that sent it with
 * `request(init)` and found a 503 or a rejection); the attempts after it, and the errors, are
 * the same.
 * @throws RequestNotProcessedError when it was not processed and the retries are spent.
 * @throws ConnectionClosedError for a network failure after the request may have been written.
 * @throws the cancel's reason (or the signal's abort error) once cancelled, also during a wait.
 */
export async function deliver(
  request: Requester,
  init: HttpRequestInit,
  options: DeliverOptions,
  first?: FirstAttempt,
): Promise<HttpReply> {
  const retry = options.retry === false ? { maxRetries: 0 } : (options.retry ?? {});
  const maxRetries = retry.maxRetries ?? DEFAULTS.maxRetries;
  const maxDelay = retry.maxDelayMs ?? DEFAULTS.maxDelayMs;
  let cuts = options.cuts;
  for (let attempt = 1; ; attempt++) {
    let reply: HttpReply;
    try {
      if (first === undefined) reply = await request(init);
      else {
        const f = first;
        first = undefined;
        if (f.reply === undefined) throw f.error;
        reply = f.reply;
      }
    } catch (e) {
      const stopped = stoppedBy(init);
      if (stopped) throw stopped;
      // (after a cut the request may have run: that is said below, whatever the last attempt's failure)
      if (cuts === undefined && authorizationFailed(e)) throw e;
      if (!neverSent(e)) {
        if (cuts) {
          cuts.sends++;
          cuts.cuts++;
        } else cuts = { sends: 1, cuts: 1, since: Date.now() };
        const replay = options.resend?.(cuts) === true;
        const delay = replay ? resendDelay(cuts, options.retry, options.random) : undefined;
        if (delay !== undefined) {
          await wait(delay, init, options);
          attempt--;
          continue;
        }
        if (replay && cuts.cuts > 1) throw resendsSpent(cuts, options.what, e);
        throw lostBefore(e, options.what);
      }
      const delay = connectionRefused(e) ? retryDelay(attempt - 1, undefined, retry, options.random) : undefined;
      if (delay === undefined || attempt > maxRetries) {
        throw notRun(
          new RequestNotProcessedError({ reason: 'not-sent', what: options.what, attempts: attempt, cause: e }),
          cuts !== undefined,
        );
      }
      await wait(delay, init, options);
      continue;
    }
    if (cuts) cuts.sends++;
    if (reply.status !== 503) return reply;
    const after = retryAfterMs(reply.header('retry-after'));
    if (after === undefined) return reply;
    if (attempt > maxRetries || after > maxDelay) {
      throw notRun(
        new RequestNotProcessedError({
          reason: 'refused',
          what: options.what,
          attempts: attempt,
          status: 503,
          retryAfterMs: after,
          body: await readBody(reply),
        }),
        cuts !== undefined,
      );
    }
    reply.discard();
    await wait(retryDelay(attempt - 1, after, retry, options.random), init, options);
  }
}

/**
 * `error`, unless an earlier attempt of the POST may have been processed (`sentBefore`: it was cut): then
 * the last attempt's refusal says nothing of the first, and the request may have run.
 */
function notRun(error: RequestNotProcessedError, sentBefore: boolean): Error {
  if (!sentBefore) return error;
  return new ConnectionClosedError(
    error,
    `Connection lost before the response (the request may have run); sent again, and the last attempt was not processed: ${error.message}`,
  );
}

/** Why `init` was stopped (its cancel's reason, or its signal's abort error), if it was. */
function stoppedBy(init: HttpRequestInit): Error | undefined {
  if (init.cancel?.reason) return init.cancel.reason;
  return init.signal?.aborted ? abortError(init.signal) : undefined;
}

/** Waits `ms` before a retry; rejects with the reason once `init` is cancelled or aborted meanwhile. */
function wait(ms: number, init: HttpRequestInit, options: DeliverOptions): Promise<void> {
  options.onRetry?.(ms);
  return new Promise<void>((resolve, reject) => {
    const cancel: Cancel | undefined = init.cancel;
    const signal = init.signal;
    const stop = (): void => {
      clearTimeout(timer);
      cancel?.off(stop);
      signal?.removeEventListener('abort', stop);
      reject(stoppedBy(init));
    };
    const timer = setTimeout(() => {
      cancel?.off(stop);
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    cancel?.onCancel(stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
}
