/**
 * The `node:http` / `node:https` {@link Requester} of the Streamable HTTP client transports on
 * Node (../session/node-client.ts, ../stateless/node-client.ts): a keep-alive Agent, no WHATWG
 * streams between the socket and the JSON or SSE parser (the hot path).
 *
 * Each request is written once: a request that failed after it may have been written (a reset,
 * a hang-up, on a fresh or a reused socket alike) is the caller's error, never sent again here,
 * since the server may have read and run it (a proxy's reset, a process that crashed). Whether a
 * failure came before any byte was written, and what may be retried, is ./delivery.ts's to say.
 * The default agents (./node-agent.ts) close an idle socket before the server would, so that a
 * request rarely meets a socket the server is closing as idle.
 */
import { type Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { defaultAgent } from './node-agent.js';
import { rawHeader } from './request.js';
import {
  abortError,
  mediaType,
  type BodySink,
  type Cancel,
  type HttpReply,
  type HttpRequestInit,
  type ReplyTaker,
  type SendingRequester,
  type TextTaker,
} from './request.js';

export { DEFAULT_MAX_SOCKETS, defaultAgent, KEEP_ALIVE_IDLE_MS } from './node-agent.js';

/**
 * A {@link Requester} over `node:http` / `node:https` (by the URL's scheme) with `agent`
 * (default {@link defaultAgent}). URL credentials are not sent; use an `Authorization` header.
 * @throws TypeError for a scheme other than http: or https:.
 */
export function nodeRequester(url: URL, agent?: HttpAgent): SendingRequester {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`unsupported URL scheme ${url.protocol} (http: or https: only)`);
  const send: typeof httpRequest = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const pool = agent ?? defaultAgent(url.protocol);
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port;
  const path = url.pathname + url.search;
  const start = (init: HttpRequestInit, taker: ReplyTaker): void => {
    const { signal, cancel } = init;
    if (signal?.aborted) throw abortError(signal);
    if (cancel?.reason) throw cancel.reason;
    const headers = init.headers;
    if (init.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(init.body));
    // the options spelt out: an object spread of fixed ones here cost more than the rest of this function.
    // No `protocol`: `send` is the scheme's own request function, which takes its scheme from
    // there and refuses an agent of the other one all the same (ERR_INVALID_PROTOCOL); one more
    // member cost node:http's agent ~0.7 kB of copying per request.
    const options = {
      hostname,
      port,
      path,
      method: init.method,
      headers,
      agent: init.stream && !agent ? false : pool,
    };
    sendCall({ taker, signal, cancel, reply: undefined }, send(options) as CallRequest, init.body, init.stream);
  };
  const requester: SendingRequester = (init) =>
    new Promise<HttpReply>((resolve, reject) => start(init, { reply: resolve, error: reject }));
  requester.send = (init, taker) => {
    try {
      start(init, taker);
    } catch (e) {
      // (as the promise form: the outcome comes after send returned)
      queueMicrotask(() => taker.error(e));
    }
  };
  return requester;
}

/**
 * Sends `req` with `body` (once: see the module docs), `call` its state. A long-lived `stream`
 * (the standalone GET) keeps no process alive, from its socket on, its response head come or
 * not: nothing awaits it (a caller of `standaloneOpened()` is kept alive by that wait,
 * ../session/fetch-client.ts).
 */
function sendCall(call: Call, req: CallRequest, body: string | undefined, stream: boolean | undefined): void {
  if (stream) req.on('socket', unrefSocket);
  req[CALL] = call;
  req.on('response', onCallResponse);
  req.on('error', onCallError);
  const { signal, cancel } = call;
  if (signal || cancel) {
    req.on('close', onCallClose);
    if (signal) signal.addEventListener('abort', (call.onAbort = aborter(req, signal)), { once: true });
    if (cancel) cancel.onCancel((call.onCancel = destroyer(req)));
  }
  req.end(body);
}

// The hooks close over the request alone, made outside the promise executor: a hook made in it
// holds the executor's whole scope (resolve, reject, init, headers), and with it the objects of
// every POST survived scavenges into the old generation under load (the heap grew ~2.5 MB per
// scavenge until the next mark-compact; GC took a fifth of the client's CPU).
const destroyer =
  (req: ClientRequest) =>
  (reason: Error): void =>
    void req.destroy(reason);
const aborter = (req: ClientRequest, signal: AbortSignal) => (): void => void req.destroy(abortError(signal));

const unrefSocket = (socket: { unref(): unknown }): void => void socket.unref();

const CALL = Symbol('call');
/** The state of one node:http request, kept on the request (no closures per request). */
interface Call {
  taker: ReplyTaker;
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
  call.taker.reply((call.reply = new NodeReply(res, this)));
}
function onCallError(this: CallRequest, error: Error): void {
  const call = this[CALL];
  if (call.reply) return;
  call.taker.error(error);
}
function onCallClose(this: CallRequest): void {
  const call = this[CALL];
  if (call.onAbort) call.signal!.removeEventListener('abort', call.onAbort);
  if (call.onCancel) call.cancel!.off(call.onCancel);
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

function onSinkData(this: ReplyMessage, text: string): void {
  this[REPLY].sinkData(text);
}
function onSinkEnd(this: ReplyMessage): void {
  const reply = this[REPLY];
  reply.sinkEnd(this.complete ? undefined : broken(reply.req));
}
function onSinkError(this: ReplyMessage, error: Error): void {
  const reply = this[REPLY];
  if (!this.complete) reply.req.destroy();
  reply.sinkEnd(reply.req.destroyed && error.name === 'AbortError' ? error : broken(reply.req));
}
function onSinkClose(this: ReplyMessage): void {
  if (!this.complete) onSinkError.call(this, new Error('premature close'));
}

/**
 * How long a body left early may take to end, ms: the rest is read and dropped, so that the
 * connection returns to the pool (an SSE reply stream whose last event was read usually ends
 * right after it); past this the connection is cut.
 */
const DRAIN_MS = 1000;

/** Reads the rest of `res` into the void; cuts the connection when it does not end within {@link DRAIN_MS}. */
function drain(res: IncomingMessage, req: ClientRequest): void {
  if (res.complete) {
    res.resume();
    return;
  }
  const timer = setTimeout(() => req.destroy(), DRAIN_MS);
  timer.unref();
  res.once('close', () => clearTimeout(timer));
  res.resume();
}

class NodeReply implements HttpReply {
  readonly status: number;
  readonly ok: boolean;
  /** Text read so far by readText(). */
  body = '';
  #text: Promise<string> | undefined;
  /** The taker of readText(), until the body ended or broke. */
  #taker: TextTaker | undefined;
  #used = false;
  /** The sink of read(), until its end was called. */
  #sink: BodySink | undefined;

  constructor(
    private readonly res: IncomingMessage,
    readonly req: ClientRequest,
  ) {
    this.status = res.statusCode ?? 0;
    this.ok = this.status >= 200 && this.status < 300;
  }

  header(name: string): string | undefined {
    return rawHeader(this.res.rawHeaders, name);
  }

  text(): Promise<string> {
    if (this.#text) return this.#text;
    return (this.#text = new Promise((resolve, reject) => this.readText({ body: resolve, broken: reject })));
  }

  readText(taker: TextTaker): void {
    if (this.#text) {
      this.#text.then(
        (text) => taker.body(text),
        (e: Error) => taker.broken(e),
      );
      return;
    }
    this.#used = true;
    this.#taker = taker;
    const res = this.res as ReplyMessage;
    res[REPLY] = this;
    res.on('data', onReplyData);
    res.on('end', onReplyEnd);
    res.on('error', onReplyError);
    res.on('close', onReplyClose);
  }

  /** Ends readText(): with the body, or `error`. */
  settle(error: Error | undefined): void {
    const t = this.#taker;
    this.#taker = undefined;
    if (!t) return;
    if (error) t.broken(error);
    else t.body(this.body);
  }

  read(sink: BodySink): void {
    if (this.#text) {
      this.#text.then(
        (text) => {
          sink.chunk(text);
          sink.end(undefined);
        },
        (e: Error) => sink.end(e),
      );
      return;
    }
    this.#used = true;
    this.#sink = sink;
    const res = this.res as ReplyMessage;
    // listeners, not the stream's async iterator: the chunks go to the sink from the 'data' callback itself
    res[REPLY] = this;
    res.on('data', onSinkData);
    res.on('end', onSinkEnd);
    res.on('error', onSinkError);
    res.on('close', onSinkClose);
  }

  /** A chunk for read()'s sink; the sink stopping it drops the rest. */
  sinkData(text: string): void {
    const sink = this.#sink;
    if (!sink || sink.chunk(text)) return;
    this.#unsink();
    if (!this.res.readableEnded) drain(this.res, this.req);
    sink.end(undefined);
  }

  /** read()'s body ended (`error`: it broke). */
  sinkEnd(error: Error | undefined): void {
    const sink = this.#sink;
    if (!sink) return;
    this.#unsink();
    sink.end(error);
  }

  #unsink(): void {
    this.#sink = undefined;
    const res = this.res;
    res.off('data', onSinkData);
    res.off('end', onSinkEnd);
    res.off('error', onSinkError);
    res.off('close', onSinkClose);
  }

  /**
   * The whole body as one chunk, once it ended (text()): the transports read a node:http reply
   * through read() or readText(), which take it as it arrives; this is the interface's fallback.
   */
  async *chunks(): AsyncIterable<string> {
    yield await this.text();
  }

  discard(): void {
    if (this.#used) return;
    this.#used = true;
    // a short body is drained so the socket returns to the pool; a stream is cut
    if (this.res.complete || mediaType(this.header('content-type')) !== 'text/event-stream') this.res.resume();
    else this.req.destroy();
  }
}
