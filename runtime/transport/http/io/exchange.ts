/**
 * One HTTP exchange as the Streamable HTTP server sees it, over either `node:http`
 * (`IncomingMessage` / `ServerResponse`) or WHATWG `Request` / `Response`. The server logic is
 * written once against {@link Exchange}; the two adapters below do the I/O.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeResponseSink, readNodeBody, requestHeaders } from './node.js';
import { headOfRequest } from './cors.js';
import {
  AUTHORIZED,
  authorizedBy,
  type Authorized,
  type BodyFailure,
  type Exchange,
  type HeaderMap,
  type ResponseSink,
  type WithAuthorized,
} from './types.js';

export type { Authorized, BodyFailure, Exchange, HeaderMap, ResponseSink, WithAuthorized };
export { AUTHORIZED, authorizedBy };

const encoder = new TextEncoder();

/** Calls `f(a)` once the current tick's work is done (no closure per call): `process.nextTick` where there is one (Node, Bun, Deno), else a 0 ms timer. */
const afterTick: <A>(f: (a: A) => void, a: A) => void =
  typeof (globalThis as { process?: { nextTick?: unknown } }).process?.nextTick === 'function'
    ? (f, a) => process.nextTick(f, a)
    : (f, a) => void setTimeout(f, 0, a);

/** Adapts a `node:http` request/response pair. */
export function nodeExchange(req: IncomingMessage, res: ServerResponse): Exchange {
  return new NodeExchange(req, res);
}

const EXCHANGE = Symbol('exchange');
type Tagged = ServerResponse & { [EXCHANGE]: NodeExchange };
function onResponseClose(this: Tagged): void {
  this[EXCHANGE].closing();
}

/**
 * The node:http {@link Exchange}, which is its own {@link ResponseSink}. Per request it keeps one
 * `close` listener; the abort signal is made only when asked for.
 */
class NodeExchange extends NodeResponseSink implements Exchange {
  readonly method: string;
  readonly headers: Record<string, string | undefined>;
  readonly localPort: number | undefined;
  #aborter: AbortController | undefined;
  /** The first close listener (a stream has one), then any more. */
  #listener: (() => void) | undefined;
  #listeners: Array<() => void> | undefined;

  constructor(
    private readonly req: IncomingMessage,
    res: ServerResponse,
  ) {
    super(res);
    this.method = req.method ?? 'GET';
    this.headers = requestHeaders(req);
    this.localPort = req.socket?.localPort;
    (res as Tagged)[EXCHANGE] = this;
    // ServerResponse emits `close` after `finish` too, and when the connection is lost first
    res.on('close', onResponseClose);
  }

  get sink(): ResponseSink {
    return this;
  }

  get authorized(): Authorized | undefined {
    return (this.req as WithAuthorized)[AUTHORIZED];
  }

  get url(): string | undefined {
    return this.req.url;
  }

  get signal(): AbortSignal {
    if (!this.#aborter) {
      this.#aborter = new AbortController();
      // (closed before the response was complete: the abort closing() would have made)
      if (this.gone && !this.res.writableFinished) this.#aborter.abort(new Error('HTTP connection closed'));
    }
    return this.#aborter.signal;
  }

  /** The response closed: aborts the signal unless the response was complete, calls the listeners. */
  closing(): void {
    if (!this.res.writableFinished) this.#aborter?.abort(new Error('HTTP connection closed'));
    if (this.gone) return;
    this.gone = true;
    const first = this.#listener;
    const more = this.#listeners;
    this.#listener = this.#listeners = undefined;
    first?.();
    if (more) for (const l of more) l();
  }

  onClose(listener: () => void): void {
    if (this.gone) listener();
    else if (this.#listener === undefined) this.#listener = listener;
    else (this.#listeners ??= []).push(listener);
  }

  readBody(limit: number, timeoutMs?: number): Promise<Uint8Array | BodyFailure> {
    return readNodeBody(this.req, limit, timeoutMs);
  }
}

/**
 * Adapts a WHATWG `Request`. `response` settles with the `Response` once the server logic
 * responded or opened a stream; a streamed body ends when the sink ends or the reader cancels.
 */
export function fetchExchange(request: Request): { exchange: Exchange; response: Promise<Response> } {
  const { headers, localPort } = headOfRequest(request);
  const aborter = new AbortController();
  const listeners: Array<() => void> = [];
  let closed = false;
  let started = false;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let resolve!: (r: Response) => void;
  const response = new Promise<Response>((r) => (resolve = r));
  const fireClose = (): void => {
    if (closed) return;
    closed = true;
    for (const l of listeners.splice(0)) l();
  };
  const lost = (): void => {
    if (!closed) aborter.abort(new Error('HTTP connection closed'));
    fireClose();
  };
  request.signal?.addEventListener('abort', lost, { once: true });
  const sink: ResponseSink = {
    respond(status, h, body) {
      if (started || closed) return;
      started = true;
      resolve(new Response(status === 204 || status === 202 ? null : (body ?? null), { status, headers: h }));
      fireClose();
    },
    open(status, h, then, arg) {
      if (started || closed) return;
      started = true;
      if (then) afterTick(then, arg as Parameters<typeof then>[0]);
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          controller = c;
        },
        cancel: lost,
      });
      resolve(new Response(body, { status, headers: h }));
    },
    write(text) {
      if (closed || !controller) return false;
      try {
        controller.enqueue(encoder.encode(text));
        return true;
      } catch {
        lost();
        return false;
      }
    },
    end() {
      if (controller && !closed) {
        try {
          controller.close();
        } catch {
          /* already closed by the reader */
        }
      }
      fireClose();
    },
    get closed() {
      return closed;
    },
    get started() {
      return started;
    },
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
  };
  const exchange: Exchange = {
    method: request.method,
    headers,
    authorized: (request as WithAuthorized)[AUTHORIZED],
    url: request.url,
    localPort,
    signal: aborter.signal,
    readBody: (limit, timeoutMs) => readRequestBody(request, limit, timeoutMs),
    sink,
  };
  return { exchange, response };
}

/**
 * The whole body of a WHATWG `Request`, at most `limit` bytes (else `'too-large'`, by its
 * Content-Length before reading), within `timeoutMs` (else `'timeout'`; 0 or undefined: no
 * bound). A refused body is cancelled.
 */
export async function readRequestBody(
  request: Request,
  limit: number,
  timeoutMs?: number,
): Promise<Uint8Array | BodyFailure> {
  const length = request.headers.get('content-length');
  if (length !== null && /^[0-9]+$/.test(length) && Number(length) > limit) return 'too-large';
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = timeoutMs ? new Promise<'timeout'>((r) => (timer = setTimeout(r, timeoutMs, 'timeout'))) : undefined;
  try {
    for (;;) {
      const next = late ? await Promise.race([reader.read(), late]) : await reader.read();
      if (next === 'timeout') {
        await reader.cancel().catch(() => undefined);
        return 'timeout';
      }
      if (next.done) break;
      size += next.value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        return 'too-large';
      }
      chunks.push(next.value);
    }
  } finally {
    clearTimeout(timer);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
