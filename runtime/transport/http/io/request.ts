/**
 * The HTTP requests of the Streamable HTTP client transports (../session/client.ts,
 * ../stateless/client.ts): one small interface, {@link HttpReply}, over either `node:http` /
 * `node:https` with a keep-alive Agent (the default: the hot path, no WHATWG streams between
 * the socket and the JSON or SSE parser) or a user-supplied `fetch` (used as given, e.g. for
 * auth wrappers, proxies or tests).
 */
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** The server answered with an HTTP error status (other than a session-expiry 404). */
export class HttpStatusError extends Error {
  readonly status: number;
  /** The response body: parsed JSON when it was JSON, else the text. */
  readonly body: unknown;
  constructor(status: number, body: unknown, what: string) {
    const detail = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
    super(`${what}: HTTP ${status}${typeof detail === 'string' ? ` (${detail})` : ''}`);
    this.name = 'HttpStatusError';
    this.status = status;
    this.body = body;
  }
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
  /** Drops the body without reading it (idempotent, never throws). */
  discard(): void;
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
 * Sockets per origin of the default keep-alive agents. Requests past it wait for a free
 * socket; long-lived GET streams are not counted (see {@link HttpRequestInit.stream}).
 */
export const DEFAULT_MAX_SOCKETS = 256;
let sharedHttp: HttpAgent | undefined;
let sharedHttps: HttpsAgent | undefined;

/** The process-wide keep-alive agent for `protocol` (`http:` or `https:`). */
export function defaultAgent(protocol: string): HttpAgent {
  if (protocol === 'https:') return (sharedHttps ??= new HttpsAgent({ keepAlive: true, maxSockets: DEFAULT_MAX_SOCKETS }));
  return (sharedHttp ??= new HttpAgent({ keepAlive: true, maxSockets: DEFAULT_MAX_SOCKETS }));
}

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
    const res = await fetchFn(url, { method: init.method, headers: init.headers, body: init.body, signal });
    let text: Promise<string> | undefined;
    return {
      status: res.status,
      ok: res.ok,
      header: (name) => res.headers.get(name) ?? undefined,
      text: () => (text ??= res.text()),
      async *chunks() {
        if (text) {
          yield await text;
          return;
        }
        if (!res.body) return;
        const reader = res.body.getReader();
        try {
          for (;;) {
            const { done, value } = await reader.read();
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
 * A {@link Requester} over `node:http` / `node:https` (by the URL's scheme) with `agent`
 * (default {@link defaultAgent}). URL credentials are not sent; use an `Authorization` header.
 * @throws TypeError for a scheme other than http: or https:.
 */
export function nodeRequester(url: URL, agent?: HttpAgent): Requester {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`unsupported URL scheme ${url.protocol} (http: or https: only)`);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const pool = agent ?? defaultAgent(url.protocol);
  const base = {
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port,
    path: url.pathname + url.search,
  };
  return (init) =>
    new Promise<HttpReply>((resolve, reject) => {
      const { signal, cancel } = init;
      if (signal?.aborted) return reject(abortError(signal));
      if (cancel?.reason) return reject(cancel.reason);
      const headers = init.headers;
      if (init.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(init.body));
      const req = send({ ...base, method: init.method, headers, agent: init.stream && !agent ? false : pool }) as CallRequest;
      req[CALL] = { resolve, reject, signal, cancel, reply: undefined };
      req.on('response', onCallResponse);
      req.on('error', onCallError);
      if (signal || cancel) {
        req.on('close', onCallClose);
        const call = req[CALL];
        if (signal) signal.addEventListener('abort', (call.onAbort = () => req.destroy(abortError(signal))), { once: true });
        if (cancel) cancel.onCancel((call.onCancel = (reason) => req.destroy(reason)));
      }
      req.end(init.body);
    });
}

const CALL = Symbol('call');
/** The state of one node:http request, kept on the request (no closures per request). */
interface Call {
  resolve(reply: HttpReply): void;
  reject(error: Error): void;
  signal: AbortSignal | undefined;
  cancel: Cancel | undefined;
  onAbort?: () => void;
  onCancel?: (reason: Error) => void;
  reply: NodeReply | undefined;
}
type CallRequest = ClientRequest & { [CALL]: Call };

function onCallResponse(this: CallRequest, res: IncomingMessage): void {
  const call = this[CALL];
  res.setEncoding('utf8');
  call.resolve((call.reply = new NodeReply(res, this)));
}
function onCallError(this: CallRequest, error: Error): void {
  const call = this[CALL];
  if (!call.reply) call.reject(error);
}
function onCallClose(this: CallRequest): void {
  const call = this[CALL];
  if (call.onAbort) call.signal!.removeEventListener('abort', call.onAbort);
  if (call.onCancel) call.cancel!.off(call.onCancel);
}

/** The media type of a Content-Type value, lower-case, without parameters ('' when absent). */
export function mediaType(value: string | undefined): string {
  if (value === undefined) return '';
  const semi = value.indexOf(';');
  return (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase();
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException(reason === undefined ? 'This operation was aborted' : String(reason), 'AbortError');
}

/** Why a node:http response body did not end normally. */
function broken(req: ClientRequest): Error {
  return new Error(`HTTP response body ended early (connection ${req.destroyed ? 'closed' : 'lost'})`);
}

const REPLY = Symbol('reply');
type ReplyMessage = IncomingMessage & { [REPLY]: NodeReply };
function onReplyData(this: ReplyMessage, text: string): void {
  this[REPLY].body += text;
}
function onReplyEnd(this: ReplyMessage): void {
  this[REPLY].settle(undefined);
}
function onReplyError(this: ReplyMessage, error: Error): void {
  this[REPLY].settle(error);
}
function onReplyClose(this: ReplyMessage): void {
  if (!this.complete) this[REPLY].settle(broken(this[REPLY].req));
}

class NodeReply implements HttpReply {
  readonly status: number;
  readonly ok: boolean;
  /** Text read so far by text(). */
  body = '';
  #text: Promise<string> | undefined;
  #settle: { resolve(text: string): void; reject(e: Error): void } | undefined;
  #used = false;

  constructor(
    private readonly res: IncomingMessage,
    readonly req: ClientRequest,
  ) {
    this.status = res.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status < 300;
  }

  header(name: string): string | undefined {
    // rawHeaders: found without building the whole lower-case `headers` object
    const raw = this.res.rawHeaders;
    let out: string | undefined;
    for (let i = 0; i < raw.length; i += 2) {
      const n = raw[i];
      if (n.length === name.length && (n === name || n.toLowerCase() === name)) out = out === undefined ? raw[i + 1] : `${out}, ${raw[i + 1]}`;
    }
    return out;
  }

  text(): Promise<string> {
    if (this.#text) return this.#text;
    this.#used = true;
    const res = this.res as ReplyMessage;
    return (this.#text = new Promise((resolve, reject) => {
      this.#settle = { resolve, reject };
      res[REPLY] = this;
      res.on('data', onReplyData);
      res.on('end', onReplyEnd);
      res.on('error', onReplyError);
      res.on('close', onReplyClose);
    }));
  }

  /** Ends text(): with the body, or `error`. */
  settle(error: Error | undefined): void {
    const s = this.#settle;
    this.#settle = undefined;
    if (!s) return;
    if (error) s.reject(error);
    else s.resolve(this.body);
  }

  async *chunks(): AsyncIterable<string> {
    if (this.#text) {
      yield await this.#text;
      return;
    }
    this.#used = true;
    const res = this.res;
    try {
      for await (const chunk of res) yield chunk as string;
    } catch (e) {
      throw this.req.destroyed && e instanceof Error && e.name === 'AbortError' ? e : broken(this.req);
    } finally {
      if (!res.complete) this.req.destroy();
    }
    if (!res.complete) throw broken(this.req);
  }

  discard(): void {
    if (this.#used) return;
    this.#used = true;
    // a short body is drained so the socket returns to the pool; a stream is cut
    if (this.res.complete || mediaType(this.header('content-type')) !== 'text/event-stream') this.res.resume();
    else this.req.destroy();
  }
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

/** Waits `ms`; false when `signal` aborted first. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(t);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
