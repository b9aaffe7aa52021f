/**
 * The HTTP requests of the Streamable HTTP client transports (../session/fetch-client.ts,
 * ../stateless/fetch-client.ts): one small interface, {@link HttpReply}, and its `fetch` form
 * ({@link fetchRequester}: Web Streams, for browsers, workers, Bun, Deno, or any fetch a user
 * gives). The `node:http` form, the default on Node, is ./node-request.ts. No `node:` import.
 */
import { ConnectionClosedError } from '../../../jsonrpc/errors.js';
import { innermost } from '../../../jsonrpc/innermost.js';
import { idText, isObject } from '../../../jsonrpc/message.js';
import type { JSONRPCMessage } from '../../../jsonrpc/transport.js';
import { parsePeerJson } from '../../../codec/json-depth.js';

/**
 * The server answered with an HTTP error status (other than a session-expiry 404), or with a
 * body that is not JSON-RPC (an HTML page, `text/plain`, JSON that does not parse) whatever
 * the status.
 */
export class HttpStatusError extends Error {
  readonly status: number;
  /**
   * The response body: parsed JSON when it was JSON, else the text (of a body that is not
   * JSON-RPC, its first 1,024 characters at least); undefined when it was not read.
   */
  readonly body: unknown;
  /** The response's Content-Type header as received (undefined when absent or not kept). */
  readonly contentType: string | undefined;
  /**
   * The code of the JSON-RPC error `body` holds (`{"error": {"code": -32600, …}}`, whatever its
   * id), as an RpcError's; its message is in this error's message, in parentheses. Undefined
   * when the body is no JSON-RPC error.
   */
  readonly code: number | undefined;
  constructor(status: number, body: unknown, what: string, contentType?: string) {
    const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
    const detail = error?.message;
    super(`${what}: HTTP ${status}${typeof detail === 'string' ? ` (${detail})` : ''}`);
    this.name = 'HttpStatusError';
    this.status = status;
    this.body = body;
    this.contentType = contentType;
    this.code = typeof error?.code === 'number' ? error.code : undefined;
  }
}

/**
 * The error of request `what` (e.g. "POST tools/call") whose connection was lost after it may
 * have been written: before the response head, or within the reply's body (a reset, a body cut
 * short of its Content-Length). The server may have run it. Code -32000; `cause`: the network error.
 */
export const lostBefore = (cause: unknown, what: string): ConnectionClosedError =>
  new ConnectionClosedError(cause, `Connection lost before the response (${what}; the request may have run)`);

/**
 * Takes `m`, read from the reply to a POST that carried the one request `id`, as that request's
 * response when it is one, and says whether it is: its id is `id` (a bigint `id` takes a
 * number), or it is an error whose id is null or absent (JSON-RPC 2.0 §5: null when the server
 * could not read the request's id), whose `id` is then set to `id` in place (not a pure
 * predicate: the error is readied for delivery to the request).
 */
export function adoptAnswer(m: unknown, id: string | number | bigint): boolean {
  if (!isObject(m) || Object.hasOwn(m, 'method')) return false;
  if (m.id === id || (typeof id === 'bigint' && typeof m.id === 'number')) return true;
  if (m.id != null || !Object.hasOwn(m, 'error')) return false;
  m.id = id;
  return true;
}

/** What a client's logger is told (`onError`) of a response on an SSE stream that answers no request of that stream. */
export const stray = (id: unknown): Error =>
  new Error(`SSE response stream: a response to id ${idText(id).slice(0, 80)} answers no request of that stream`);

/**
 * The message of an SSE `message` event's `data`, parsed as peer JSON; or, when it is none, the
 * error that names it for the transport's `onError` (the first 80 characters of the data): data
 * that is not JSON ("SSE event is not JSON: …"), a JSON array ("SSE event is a JSON array (a
 * batch), no message: this revision has no batches: …"), another value that is no object ("SSE
 * event is not a JSON object: …"). Never throws.
 */
export function eventMessage(data: string): JSONRPCMessage | Error {
  let what = 'is not JSON';
  try {
    const m = parsePeerJson(data);
    if (isObject(m)) return m as JSONRPCMessage;
    what = Array.isArray(m)
      ? 'is a JSON array (a batch), no message: this revision has no batches'
      : 'is not a JSON object';
  } catch {}
  return new Error(`SSE event ${what}: ${data.slice(0, 80)}`);
}

/**
 * Why the body `text` (`body` parsed, else the text) of a reply `res` to request `id`, posted
 * as `what` ("POST tools/call"), is not the request's answer, in the words of both eras' clients: a 2xx reply that is not JSON (`notJson`: the parse error), not JSON-RPC
 * (`isRpc` false), or the response to another id; any other status "HTTP <status>".
 */
export function refusal(
  what: string,
  id: string | number,
  res: HttpReply,
  body: unknown,
  text: string,
  isRpc: boolean,
  notJson: Error | undefined,
): HttpStatusError {
  const contentType = res.header('content-type');
  if (!res.ok) return new HttpStatusError(res.status, body, what, contentType);
  if (notJson)
    return new HttpStatusError(
      res.status,
      text.slice(0, BODY_HEAD),
      `${what}: the ${contentType} body is not JSON (${notJson.message})`,
      contentType,
    );
  if (!isRpc)
    return new HttpStatusError(
      res.status,
      text.slice(0, BODY_HEAD),
      `${what}: the ${contentType} body is not JSON-RPC`,
      contentType,
    );
  const other = idText((body as { id?: unknown }).id);
  return new HttpStatusError(
    res.status,
    body,
    `${what}: the JSON reply holds no response to request id ${idText(id)} (it answers id ${other})`,
    contentType,
  );
}

/**
 * The error of request `what` (e.g. "POST tools/call") answered `status` (2xx) with an empty
 * body where its response was due: the server may have run it. Code -32000.
 */
export const emptyReply = (what: string, status: number): ConnectionClosedError =>
  new ConnectionClosedError(
    undefined,
    `Connection closed before the response (${what}: HTTP ${status}, empty body; the request may have run)`,
  );

/** Characters of a body that is not JSON-RPC that {@link bodyHead} keeps for the error (1 KiB of text at most). */
export const BODY_HEAD = 1024;

/**
 * The first {@link BODY_HEAD} characters of `res`'s body, decoded as UTF-8; the rest is dropped
 * unread, so an endless or huge body costs no more. '' when the body cannot be read. Never rejects.
 */
export function bodyHead(res: HttpReply): Promise<string> {
  return new Promise((resolve) => {
    const decoder = new TextDecoder();
    let text = '';
    readInto(res, {
      chunk(data) {
        text += typeof data === 'string' ? data : decoder.decode(data, { stream: true });
        return text.length < BODY_HEAD;
      },
      end: () => resolve(text.slice(0, BODY_HEAD)),
    });
  });
}

/** One request. */
export interface HttpRequestInit {
  method: 'GET' | 'POST' | 'DELETE';
  /** Request headers; the node:http path adds `Content-Length` to this object when there is a body. */
  headers: Record<string, string>;
  /** UTF-8 body text. */
  body?: string;
  /** Aborting it destroys the request, or the response body while it is still being read. */
  signal?: AbortSignal;
  /** Like `signal`, without an EventTarget per request (the POST hot path). */
  cancel?: Cancel;
  /**
   * The reply is a long-lived SSE stream (the GET stream): on node:http with the default agent
   * it gets a connection of its own outside the keep-alive pool, so that it never holds a
   * pooled socket (an agent given by the user serves streams too).
   */
  stream?: boolean;
}

/** The response of one request: status and headers; the body is read once, by one of the methods. */
export interface HttpReply {
  readonly status: number;
  /** Status in 200–299. */
  readonly ok: boolean;
  /** A response header by lower-case name (repeated ones joined with `, `). */
  header(name: string): string | undefined;
  /**
   * The whole body as UTF-8 text. Repeated calls return the same text.
   * @throws Error when the connection breaks before the body ended, or the request was aborted.
   */
  text(): Promise<string>;
  /**
   * The body as it arrives (strings or bytes, as the SSE parser takes them). Leaving the loop
   * early drops the rest. After {@link HttpReply.text} it yields that text once.
   * @throws Error when the connection breaks before the body ended.
   */
  chunks(): AsyncIterable<string | Uint8Array>;
  /**
   * Optional: the body handed to `sink` as it arrives, chunk by chunk from the I/O callbacks
   * (no async iterator, no promise per chunk: the node:http requester's hot path). A reply
   * without it is read through {@link HttpReply.chunks} (see `readInto` in this module). After
   * {@link HttpReply.text} the sink gets that text as one chunk.
   */
  read?(sink: BodySink): void;
  /**
   * Optional: {@link HttpReply.text} without a promise: the whole body to `taker.body`, or why
   * it could not be read (the same errors as text()) to `taker.broken`, from the I/O callbacks
   * (the node:http requester's hot path). Once, on a body not read yet.
   */
  readText?(taker: TextTaker): void;
  /** Drops the body without reading it (idempotent, never throws). */
  discard(): void;
}

/** Takes a response body as it arrives (`readInto` in this module). */
export interface BodySink {
  /**
   * One chunk (strings or bytes, as the SSE parser takes them). Returning false stops the
   * reading: the rest of the body is dropped. Must not throw.
   */
  chunk(data: string | Uint8Array): boolean;
  /**
   * Called once, last: `undefined` when the body ended or the sink stopped it, else why it
   * broke (the connection was lost, or the request was aborted: then the abort's error).
   */
  end(error: Error | undefined): void;
}

/** Takes a whole response body ({@link HttpReply.readText}). Neither method may throw. */
export interface TextTaker {
  /** The body as UTF-8 text. */
  body(text: string): void;
  /** The body broke (the connection was lost, or the request was aborted). */
  broken(error: Error): void;
}

/** Takes the outcome of one request ({@link Requester.send}). Neither method may throw. */
export interface ReplyTaker {
  /** The response arrived (status and headers; its body not read yet). */
  reply(res: HttpReply): void;
  /** The request failed: what the promise of the requester would reject with. */
  error(error: unknown): void;
}

/**
 * Reads `res`'s body into `sink`: through {@link HttpReply.read} when the reply has it, else by
 * iterating {@link HttpReply.chunks} (errors it throws end the sink).
 */
export function readInto(res: HttpReply, sink: BodySink): void {
  if (res.read) return res.read(sink);
  void (async () => {
    let error: Error | undefined;
    try {
      for await (const chunk of res.chunks()) if (!sink.chunk(chunk)) break;
    } catch (e) {
      error = e instanceof Error ? e : new Error(String(e));
    }
    sink.end(error);
  })();
}

/**
 * Cancels one request: a lighter AbortController (no EventTarget; one hook, set by the
 * requester). `cancel()` after the request settled only drops a body still being read.
 */
export class Cancel {
  /** Set once cancelled. */
  reason: Error | undefined;
  #hook: ((reason: Error) => void) | undefined;

  cancel(reason: Error = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.reason) return;
    this.reason = reason;
    const hook = this.#hook;
    this.#hook = undefined;
    hook?.(reason);
  }

  /** Sets the hook run on cancel (at once when already cancelled), replacing the one before. */
  onCancel(hook: (reason: Error) => void): void {
    if (this.reason) hook(this.reason);
    else this.#hook = hook;
  }

  /** Removes `hook` if it is the one set (a handle may serve several requests in turn). */
  off(hook: (reason: Error) => void): void {
    if (this.#hook === hook) this.#hook = undefined;
  }
}

/** Sends one request to a fixed URL. Rejects on network errors and aborts, never on HTTP statuses. */
export type Requester = (init: HttpRequestInit) => Promise<HttpReply>;

/**
 * A {@link Requester} that may also send a request with its outcome to `taker` instead of a
 * promise (never before `send` returns; the node:http requester's hot path).
 */
export type SendingRequester = Requester & { send?(init: HttpRequestInit, taker: ReplyTaker): void };

/**
 * A {@link Requester} over `fetch` (e.g. a custom one from the transport options).
 */
export function fetchRequester(url: URL, fetchFn: typeof globalThis.fetch): Requester {
  return async (init) => {
    let signal = init.signal;
    if (init.cancel) {
      const ac = new AbortController();
      init.cancel.onCancel((reason) => ac.abort(reason));
      signal = signal ? AbortSignal.any([signal, ac.signal]) : ac.signal;
    }
    const res = await fetchFn(url, { method: init.method, headers: init.headers, body: init.body, signal }).catch(
      named,
    );
    let text: Promise<string> | undefined;
    return {
      status: res.status,
      ok: res.ok,
      header: (name) => res.headers.get(name) ?? undefined,
      text: () => (text ??= res.text().catch(named)),
      async *chunks() {
        if (text) {
          yield await text;
          return;
        }
        if (!res.body) return;
        const reader = res.body.getReader();
        try {
          for (;;) {
            const { done, value } = await reader.read().catch(named);
            if (done) return;
            yield value;
          }
        } finally {
          reader.cancel().catch(() => undefined);
        }
      },
      discard: () => {
        if (!text && !res.bodyUsed) res.body?.cancel().catch(() => undefined);
      },
    };
  };
}

/**
 * Rethrows `e`, a fetch's failure, its message naming the network error under it as node:http's
 * does ("connect ECONNREFUSED 127.0.0.1:9", "UND_ERR_SOCKET: other side closed"), where fetch
 * says "fetch failed" or "terminated" (its `cause`, kept, holds the error).
 */
function named(e: unknown): never {
  // (fetch's own TypeError only: a subclass, e.g. oauthFetch's AuthFetchError, has its message)
  if (e instanceof TypeError && e.constructor === TypeError && e.cause instanceof Error) e.message = innermost(e);
  throw e;
}

/** The media type of a Content-Type value, lower-case, without parameters ('' when absent). */
export function mediaType(value: string | undefined): string {
  if (value === undefined) return '';
  const semi = value.indexOf(';');
  return (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase();
}

/** The error of aborted `signal`: its reason (set by the abort: a DOMException when none was given), as an Error. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException(String(reason), 'AbortError');
}

/** The body of an error reply: parsed JSON when it is JSON, else the text ('' when unreadable). */
export async function readBody(res: HttpReply): Promise<unknown> {
  const text = await res.text().catch(() => '');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Waits `ms`; false when `signal` aborted first. `unref`: the wait does not keep a Node process alive. */
export function sleep(ms: number, signal: AbortSignal, unref?: boolean): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    if (unref) (t as { unref?: () => void }).unref?.();
    const onAbort = (): void => {
      clearTimeout(t);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Header `name` (lower-case) of a message's raw headers (`IncomingMessage.rawHeaders`), found
 * without building the whole lower-case `headers` object; repeats joined with `, `, as
 * `res.headers` has them. Undefined when absent.
 */
export function rawHeader(raw: string[], name: string): string | undefined {
  let out: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const n = raw[i];
    if (n.length === name.length && (n === name || n.toLowerCase() === name))
      out = out === undefined ? raw[i + 1] : `${out}, ${raw[i + 1]}`;
  }
  return out;
}
