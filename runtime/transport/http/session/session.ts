/**
 * One Streamable HTTP session on the server side (2025-11-25 basic/transports, "Session
 * Management"): the {@link Transport} the peer engine attaches to, and the routing of its
 * outbound messages onto the HTTP responses of that session.
 *
 * Streams: every POST that carries a request owns one stream, answered as `application/json`
 * or `text/event-stream`; the standalone stream is the session's one GET. A message sent with
 * `relatedRequestId` goes to the stream of that request while it is open, a response always
 * to the stream of the request it answers (which then ends), anything else to the standalone
 * stream. With an {@link EventStore} every SSE event carries an ID and a reconnecting client
 * gets the events it missed on that one stream.
 */
import { encodeComment, encodeEvent } from '../../../codec/sse.js';
import type { EventStore } from './event-store.js';
import type { HeaderMap, ResponseSink } from '../io/exchange.js';
import { type OutStream, RequestInfo, abortStream, answerPending, isResponse, nextStreamId, sseHeaders } from './stream.js';
import { SENT } from '../../../jsonrpc/sent.js';
import type { JSONRPCMessage, MessageInfo, SendOptions, Transport, TransportEvents } from '../../../jsonrpc/transport.js';
import type { ReplyMode } from './stream.js';

export type { ReplyMode } from './stream.js';

/** Settings a session inherits from the handler. */
export interface SessionSettings {
  replyMode: ReplyMode;
  eventStore?: EventStore;
  /** SSE `retry` (ms) sent in priming events and before the server drops a connection. */
  retryMs?: number;
  /** Interval (ms) of keep-alive comments on open SSE connections; 0 disables. */
  keepAliveMs: number;
  /** Standalone-stream messages kept for a GET that arrives without `Last-Event-ID`. */
  maxBacklog: number;
  /** The protocol version of a request that names none and has no session version yet (from the tables served). */
  assumedVersion?: string;
  /** Protocol versions whose SSE streams start with a priming event (from the tables served). */
  priming?: ReadonlySet<string>;
}

type Id = string | number;

const STANDALONE = 'standalone';
const idKey = (id: Id): string => `${typeof id}:${id}`;

/** A JSON-RPC error body with `id: null`, for HTTP-level rejections. */
export function errorBody(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
}

/**
 * The server-side {@link Transport} of one session. Created by the HTTP handler when an
 * `initialize` request arrives and handed to `onSession`; the engine then calls `start`.
 * Inbound messages that arrive before `start` are held and delivered by it.
 */
export class HttpServerSession implements Transport {
  readonly sessionId: string;
  /** The negotiated protocol version, taken from the `initialize` result; undefined before. */
  protocolVersion: string | undefined;
  // An idle session holds only its id, settings and negotiated version: the collections below
  // are allocated on first use and dropped when they empty out or the session ends.
  private events: TransportEvents | undefined;
  /** Inbound messages that arrived before `start`. */
  private held: Array<[JSONRPCMessage, MessageInfo]> | undefined;
  /** Open streams by key of the request they answer. */
  private requests: Map<string, OutStream> | undefined;
  /** POST streams not finished yet (a client may resume them), by stream id. */
  private postStreams: Map<string, OutStream> | undefined;
  private standaloneStream: OutStream | undefined;
  /**
   * Standalone messages a client without a cursor has not provably received: with an event
   * store, every one sent since the last resumption (a client that got any of them holds an
   * event ID and resumes with it); without, those sent while no GET was connected.
   */
  private backlog: Array<{ eventId?: string; message: JSONRPCMessage }> | undefined;
  /** Tail of the send queue while sends are pending. */
  private queue: Promise<void> | undefined;
  private initKey: string | undefined;
  private ended = false;

  constructor(
    sessionId: string,
    private readonly settings: SessionSettings,
    private readonly onEnd: (session: HttpServerSession) => void,
  ) {
    this.sessionId = sessionId;
  }

  /** The stream of the session's GET (created on first use). */
  private get standalone(): OutStream {
    return (this.standaloneStream ??= this.newStream(STANDALONE, 'standalone', 'sse', this.settings.assumedVersion));
  }

  /** False once the session ended (DELETE, `close()`, or a failed `initialize`). */
  get active(): boolean {
    return !this.ended;
  }

  async start(events: TransportEvents): Promise<void> {
    if (this.events) throw new Error('HttpServerSession already started');
    this.events = events;
    const held = this.held ?? [];
    this.held = undefined;
    for (const [m, info] of held) events.onMessage(m, info);
  }

  /**
   * Sends one message on the stream chosen as described in the module docs. A JSON reply
   * with no send queued before it is written at once and {@link SENT} returned.
   * @throws Error when the session ended, or for a response to a request id this session
   * never received (or already answered).
   */
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    try {
      if (this.replyNow(message)) return SENT;
    } catch (e) {
      return Promise.reject(e);
    }
    return this.enqueue(() => this.route(message, options));
  }

  /**
   * Writes `message` now when it is the response of the one request of a POST stream still
   * answerable as `application/json`, no send is queued (so order holds) and it does not end
   * the `initialize` exchange; false (nothing done) otherwise.
   */
  private replyNow(message: JSONRPCMessage): boolean {
    if (this.queue !== undefined || this.ended || !isResponse(message)) return false;
    const key = idKey(message.id as Id);
    const s = this.requests?.get(key);
    if (!s || key === this.initKey || s.pending.size !== 1 || s.mode === 'sse' || s.sink?.started) return false;
    s.pending.delete(key);
    this.requests!.delete(key);
    if (this.requests!.size === 0) this.requests = undefined;
    this.replyJson(s, message);
    return true;
  }

  /** Answers a POST stream with `message` as `application/json`; the stream is finished. */
  private replyJson(s: OutStream, message: JSONRPCMessage): void {
    const body = JSON.stringify(message);
    s.mode = 'json';
    s.done = true;
    this.forget(s);
    const sink = s.sink;
    s.sink = null;
    sink?.respond(200, { ...s.headers, 'Content-Type': 'application/json' }, body);
  }

  /**
   * Ends the session: all its streams end, later requests with its id get 404. Idempotent.
   * With `reason` (e.g. "server shutting down") requests awaiting their response on an open
   * POST stream get error -32000 `reason` there (see `answerPending`), not a bare 404 or end.
   */
  async close(reason?: string): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    for (const s of [...(this.standaloneStream ? [this.standaloneStream] : []), ...(this.postStreams?.values() ?? [])]) {
      if (reason !== undefined && s.kind === 'post' && s.sink && !s.done && s.pending.size > 0) answerPending(s, reason);
      this.detach(s, true);
      if (s.kind === 'post') abortStream(s, new Error(`Session ${this.sessionId} ended`));
    }
    this.requests = undefined;
    this.postStreams = undefined;
    this.backlog = undefined;
    this.onEnd(this);
    await this.settings.eventStore?.clear?.();
    this.events?.onClose();
  }

  /**
   * Closes the HTTP connection of a stream without ending the stream (the "polling" pattern of
   * 2025-11-25 basic/transports, POST rule 6): sends `retry` when configured, then ends the
   * response. The client resumes with GET and `Last-Event-ID`. Targets the stream of
   * `relatedRequestId`, or the standalone stream when omitted. Resolves after queued sends.
   */
  closeSseConnection(relatedRequestId?: Id): Promise<void> {
    return this.enqueue(async () => {
      const s = relatedRequestId === undefined ? this.standaloneStream : this.requests?.get(idKey(relatedRequestId));
      if (!s?.sink) return;
      if (this.settings.retryMs !== undefined) s.sink.write(`retry: ${this.settings.retryMs}\n\n`);
      this.detach(s, true);
    });
  }

  /**
   * Handler side: one POSTed message, already validated and assigned to this session. A
   * request is delivered with a {@link CarrierWatch} info (same sessionId, headers and
   * protocolVersion) whose `signal` (built when read) and watched request abort when its
   * stream dies unanswered: the connection closed while the client cannot resume the stream
   * (no event store, or no event ID sent yet), or the session ended. A disconnection the
   * client can resume from is not a cancellation (2025-11-25 basic/transports, POST rule 6).
   */
  acceptPost(message: JSONRPCMessage, info: MessageInfo, sink: ResponseSink, headers: HeaderMap): void {
    const id = message.id as Id | undefined;
    if (typeof message.method === 'string' && id !== undefined && id !== null) {
      const key = idKey(id);
      if (this.requests?.has(key)) {
        sink.respond(400, { 'Content-Type': 'application/json', ...headers }, errorBody(-32600, `Request id ${JSON.stringify(id)} is already in use`));
        return;
      }
      if (message.method === 'initialize') this.initKey = key;
      const s = this.newStream(nextStreamId(), 'post', this.settings.replyMode, info.protocolVersion ?? this.settings.assumedVersion);
      s.pending.add(key);
      info = new RequestInfo(info, s);
      (this.requests ??= new Map()).set(key, s);
      (this.postStreams ??= new Map()).set(s.id, s);
      this.attach(s, sink, headers, s.mode === 'sse');
    } else {
      sink.respond(202, headers);
    }
    this.deliver(message, info);
  }

  /**
   * Handler side: a GET. With `lastEventId` (and an event store) replays the missed events of
   * the stream that ID belongs to and continues that stream on this connection (400 when the
   * ID is unknown or its successors were discarded); without, opens the standalone stream
   * and sends the messages held for it. Either way a connection the stream already had is
   * ended and replaced (one connection per stream; a client whose connection died unnoticed
   * can always come back).
   */
  acceptGet(sink: ResponseSink, headers: HeaderMap, protocolVersion: string | undefined, lastEventId?: string): Promise<void> {
    const json = { 'Content-Type': 'application/json', ...headers };
    return this.enqueue(async () => {
      const store = this.settings.eventStore;
      if (lastEventId !== undefined && store) {
        const replay: Array<[string, JSONRPCMessage]> = [];
        const streamId = await store.replayEventsAfter(lastEventId, (eventId, m) => {
          replay.push([eventId, m]);
        });
        if (streamId === undefined) {
          sink.respond(400, json, errorBody(-32000, 'Unknown or expired Last-Event-ID'));
          return;
        }
        const s = streamId === STANDALONE ? this.standalone : this.postStreams?.get(streamId);
        sink.open(200, sseHeaders(headers));
        for (const [eventId, m] of replay) sink.write(encodeEvent({ id: eventId, data: JSON.stringify(m) }));
        if (!s || s.done) {
          sink.end();
          return;
        }
        if (s === this.standaloneStream) this.backlog = undefined;
        this.detach(s, true);
        s.protocolVersion = protocolVersion;
        await this.attachOpen(s, sink);
        return;
      }
      this.detach(this.standalone, true);
      this.standalone.protocolVersion = protocolVersion;
      this.attach(this.standalone, sink, headers, false);
      // Held messages go before the priming event: its ID is then a cursor past all of them.
      const held = (this.settings.eventStore ? this.backlog?.slice() : this.backlog) ?? [];
      if (!this.settings.eventStore) this.backlog = undefined;
      await this.openStream(this.standalone, held);
    });
  }

  private deliver(message: JSONRPCMessage, info: MessageInfo): void {
    if (this.events) this.events.onMessage(message, info);
    else (this.held ??= []).push([message, info]);
  }

  /** Runs `task` after the tasks queued before it; the queue is dropped once it drains. */
  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = (this.queue ?? Promise.resolve()).then(task);
    const drained = (): void => {
      if (this.queue === tail) this.queue = undefined;
    };
    const tail: Promise<void> = run.then(drained, drained);
    this.queue = tail;
    return run;
  }

  private newStream(id: string, kind: OutStream['kind'], mode: ReplyMode, protocolVersion: string | undefined): OutStream {
    return { id, kind, sink: null, headers: {}, mode, pending: new Set(), protocolVersion, resumable: false, done: false };
  }

  /** Binds a connection to a stream; opens it now when `openNow` (else on first SSE message). */
  private attach(s: OutStream, sink: ResponseSink, headers: HeaderMap, openNow: boolean): void {
    s.sink = sink;
    s.headers = headers;
    sink.onClose(() => this.lost(s, sink));
    if (openNow) void this.enqueue(() => this.openStream(s));
  }

  /** Binds an already opened (resumed) connection to a stream. */
  private async attachOpen(s: OutStream, sink: ResponseSink): Promise<void> {
    s.sink = sink;
    sink.onClose(() => this.lost(s, sink));
    await this.prime(s);
    this.keepAlive(s);
  }

  /** Sends SSE status and headers on the stream's connection, `held`, then the priming event. */
  private async openStream(s: OutStream, held: Array<{ eventId?: string; message: JSONRPCMessage }> = []): Promise<void> {
    const sink = s.sink;
    if (!sink || sink.closed || sink.started) return;
    sink.open(200, sseHeaders(s.headers));
    for (const { eventId, message } of held) this.write(s, message, eventId);
    await this.prime(s);
    this.keepAlive(s);
  }

  /**
   * Priming event: an event ID with empty data, so that the client can resume even before the
   * first message. Only for the versions whose table says so (`table.http.primesStreams`:
   * 2025-11-25 basic/transports; older clients reject empty data).
   */
  private async prime(s: OutStream): Promise<void> {
    const store = this.settings.eventStore;
    if (!store || !s.sink || s.protocolVersion === undefined || !this.settings.priming?.has(s.protocolVersion)) return;
    const id = await store.storeEvent(s.id, null);
    if (s.sink?.write(encodeEvent({ id, data: '', retry: this.settings.retryMs }))) s.resumable = true;
  }

  private keepAlive(s: OutStream): void {
    if (this.settings.keepAliveMs <= 0 || s.timer) return;
    s.timer = setInterval(() => s.sink?.write(encodeComment()), this.settings.keepAliveMs);
    s.timer.unref?.();
  }

  /** The connection of `s` went away (client side, or ended by us). */
  private lost(s: OutStream, sink: ResponseSink): void {
    if (s.sink !== sink) return;
    this.detach(s, false);
    if (s.kind === 'post' && !s.done && !(s.resumable && this.settings.eventStore)) {
      // Nobody can resume this stream: its messages have nowhere to go.
      s.done = true;
      this.forget(s);
      abortStream(s, new Error('HTTP connection closed'));
    }
  }

  private detach(s: OutStream, end: boolean): void {
    if (s.timer) clearInterval(s.timer);
    s.timer = undefined;
    const sink = s.sink;
    s.sink = null;
    if (end && sink) {
      if (sink.started) sink.end();
      else sink.respond(404, {}, errorBody(-32000, 'Session ended'));
    }
  }

  private async route(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.ended) throw new Error(`Session ${this.sessionId} has ended`);
    const response = isResponse(message);
    let s: OutStream | undefined;
    if (response) {
      const key = idKey(message.id as Id);
      s = this.requests?.get(key);
      if (!s) throw new Error(`No open request with id ${JSON.stringify(message.id)} in session ${this.sessionId}`);
      if (key === this.initKey) this.learnVersion(message);
      s.pending.delete(key);
      this.requests!.delete(key);
      if (this.requests!.size === 0) this.requests = undefined;
    } else if (options?.relatedRequestId !== undefined) {
      s = this.requests?.get(idKey(options.relatedRequestId));
      if (s && (s.mode === 'json' || s.done)) s = undefined;
    }
    s ??= this.standalone;

    if (s.kind === 'post') {
      if (s.mode === 'auto') s.mode = response && s.pending.size === 0 && !s.sink?.started ? 'json' : 'sse';
      if (s.mode === 'json') this.replyJson(s, message);
      else if (!s.done) {
        await this.openStream(s);
        const eventId = await this.settings.eventStore?.storeEvent(s.id, message);
        this.write(s, message, eventId);
        if (s.pending.size === 0) {
          s.done = true;
          this.forget(s);
          this.detach(s, true);
        }
      }
    } else {
      const eventId = await this.settings.eventStore?.storeEvent(s.id, message);
      const live = s.sink !== null && !s.sink.closed;
      if (live) this.write(s, message, eventId);
      if (!live || this.settings.eventStore) {
        const backlog = (this.backlog ??= []);
        backlog.push({ eventId, message });
        if (backlog.length > this.settings.maxBacklog) backlog.shift();
      }
    }
    if (response && this.initKey === idKey(message.id as Id)) {
      this.initKey = undefined;
      if ('error' in message) await this.close();
    }
  }

  /** A finished POST stream: nothing will be resumed or sent on it. */
  private forget(s: OutStream): void {
    this.postStreams?.delete(s.id);
    if (this.postStreams?.size === 0) this.postStreams = undefined;
  }

  private write(s: OutStream, message: JSONRPCMessage, eventId: string | undefined): void {
    if (!s.sink) return;
    if (s.sink.write(encodeEvent({ id: eventId, data: JSON.stringify(message) })) && eventId !== undefined) {
      s.resumable = true;
    }
  }

  private learnVersion(message: JSONRPCMessage): void {
    const result = message.result as { protocolVersion?: unknown } | undefined;
    if (typeof result?.protocolVersion === 'string') this.protocolVersion = result.protocolVersion;
  }
}
