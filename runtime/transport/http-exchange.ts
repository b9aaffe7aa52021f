/**
 * One HTTP exchange as the Streamable HTTP server sees it, over either `node:http`
 * (`IncomingMessage` / `ServerResponse`) or WHATWG `Request` / `Response`. The server logic is
 * written once against {@link Exchange}; the two adapters below do the I/O.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Response headers, by canonical name. */
export type HeaderMap = Record<string, string>;

/** The response side of an exchange: either one whole response, or an open stream. */
export interface ResponseSink {
  /** Sends a complete response (`body` UTF-8 text, or none). Ignored once anything was sent. */
  respond(status: number, headers: HeaderMap, body?: string): void;
  /** Sends status and headers and keeps the body open for {@link ResponseSink.write}. */
  open(status: number, headers: HeaderMap): void;
  /** Writes body text to an open stream; false when the connection is gone. */
  write(text: string): boolean;
  /** Ends the body. Idempotent. */
  end(): void;
  /** True once the connection closed or the body ended. */
  readonly closed: boolean;
  /** True once status and headers went out. */
  readonly started: boolean;
  /** Calls `listener` once when the connection closes (or the body ends). */
  onClose(listener: () => void): void;
}

/** The request side of an exchange. */
export interface Exchange {
  method: string;
  /** Request headers, lower-case names; repeated headers joined with `, `. */
  headers: Record<string, string | undefined>;
  /** The local port the request arrived on, when known (for Host validation). */
  localPort?: number;
  /** Aborted when the connection closes before the response completed. */
  signal: AbortSignal;
  /**
   * Reads the whole body, at most `limit` bytes.
   * @returns the bytes, or `'too-large'` when the body (or its Content-Length) exceeds `limit`.
   */
  readBody(limit: number): Promise<Uint8Array | 'too-large'>;
  sink: ResponseSink;
}

const encoder = new TextEncoder();

function tooLargeByHeader(length: string | undefined, limit: number): boolean {
  return length !== undefined && /^[0-9]+$/.test(length) && Number(length) > limit;
}

/** Adapts a `node:http` request/response pair. */
export function nodeExchange(req: IncomingMessage, res: ServerResponse): Exchange {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const aborter = new AbortController();
  const listeners: Array<() => void> = [];
  let closed = false;
  const fireClose = (): void => {
    if (closed) return;
    closed = true;
    for (const l of listeners.splice(0)) l();
  };
  res.on('close', () => {
    if (!res.writableFinished) aborter.abort(new Error('HTTP connection closed'));
    fireClose();
  });
  res.on('finish', fireClose);
  const sink: ResponseSink = {
    respond(status, h, body) {
      if (res.headersSent || closed) return;
      const bytes = body === undefined ? undefined : encoder.encode(body);
      if (bytes) h = { ...h, 'Content-Length': String(bytes.byteLength) };
      res.writeHead(status, h);
      res.end(bytes);
    },
    open(status, h) {
      if (res.headersSent || closed) return;
      res.writeHead(status, h);
      res.flushHeaders();
    },
    write(text) {
      if (closed || res.writableEnded) return false;
      res.write(text);
      return true;
    },
    end() {
      if (!res.writableEnded) res.end();
    },
    get closed() {
      return closed || res.writableEnded;
    },
    get started() {
      return res.headersSent;
    },
    onClose(listener) {
      if (closed) listener();
      else listeners.push(listener);
    },
  };
  return {
    method: req.method ?? 'GET',
    headers,
    localPort: req.socket?.localPort,
    signal: aborter.signal,
    async readBody(limit) {
      if (tooLargeByHeader(headers['content-length'], limit)) {
        res.shouldKeepAlive = false;
        return 'too-large';
      }
      // A body-parsing middleware (e.g. express.json()) already consumed the stream.
      const parsed = (req as IncomingMessage & { body?: unknown }).body;
      if (parsed !== undefined && req.readableEnded) {
        const bytes =
          parsed instanceof Uint8Array ? parsed : encoder.encode(typeof parsed === 'string' ? parsed : JSON.stringify(parsed));
        return bytes.byteLength > limit ? 'too-large' : bytes;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req as AsyncIterable<Buffer>) {
        size += chunk.byteLength;
        if (size > limit) {
          res.shouldKeepAlive = false;
          return 'too-large';
        }
        chunks.push(chunk);
      }
      return Buffer.concat(chunks);
    },
    sink,
  };
}

/**
 * Adapts a WHATWG `Request`. `response` settles with the `Response` once the server logic
 * responded or opened a stream; a streamed body ends when the sink ends or the reader cancels.
 */
export function fetchExchange(request: Request): { exchange: Exchange; response: Promise<Response> } {
  const headers: Record<string, string | undefined> = {};
  request.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  let url: URL | undefined;
  try {
    url = new URL(request.url);
  } catch {
    url = undefined;
  }
  if (headers.host === undefined && url) headers.host = url.host;
  const port = url ? Number(url.port || (url.protocol === 'https:' ? 443 : 80)) : undefined;
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
    open(status, h) {
      if (started || closed) return;
      started = true;
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
    localPort: port,
    signal: aborter.signal,
    async readBody(limit) {
      if (tooLargeByHeader(headers['content-length'], limit)) return 'too-large';
      if (!request.body) return new Uint8Array(0);
      const reader = request.body.getReader();
      const chunks: Uint8Array[] = [];
      let size = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limit) {
          await reader.cancel().catch(() => undefined);
          return 'too-large';
        }
        chunks.push(value);
      }
      const out = new Uint8Array(size);
      let at = 0;
      for (const c of chunks) {
        out.set(c, at);
        at += c.byteLength;
      }
      return out;
    },
    sink,
  };
  return { exchange, response };
}
