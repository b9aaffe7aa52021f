// size: the POSTs, their answers and the -32020 refresh share the table of requests in flight; 11 lines over (replies are read in client-reply.ts)
/**
 * Streamable HTTP, client side, stateless revisions (draft basic/transports/streamable-http),
 * with the fall-back to the 2025 transport a dual-era client needs; over `fetch` and Web
 * Streams, no `node:` import (./node-client.ts: the same over `node:http`, Node's default).
 *
 * Every request is one POST carrying the request metadata headers (./headers.ts):
 * `MCP-Protocol-Version` from the body's `_meta`, `Mcp-Method`, `Mcp-Name`, and `Mcp-Param-*`
 * for tool arguments annotated `x-mcp-header` in the tool's schema (learned from the
 * `tools/list` results passing through; tools with invalid annotations are removed from them,
 * as "Schema Extension" requires). The answer is read as JSON or SSE; each message in it goes
 * to the engine. Sending `notifications/cancelled` for a request in flight closes that request's
 * response stream instead of posting (the cancellation of this transport).
 *
 * HTTP errors: a JSON-RPC error in the body for the request's id is delivered as its answer; one
 * without an `id`, or with `id: null`, fails the request with that error (RpcError: its code,
 * message and data), whose `cause` is the reply's HttpStatusError (`status`, `body`, `code`), as
 * the 2025 transport fails it with that HttpStatusError. Anything else (no body, not JSON-RPC) fails the request with
 * HttpStatusError: the sign of a server without the stateless endpoint (Backward
 * Compatibility), on which ClientSession falls back to `initialize`.
 *
 * A 2xx reply is checked as the 2025 transport checks it: one neither JSON nor SSE (or without
 * a Content-Type), a JSON body that does not parse, is no JSON-RPC response, or answers another
 * id fails the request with HttpStatusError saying which; an SSE event that is not JSON is
 * skipped (named to `onError`); an event over `maxEventSize` fails the request with
 * ConnectionClosedError (its `cause` the SseSizeError).
 *
 * Legacy mode: once an `initialize` request is sent, this transport hands everything to an
 * {@link HttpClientTransport} of the same URL (sessions, GET stream, 2025-11-25 rules).
 *
 * In parts: ./client-flight.ts a request in flight, ./client-reply.ts the reading of SSE
 * replies, ./client-tools.ts the tools' annotations; this file the POSTs and their answers.
 */
import { ErrorCode, RpcError } from '../../../jsonrpc/errors.js';
import { classify, isErrorResponse, type InvalidMessage } from '../../../jsonrpc/message.js';
import { HttpClientTransport, HttpStatusError, type HttpClientTransportOptions } from '../session/fetch-client.js';
import { requestHeaders, type ParamHeader } from './headers.js';
import {
  bodyHead,
  Cancel,
  adoptAnswer,
  fetchRequester,
  emptyReply,
  refusal,
  mediaType,
  type HttpReply,
  type HttpRequestInit,
  type Requester,
  type SendingRequester,
} from '../io/request.js';
import { Flight, type FlightHost, type Id } from './client-flight.js';
import { readSseReply, type ReplyTarget } from './client-reply.js';
import { ToolHeaders } from './client-tools.js';
import { type DeliverOptions, type FirstAttempt, deliver } from '../io/delivery.js';
import type { JSONRPCMessage, SendOptions, Transport, TransportEvents } from '../../../jsonrpc/transport.js';
import { SENT } from '../../../jsonrpc/sent.js';
import { parsePeerJson } from '../../../codec/json-depth.js';

type Obj = Record<string, unknown>;
type HeadersFn = () => Record<string, string> | Promise<Record<string, string>>;

/** The method of the `tools/list` refresh after -32020 as its errors name it ("POST tools/list (the refresh after -32020)"). */
const REFRESH = 'tools/list (the refresh after -32020)';

/** Options of {@link StatelessHttpClientTransport} (those of the 2025 transport apply in legacy mode). */
export type StatelessHttpClientOptions = HttpClientTransportOptions;

/** How a {@link StatelessHttpClientTransport} does its I/O (library authors; defaults: fetch). */
export interface StatelessClientIo {
  /** Sends the stateless POSTs. */
  requester?: Requester;
  /** Makes the 2025 transport of legacy mode from the same options. */
  legacy?: (options: HttpClientTransportOptions) => HttpClientTransport;
}

export class StatelessHttpClientTransport implements Transport {
  readonly #request: Requester;
  /** Requests awaiting their answer, by id (a Map tells the id 1 from the id "1"). */
  readonly #inFlight = new Map<Id, Flight>();
  /** The `Mcp-Param-*` annotations of each known tool, for ./headers.ts `requestHeaders`. */
  readonly #tools = new ToolHeaders();
  #events: TransportEvents | undefined;
  #legacy: HttpClientTransport | undefined;
  #closed = false;
  #expired: ((info: { sessionId: string }) => void | Promise<void>) | undefined;
  /** The `tools/list` refreshes posted (their ids). */
  #refreshes = 0;

  readonly #makeLegacy: (options: HttpClientTransportOptions) => HttpClientTransport;

  /** @throws TypeError for a URL that does not parse. */
  constructor(
    readonly options: StatelessHttpClientOptions,
    io: StatelessClientIo = {},
  ) {
    const url = new URL(options.url);
    this.#request =
      io.requester ?? fetchRequester(url, options.fetch ?? ((input, init) => globalThis.fetch(input, init)));
    this.#makeLegacy = io.legacy ?? ((o) => new HttpClientTransport(o));
  }

  /** The 2025 transport in use after fall-back (undefined while stateless). */
  get legacy(): HttpClientTransport | undefined {
    return this.#legacy;
  }
  get sessionId(): string | undefined {
    return this.#legacy?.sessionId;
  }
  /** Legacy mode: the session-expiry hook of the 2025 transport. */
  get onSessionExpired() {
    return this.#legacy ? this.#legacy.onSessionExpired : this.#expired;
  }
  set onSessionExpired(hook) {
    this.#expired = hook;
    if (this.#legacy) this.#legacy.onSessionExpired = hook;
  }
  /** Legacy mode: {@link HttpClientTransport.standaloneOpened}; stateless: false (no standalone stream). */
  standaloneOpened(): Promise<boolean> {
    return this.#legacy?.standaloneOpened() ?? Promise.resolve(false);
  }
  /** Legacy mode: the negotiated version for `MCP-Protocol-Version`. */
  setProtocolVersion(version: string): void {
    this.#legacy?.setProtocolVersion(version);
  }

  /** The `Mcp-Param-*` annotations known for `tool` (from `tools/list`, or set here). */
  toolHeaders(tool: string): ParamHeader[] | undefined {
    return this.#tools.lookup(tool);
  }
  /** Records a tool's `inputSchema` for header mirroring. Throws TypeError when its annotations are invalid. */
  setToolSchema(tool: string, inputSchema: unknown): void {
    this.#tools.set(tool, inputSchema);
  }

  async start(events: TransportEvents): Promise<void> {
    this.#events = events;
  }

  /**
   * Sends `message`: a request is posted at once and its answer goes to the engine later;
   * returns {@link SENT} then (nothing to wait for: a failure of the POST fails the request
   * itself). Rejects once the transport is closed.
   */
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('transport closed'));
    const method = message.method;
    if (
      this.#legacy ||
      method === undefined ||
      message.id === undefined ||
      method === 'initialize' ||
      method === 'notifications/cancelled'
    )
      return this.#sendOther(message, options);
    const id = message.id as Id;
    const flight = new Flight(method as string, id, message, this.#host);
    flight.once = options?.retry === false;
    this.#inFlight.set(id, flight);
    try {
      this.#exchange(flight);
    } catch (e) {
      // (a body that does not serialize, a header that does not encode: nothing was posted)
      this.#inFlight.delete(id);
      return Promise.reject(e);
    }
    return SENT;
  }

  /** send() of anything but a stateless request: legacy mode, `initialize`, notifications, responses. */
  async #sendOther(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (!this.#legacy && message.method === 'initialize' && message.id !== undefined) {
      this.#legacy = this.#makeLegacy({ ...this.options, onSessionExpired: undefined });
      this.#legacy.onSessionExpired = this.#expired;
      await this.#legacy.start(this.#events!);
    }
    if (this.#legacy) return this.#legacy.send(message, options);
    if (message.method === 'notifications/cancelled') {
      const target = (message.params as Obj | undefined)?.requestId as Id | undefined;
      const f = target === undefined ? undefined : this.#inFlight.get(target);
      if (f) {
        this.#inFlight.delete(target!);
        f.cancel(new Error('cancelled'));
      }
      return;
    }
    const extra = this.options.headers;
    // (no await for headers given as a record: the POST starts in this tick)
    const init = this.#init(message, new Cancel(), typeof extra === 'function' ? await extra() : extra);
    (await deliver(this.#request, init, this.#deliverOptions(message.method ?? 'response'))).discard();
  }

  /**
   * Posts request `f` and reads its answer; any failure fails the request. A POST whose
   * headers are a record goes out in this tick, and its first reply, unless a 503, is read
   * with no async function (#host `replied`: on the node:http requester with no promise either,
   * `f` taking the reply and its body); the rest (a headers function, retries of
   * ../io/delivery.ts) is #exchangeAll's.
   */
  #exchange(f: Flight): void {
    const extra = this.options.headers;
    if (typeof extra === 'function') {
      void this.#exchangeAll(f, undefined);
      return;
    }
    const init = (f.init = this.#init(f.message, f, extra));
    const request = this.#request as SendingRequester;
    if (request.send) return request.send(init, f);
    let sent: Promise<HttpReply>;
    try {
      sent = request(init);
    } catch (e) {
      sent = Promise.reject(e);
    }
    sent.then(
      (res) => f.reply(res),
      (error: unknown) => f.error(error),
    );
  }

  /**
   * The takers of every Flight of this transport: #exchange's first reply (read here, #take,
   * unless a 503, which goes on to #exchangeAll), and its JSON body; and where an SSE reply's
   * messages go (./client-reply.ts).
   */
  readonly #host: FlightHost & ReplyTarget = {
    // (an SSE reply read here too: what delivery would do with a first reply that is no 503 is return it)
    replied: (f, res) =>
      res.status === 503 ? void this.#exchangeAll(f, { init: f.init!, first: { reply: res } }) : this.#take(f, res),
    notReplied: (f, error) => void this.#exchangeAll(f, { init: f.init!, first: { error } }),
    read: (f, text) => {
      const res = f.res!;
      f.res = undefined;
      try {
        this.#readText(f, res, text);
      } catch (e) {
        this.#fail(f.id, e as Error);
      }
    },
    fail: (id, error) => this.#fail(id, error),
    answer: (m) => this.#answer(m),
    skipped: (error) => this.#events?.onError?.(error),
  };

  /** The reply that answers request `f`: an SSE stream read as it comes, a JSON body to #readText through `f`, any other type refused. */
  #take(f: Flight, res: HttpReply): void {
    const id = f.id;
    try {
      if (res.ok) {
        const type = mediaType(res.header('content-type'));
        // (./client-reply.ts: its messages to #answer as they arrive, or the request's failure)
        if (type === 'text/event-stream') return readSseReply(id, res, this.options.maxEventSize, this.#host);
        if (type !== 'application/json') return void this.#refuseType(f, res, type);
      }
      f.res = res;
      if (res.readText) return res.readText(f);
      res.text().then(
        (text) => f.body(text),
        (e: Error) => f.broken(e),
      );
    } catch (e) {
      this.#fail(id, e as Error);
    }
  }

  /** #exchange, all of it (from the first attempt's outcome when it was made: `sent`). */
  async #exchangeAll(f: Flight, sent: { init: HttpRequestInit; first: FirstAttempt } | undefined): Promise<void> {
    const message = f.message;
    try {
      const options = this.#deliverOptions(f.method, f.once);
      const res = sent
        ? await deliver(this.#request, sent.init, options, sent.first)
        : // (not sent yet: #exchange leaves a POST whose headers are a function to this)
          await deliver(this.#request, this.#init(message, f, await (this.options.headers as HeadersFn)()), options);
      this.#take(f, res);
    } catch (e) {
      this.#fail(f.id, e as Error);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const f of this.#inFlight.values()) f.cancel(new Error('transport closed'));
    this.#inFlight.clear();
    if (this.#legacy) await this.#legacy.close();
    else this.#events?.onClose();
  }

  /** The POST of `message`. */
  #init(message: JSONRPCMessage, cancel: Cancel, extra: Record<string, string> | undefined): HttpRequestInit {
    // one object written in place (a spread after other members costs a copy through the runtime)
    const headers: Record<string, string> =
      extra === undefined
        ? { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }
        : { ...extra, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    // (own string-keyed members only: the same as a for…in copy, without its enumeration)
    Object.assign(headers, requestHeaders(message, this.#tools.lookup));
    return { method: 'POST', headers, body: JSON.stringify(message), cancel };
  }

  /**
   * How a POST is delivered, named `POST <method>` in its errors: `once`, with no retry (a
   * request sent with `retry: false`; the refresh after -32020, so that no retry of a 503 or a
   * refused connection holds up the call it serves).
   */
  #deliverOptions(method: unknown, once?: boolean): DeliverOptions {
    return { what: `POST ${String(method)}`, retry: once ? false : this.options.retry };
  }

  /**
   * Whether `m`, the answer to `f`, is a -32020 (HeaderMismatch) error answering a `tools/call`
   * posted once only, in whatever reply it came (400 or 200, JSON or SSE): then it is not the
   * call's answer, #again takes the call over.
   */
  #mismatch(f: Flight | undefined, m: Obj): boolean {
    if (f?.method !== 'tools/call' || f.refreshed || (m.error as Obj | undefined)?.code !== ErrorCode.HeaderMismatch)
      return false;
    f.refreshed = true;
    void this.#again(f);
    return true;
  }

  /**
   * A `tools/call` answered -32020 ("Client Behavior"): lists the tools again (all pages,
   * outside the engine) to learn their current `x-mcp-header` annotations, then posts the call
   * once more, whose answer is the call's, a second -32020 too. Any failure of the refresh is
   * named to `onError` as "POST tools/list (the refresh after -32020)" and why, in the words of
   * the same fault on a normal call, and the call posted again all the same; a cancel of the
   * call (the caller's abort, its timeout) ends both.
   */
  async #again(f: Flight): Promise<void> {
    try {
      await this.#refresh(f);
    } catch (e) {
      // named (as a skipped SSE event is), unless its words name the refresh already (a reply's fault)
      const { message } = e as Error;
      if (!f.reason)
        this.#events?.onError?.(
          message.includes(REFRESH) ? (e as Error) : new Error(`POST ${REFRESH}: ${message}`, { cause: e }),
        );
    }
    if (!f.reason) this.#exchange(f);
  }

  /**
   * #again's `tools/list`, all pages (at most 100): each page a request of this transport's own,
   * posted and read as any request (its Flight's `settle` takes its answer or failure, not the
   * engine), named REFRESH, and cancelled with the call.
   * @throws why a page has no result: the reply's fault, as a normal call's; the error it answers (RpcError); or a malformed response.
   * Also a `nextCursor` seen before in this refresh (a server that repeats it would loop), and the 100th page's `nextCursor` (the cap).
   */
  async #refresh(call: Flight): Promise<void> {
    const _meta = (call.message.params as Obj | undefined)?._meta;
    let cursor: unknown;
    // the cursors followed: a repeated one would loop, and the 100th ends the refresh (the cap)
    const seen = new Set<string>();
    for (;;) {
      const id = `tools-refresh-${++this.#refreshes}`;
      const params = cursor === undefined ? { _meta } : { _meta, cursor };
      const m = await new Promise<JSONRPCMessage | Error>((settle) => {
        const r = new Flight(REFRESH, id, { jsonrpc: '2.0', id, method: 'tools/list', params }, this.#host);
        r.settle = settle;
        r.once = true;
        call.onCancel((reason) => r.cancel(reason));
        this.#inFlight.set(id, r);
        this.#exchange(r);
      });
      if (m instanceof Error) throw m;
      // (the engine's words for an answer it would not take)
      const c = classify(m);
      if (c.kind === 'error') throw RpcError.from(c.message.error);
      if (c.kind !== 'result') throw new Error(`Malformed response: ${(c as InvalidMessage).reason}`);
      this.#tools.learn(m, this.#events);
      cursor = c.message.result.nextCursor;
      if (typeof cursor !== 'string') return;
      const stop = seen.has(cursor)
        ? 'repeated (seen before in this refresh)'
        : seen.add(cursor).size === 100 && 'after 100 pages (the cap)';
      if (stop) throw new Error(`stopped at nextCursor ${JSON.stringify(cursor)}, ${stop}`);
    }
  }

  /**
   * A 2xx reply of media type `type`, neither JSON nor SSE: the request fails, its body read no
   * further than its first {@link BODY_HEAD} characters (for the error's `body`), as the 2025
   * client fails it: with no body a ConnectionClosedError (the request may have run), else an
   * HttpStatusError naming the type ("unexpected Content-Type text/plain", or "(none)").
   */
  async #refuseType(f: Flight, res: HttpReply, type: string): Promise<void> {
    const head = await bodyHead(res);
    if (head === '' && type === '') return this.#readText(f, res, '');
    this.#fail(
      f.id,
      new HttpStatusError(
        res.status,
        head,
        `POST ${f.method}: unexpected Content-Type ${type || '(none)'}`,
        res.header('content-type'),
      ),
    );
  }

  /**
   * A reply's body `text` (not SSE): the answer of request `f`, or its failure (dropped by #fail
   * once `f` is no longer in flight: cancelled, or the transport closed).
   */
  #readText(f: Flight, res: HttpReply, text: string): void {
    const id = f.id;
    const what = `POST ${f.method}`;
    if (text === '' && res.ok) return this.#fail(id, emptyReply(what, res.status));
    let body: unknown;
    let notJson: Error | undefined;
    try {
      body = text === '' ? undefined : parsePeerJson(text);
    } catch (e) {
      body = text;
      notJson = e as Error;
    }
    const m = body as Obj | undefined;
    const isRpc = typeof m === 'object' && m !== null && m.jsonrpc === '2.0' && ('result' in m || 'error' in m);
    // an error status whose body is a JSON-RPC error for no id (JSON-RPC 2.0 §5): that error, the
    // reply's HttpStatusError (status, body, code) its `cause`, as the 2025 client has them
    if (!res.ok && m?.id == null && isErrorResponse(m)) {
      if (this.#mismatch(this.#inFlight.get(id), m)) return;
      const e = RpcError.from(m.error);
      e.cause = refusal(what, id, res, body, text, true, undefined);
      return this.#fail(id, e);
    }
    // the request's own id, or (an error only) none: `id: null` or absent, set to the request's in place
    if (isRpc && adoptAnswer(m, id) && (res.ok || 'error' in m)) {
      return this.#answer(m as unknown as JSONRPCMessage);
    }
    this.#fail(id, refusal(what, id, res, body, text, isRpc, notJson));
  }

  #answer(m: JSONRPCMessage): void {
    if (!('method' in m) && (typeof m.id === 'string' || typeof m.id === 'number')) {
      const f = this.#inFlight.get(m.id);
      if (this.#mismatch(f, m as Obj)) return;
      this.#inFlight.delete(m.id);
      if (f?.settle) return f.settle(m);
      if (f?.method === 'tools/list') m = this.#tools.learn(m, this.#events);
    }
    this.#events?.onMessage(m);
  }

  #fail(id: Id, e: Error): void {
    const f = this.#inFlight.get(id);
    if (!f) return;
    this.#inFlight.delete(id);
    if (f.settle) return f.settle(e);
    if (f.reason) return;
    if (this.#events?.onRequestError) this.#events.onRequestError(id, e);
    else
      this.#events?.onMessage({ jsonrpc: '2.0', id, error: { code: ErrorCode.ConnectionClosed, message: e.message } });
  }
}
