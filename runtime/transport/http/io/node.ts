// size: node:http adaptation of the handlers (request, body, response); 41 lines over
/**
 * `node:http` input and output of the stateless endpoint (../stateless/server.ts) and the dual-era
 * front (../../../stateless/dual-era.ts): the response sink written for it, and reading and parsing POST bodies;
 * for every node:http entry point, the one body reader ({@link readNodeBody}) and the one way a
 * whole response is written ({@link respondNode}), which delivers a refusal sent before the body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { exactIds } from '../../../jsonrpc/message.js';
import type { BodyFailure, ResponseSink } from './types.js';
import { refusalBody, refusalHeaders, type HttpRefusal } from './guard.js';
import { parsePeerJson } from '../../../codec/json-depth.js';
import { rawHeader } from './request.js';

/** The headers of a JSON answer; {@link NodeSink.respond} recognises this object and adds the length. */
export const JSON_HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json' };

/** The path of a request target (`req.url`, `/mcp?x=1` → `/mcp`; undefined → `/`), without a copy when it has no query. */
export function requestPath(url: string | undefined): string {
  if (url === undefined) return '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** Strict UTF-8, one decoder for every body (`decode()` without `stream` keeps no state): invalid bytes fail instead of becoming U+FFFD. */
export const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** An opened stream whose status, headers and first body text wait for the end of the tick. */
interface Held {
  status: number;
  headers: Record<string, string>;
  text: string;
}

function flushHeld(sink: NodeResponseSink): void {
  sink.flush();
  sink.afterFlush();
}

/**
 * The response side of a `node:http` exchange as a {@link ResponseSink}: a JSON answer goes out in
 * one write (header block and body together). Subclasses mark `gone` when the response closed
 * and decide who hears of it (`onClose`).
 */
export abstract class NodeResponseSink implements ResponseSink {
  /** The response closed (finished, or the connection was lost). */
  protected gone = false;
  /** Set by {@link open} until the end of the tick. */
  #held: Held | undefined;
  /** The `afterTick` of {@link open} and its argument, until called. */
  #afterTick: ((arg: unknown) => void) | undefined;
  #afterTickArg: unknown;
  constructor(protected readonly res: ServerResponse) {}
  respond(status: number, headers: Record<string, string>, body?: string): void {
    if (this.res.headersSent || this.#held || this.gone) return;
    respondNode(this.res, status, headers, body);
  }
  /**
   * Sends status and headers. They and what is written in the same tick (priming event, a
   * quick reply) leave together at the end of the tick, in one socket write (a stream also
   * ended within that tick: head, body and last chunk in that one write), else the body stays
   * open for later writes. The body is chunked either way: a `Content-Length` would cost a
   * UTF-8 length of the whole text and one more header, for the same bytes of the stream.
   */
  open<A>(status: number, headers: Record<string, string>, afterTick?: (arg: A) => void, arg?: A): void {
    if (this.res.headersSent || this.#held || this.gone) return;
    this.#held = { status, headers, text: '' };
    if (afterTick) {
      this.#afterTick = afterTick as (arg: unknown) => void;
      this.#afterTickArg = arg;
    }
    // (one deferred call for both: the flush, then the caller's `afterTick`)
    process.nextTick(flushHeld, this);
  }
  /** Calls the `afterTick` of {@link open} (once). */
  afterFlush(): void {
    const f = this.#afterTick;
    if (!f) return;
    const arg = this.#afterTickArg;
    this.#afterTick = this.#afterTickArg = undefined;
    f(arg);
  }
  /** Sends what {@link open} held (nothing when the stream already ended or the connection is gone). */
  flush(): void {
    const held = this.#held;
    if (!held) return;
    this.#held = undefined;
    if (this.gone || this.res.writableEnded) return;
    const res = this.res;
    res.cork();
    res.writeHead(held.status, held.headers);
    if (held.text === '') res.flushHeaders();
    else res.write(held.text);
    res.uncork();
  }
  write(text: string): boolean {
    if (this.gone || this.res.writableEnded) return false;
    if (this.#held) this.#held.text += text;
    else this.res.write(text);
    return true;
  }
  end(): void {
    const held = this.#held;
    if (held) {
      this.#held = undefined;
      if (this.gone || this.res.writableEnded) return;
      this.res.writeHead(held.status, held.headers).end(held.text);
      return;
    }
    if (!this.res.writableEnded) this.res.end();
  }
  get closed(): boolean {
    return this.gone || this.res.writableEnded;
  }
  get started(): boolean {
    return this.#held !== undefined || this.res.headersSent;
  }
  abstract onClose(listener: () => void): void;
}

const SINK = Symbol('sink');
type SinkTagged = ServerResponse & { [SINK]: NodeSink };
function onSinkClose(this: SinkTagged): void {
  this[SINK].closing();
}

/**
 * The sink of the stateless endpoint: no copy of the request headers, no AbortSignal, one
 * close listener (the transport's).
 */
export class NodeSink extends NodeResponseSink {
  #listener: (() => void) | undefined;
  constructor(res: ServerResponse) {
    super(res);
    // one listener function for every response (no closure per request): it finds its sink on the response
    (res as SinkTagged)[SINK] = this;
    res.on('close', onSinkClose);
  }
  /** The response closed (ServerResponse `close`: after `finish`, or when the connection was lost first). */
  closing(): void {
    if (this.gone) return;
    this.gone = true;
    const l = this.#listener;
    this.#listener = undefined;
    l?.();
  }
  /** One listener (the transport's), called when the connection closes or the response ended. */
  onClose(listener: () => void): void {
    if (this.gone) listener();
    else this.#listener = listener;
  }
}

/**
 * The headers of a `node:http` request as one record, lower-case names, repeated headers joined
 * with `, ` as the Fetch standard joins them: `req.headers` itself when it holds strings only
 * and repeats no `Authorization`, else a joined copy. (Node keeps the first of repeated
 * `Authorization` headers and drops the rest; joined, the token check sees them all and
 * refuses them, RFC 6750 §3.1 `invalid_request`.)
 */
export function requestHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const parsed = req.headers;
  // (one header: the same string as parsed, no copy; repeated: joined, unlike parsed)
  const authorization = parsed.authorization === undefined ? undefined : rawHeader(req.rawHeaders, 'authorization');
  const repeated = authorization !== parsed.authorization;
  if (parsed['set-cookie'] === undefined && !repeated) return parsed as Record<string, string | undefined>;
  const headers: Record<string, string | undefined> = {};
  for (const name in parsed) {
    const value = parsed[name];
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (repeated) headers.authorization = authorization;
  return headers;
}

/**
 * Where a front handler that already read and parsed a POST body (../../../stateless/dual-era.ts) leaves the
 * parsed message on the `IncomingMessage`, so that this endpoint does not decode and parse it
 * again. Only set for a body that was valid UTF-8 and JSON.
 */
export const PARSED_MESSAGE: unique symbol = Symbol('mcpgen.parsedMessage');
/** A node:http request that may carry its body already parsed (under {@link PARSED_MESSAGE}). */
export type WithParsed = IncomingMessage & { [PARSED_MESSAGE]?: unknown };

/**
 * Parses UTF-8 JSON bytes (invalid UTF-8 is refused, not replaced), integer ids beyond 2^53
 * exact (`exactIds` in ../../../jsonrpc/message.ts); `undefined` when either fails.
 */
export function parseJsonBody(body: Uint8Array): unknown {
  try {
    const text = UTF8.decode(body);
    const message: unknown = parsePeerJson(text);
    exactIds(message, text);
    return message;
  } catch {
    return undefined;
  }
}

/**
 * The whole body of a `node:http` request, at most `limit` bytes (else `'too-large'`, by its
 * Content-Length before any byte is read, or as soon as the bytes read go over), within
 * `timeoutMs` of this call (else `'timeout'`; 0 or undefined: no bound). A body a middleware
 * already read (`req.body`, e.g. express.json()) is taken as it is: bytes, text, or a parsed
 * value serialized again. On a refusal the reader lets go of the request; answer with
 * {@link respondNode}, which drains the rest.
 *
 * A body whose Content-Length bytes have all arrived (the usual POST, sent with its head in one
 * packet: node:http parses it right after the `'request'` event, before the microtasks queued
 * there run) is taken from the request's buffer in one read, with no listeners, timer or wait
 * for `'end'`.
 * @throws Error when the client went away before its body ended.
 */
export function readNodeBody(
  req: IncomingMessage,
  limit: number,
  timeoutMs?: number,
): Promise<Uint8Array | BodyFailure> {
  const length = req.headers['content-length'];
  const declared = length !== undefined && /^[0-9]+$/.test(length) ? Number(length) : undefined;
  if (declared !== undefined && declared > limit) return Promise.resolve('too-large');
  // (a body taken from the buffer counts as read, though the request's 'end' may be still to come)
  const ended = req.readableEnded || (req as ReadingRequest)[TAKEN] === true;
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (parsed !== undefined && ended) {
    const bytes =
      parsed instanceof Uint8Array ? parsed : Buffer.from(typeof parsed === 'string' ? parsed : JSON.stringify(parsed));
    return Promise.resolve(bytes.byteLength > limit ? 'too-large' : bytes);
  }
  if (ended) return Promise.resolve(new Uint8Array(0));
  // the head passed its checks: a client waiting on `Expect: 100-continue` may send the body now
  const waiting = (req as AwaitingContinue)[AWAITS_CONTINUE];
  if (waiting) {
    (req as AwaitingContinue)[AWAITS_CONTINUE] = undefined;
    if (!waiting.headersSent) waiting.writeContinue();
  }
  if (declared !== undefined && !waiting) {
    const taken = takeBuffered(req, declared);
    if (taken) return Promise.resolve(taken);
    // (called in the 'request' event, before the body's bytes were parsed: look again after them)
    if (!req.complete)
      return Promise.resolve().then(() => takeBuffered(req, declared) ?? listenBody(req, limit, timeoutMs));
  }
  return listenBody(req, limit, timeoutMs);
}

/** Marks a request whose whole body {@link takeBuffered} took (node's `complete` may follow later in the same read). */
const TAKEN = Symbol('taken');

/**
 * The body of `req` when all `declared` bytes of it are in its buffer and nothing else reads
 * it (no listener, not flowing, no text encoding set); undefined otherwise. The request is
 * then resumed, so that it ends (`'end'`, `'close'`) as a request read by listeners does.
 */
function takeBuffered(req: IncomingMessage, declared: number): Uint8Array | undefined {
  if (
    (req as ReadingRequest)[LISTENING] ||
    req.readableFlowing !== null ||
    req.readableEncoding !== null ||
    req.destroyed ||
    req.readableLength !== declared
  )
    return undefined;
  // (in byte mode a read without a size returns the whole buffer: the declared bytes)
  const chunk = declared === 0 ? null : (req.read() as Buffer);
  (req as ReadingRequest)[TAKEN] = true;
  req.resume();
  return chunk ?? new Uint8Array(0);
}

/** Reads the body of `req` by its `'data'` events (see {@link readNodeBody}). */
function listenBody(req: IncomingMessage, limit: number, timeoutMs?: number): Promise<Uint8Array | BodyFailure> {
  // a request destroyed before its end emits no more events: waiting on them would hang
  if (req.destroyed && !req.readableEnded)
    return Promise.reject(new Error('HTTP request aborted before its body ended'));
  return new Promise((resolve, reject) => {
    const read: BodyRead = { limit, size: 0, chunks: [], resolve, reject, timer: undefined };
    // (a body that came in with its head is all there: no timer for it)
    if (timeoutMs && !req.complete) read.timer = setTimeout(() => onBodyTimeout(req), timeoutMs);
    (req as ReadingRequest)[BODY] = read;
    if ((req as ReadingRequest)[LISTENING]) return;
    (req as ReadingRequest)[LISTENING] = true;
    req.on('data', onBodyData);
    req.on('end', onBodyEnd);
    req.on('error', onBodyError);
    req.on('close', onBodyClose);
  });
}

const AWAITS_CONTINUE = Symbol('awaitsContinue');
type AwaitingContinue = IncomingMessage & { [AWAITS_CONTINUE]?: ServerResponse };

/**
 * A `checkContinue` listener for a node:http server (`server.on('checkContinue',
 * continueAfterChecks(handler))`): a request sent with `Expect: 100-continue` goes to `handler`
 * without the automatic `100 Continue`, which is sent only when the body is read, after the
 * head checks passed. A refused request is refused before the client sent any body (node:http
 * otherwise answers 100 at once, and the client starts sending what will be refused).
 */
export function continueAfterChecks(
  handler: (req: IncomingMessage, res: ServerResponse) => unknown,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    (req as AwaitingContinue)[AWAITS_CONTINUE] = res;
    void handler(req, res);
  };
}

/** One body read in progress, kept on the request (no closures per request). */
interface BodyRead {
  limit: number;
  size: number;
  chunks: Buffer[];
  resolve(b: Uint8Array | BodyFailure): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout | undefined;
}
const BODY = Symbol('body');
/** The body listeners are on the request (once per request, whatever the number of reads). */
const LISTENING = Symbol('listening');
type ReadingRequest = IncomingMessage & { [BODY]?: BodyRead; [LISTENING]?: boolean; [TAKEN]?: boolean };

/**
 * Ends the read of `req` (once): its timer goes. The four listeners stay (module functions, no
 * closures: they do nothing once the read is settled, and the request is dropped with its
 * response); taking them off cost more than the rest of the read.
 */
function settleBody(req: ReadingRequest): BodyRead | undefined {
  const read = req[BODY];
  if (!read) return undefined;
  req[BODY] = undefined;
  if (read.timer) clearTimeout(read.timer);
  return read;
}
function onBodyData(this: ReadingRequest, chunk: Buffer): void {
  const read = this[BODY];
  if (!read) return;
  read.size += chunk.byteLength;
  if (read.size <= read.limit) read.chunks.push(chunk);
  else settleBody(this)!.resolve('too-large');
}
function onBodyEnd(this: ReadingRequest): void {
  const read = settleBody(this);
  read?.resolve(read.chunks.length === 1 ? read.chunks[0] : Buffer.concat(read.chunks, read.size));
}
function onBodyError(this: ReadingRequest, error: Error): void {
  settleBody(this)?.reject(error);
}
function onBodyClose(this: ReadingRequest): void {
  settleBody(this)?.reject(new Error('HTTP request aborted before its body ended'));
}
function onBodyTimeout(req: ReadingRequest): void {
  settleBody(req)?.resolve('timeout');
}

/**
 * Bounds of the drain after an early response: the body bytes read and dropped, and the time
 * given to the client to read the response, before the connection is ended regardless.
 */
export const EARLY_RESPONSE_DRAIN: Readonly<{ bytes: number; ms: number }> = { bytes: 16 * 1024 * 1024, ms: 5_000 };

/**
 * Writes one whole response on `res` (with Content-Length). When the request's body has not
 * all arrived (a refusal before the body, or during it), the response says `Connection:
 * close` and the connection ends only once the client could read it: the rest of the body is
 * read and dropped until it ends, at most {@link EARLY_RESPONSE_DRAIN} bytes and ms. (Closing
 * while the client still sends makes the kernel answer its data with a reset, and the client
 * then loses the response: its write fails with EPIPE or ECONNRESET first.)
 */
export function respondNode(res: ServerResponse, status: number, headers: Record<string, string>, body?: string): void {
  const req = res.req as IncomingMessage | undefined;
  // (a body taken whole from the buffer has all arrived, though node may mark it complete only later)
  const early = req !== undefined && !req.complete && !(req as ReadingRequest)[TAKEN];
  if (!early && body === undefined) {
    // (an empty body said by its length, not as an empty chunked one)
    res.writeHead(status, status === 204 || status === 304 ? headers : { ...headers, 'Content-Length': '0' }).end();
    return;
  }
  const text = body ?? '';
  const h: Record<string, string | number> =
    headers === JSON_HEADERS ? { 'Content-Type': 'application/json' } : { ...headers };
  if (status !== 204 && status !== 304) h['Content-Length'] = Buffer.byteLength(text);
  if (!early) {
    res.writeHead(status, h).end(text);
    return;
  }
  h.Connection = 'close';
  res.shouldKeepAlive = false;
  if (req.socket) (req.socket as ClosingSocket)[CLOSING] = true;
  res.writeHead(status, h);
  res.write(text);
  drainThenEnd(req, res);
}

const CLOSING = Symbol('closing');
type ClosingSocket = NonNullable<IncomingMessage['socket']> & { [CLOSING]?: boolean };

/**
 * Whether `req` came after a response that said `Connection: close` on its connection (an
 * answer {@link respondNode} sent before the body was in). Such a request, pipelined behind the
 * closing one, must not be processed (RFC 9112 §9.6): every node:http entry point leaves it
 * unanswered, and the connection ends once that response is out.
 */
export function afterClosingResponse(req: IncomingMessage): boolean {
  return (req.socket as ClosingSocket | null)?.[CLOSING] === true;
}

/** Writes `refusal` as a JSON-RPC error response through {@link respondNode}. */
export function refuseNode(res: ServerResponse, refusal: HttpRefusal, extra?: Record<string, string>): void {
  if (res.headersSent) return void (res.writableEnded || res.end());
  respondNode(res, refusal.status, refusalHeaders(refusal, extra), refusalBody(refusal));
}

/** Reads and drops the rest of `req`'s body, then ends `res` (see {@link respondNode}). */
function drainThenEnd(req: IncomingMessage, res: ServerResponse): void {
  let left = EARLY_RESPONSE_DRAIN.bytes;
  const stop = (): void => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', stop);
    req.off('close', stop);
    if (!res.writableEnded) res.end();
  };
  const onData = (chunk: Buffer): void => {
    left -= chunk.byteLength;
    if (left < 0) stop();
  };
  const timer = setTimeout(stop, EARLY_RESPONSE_DRAIN.ms);
  timer.unref?.();
  req.on('data', onData);
  req.once('end', stop);
  req.once('close', stop);
  req.resume();
}

/**
 * What node:http could not parse, by its error code: the status and what to say, which begins
 * with the status's reason phrase (`<reason>: <detail>`, the status line's reason).
 */
function clientErrorAnswer(code: string | undefined): [number, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, "Request Header Fields Too Large: the request head is over the server's limit"];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [413, "Payload Too Large: chunk extensions over the server's limit"];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request Timeout: the request did not arrive in time'];
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return [
        400,
        'Bad Request: Content-Length is not a length this server reads (a decimal integer, one value, not beside Transfer-Encoding)',
      ];
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return [
        400,
        'Bad Request: Transfer-Encoding is not one this server reads (chunked, last, with no Content-Length beside it)',
      ];
    case 'HPE_INVALID_CHUNK_SIZE':
      return [400, 'Bad Request: the chunked body is malformed'];
    default:
      return [400, `Bad Request: the request is not HTTP/1.1 this server can parse${code ? ` (${code})` : ''}`];
  }
}

/**
 * A `clientError` listener for a node:http server (`server.on('clientError', answerClientError)`):
 * a request node:http cannot parse (a `Content-Length` that is negative, not a number, or past
 * 2^64, a malformed header line or chunk, a head over `maxHeaderSize`, a head that did not arrive
 * within `requestTimeout`) is answered as node:http does by default (400; 431 for a head too
 * large, 413 for chunk extensions, 408 for a timeout; `Connection: close`, then the connection is
 * closed), but with a JSON-RPC error body (`-32600`, no `id`) saying what was wrong instead of
 * none. Nothing is written when a response already began on that connection, or it is no longer
 * writable (a reset: `ECONNRESET`); the connection is then only closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
    const [status, message] = clientErrorAnswer(error.code);
    const body = refusalBody({ status, code: ErrorCode.InvalidRequest, message });
    // (not node:http's STATUS_CODES: a value import of node:http would break the web bundles
    // this module is part of; each message begins with its status's reason phrase)
    const reason = message.slice(0, message.indexOf(':'));
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
