// size: HttpServerSession, one class; split into session state, streams and resumption pending (#36)
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
import { encodeComment, encodeEvent, encodeJsonEvent } from '../../../codec/sse.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { MemoryEventStore, type EventStore, type SharedEventStore } from './event-store.js';
import type { HeaderMap, ResponseSink } from '../io/exchange.js';
import {
  type OutStream,
  RequestInfo,
  StreamIds,
  abortStream,
  answerPending,
  isResponse,
  sseHeaders,
} from './stream.js';
import { SENT } from '../../../jsonrpc/sent.js';
import { FewMap, FewSet } from '../../../jsonrpc/few.js';
import { decimal } from '../../../jsonrpc/decimal.js';
import { idText, serializeMessage } from '../../../jsonrpc/message.js';
import type {
  JSONRPCMessage,
  MessageInfo,
  SendOptions,
  Transport,
  TransportEvents,
} from '../../../jsonrpc/transport.js';
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
  /**
   * Awaited with the `initialize` response before it goes out (a shared deployment records the
   * session there, so that its next request may reach any process); a rejection turns the
   * response into error -32000 and ends the session.
   */
  onNegotiated?: (response: JSONRPCMessage) => Promise<void>;
  /** An event store call failed: the event goes out without an ID (not resumable). */
  onStoreError?: (error: Error) => void;
  /**
   * The session turned busy (`idle` false: work started) or idle again (see
   * {@link HttpServerSession.idle}); called on each change, synchronously. A shared deployment
   * marks busy sessions in its store, whose cap then never evicts them.
   */
  onIdleChange?: (idle: boolean) => void;
  /**
   * Shared deployments: the standalone stream spans the processes. `id` is its stream id on
   * every process (the session record's `standaloneStreamId`; omitted on the process that
   * initialized the session, which makes it). `relay` carries a standalone message sent here
   * while no connection of this process holds the stream, with its event ID, to whichever
   * process holds it (the handler publishes it on the bus, where that process's
   * {@link HttpServerSession.deliverStandalone} gets it). `opened` is called when a connection of
   * this process takes the standalone stream (a GET, or a resumption of it here), so that the
   * handler ends the one another process held ({@link HttpServerSession.dropStandalone}): one
   * connection per stream across the deployment, each message sent on one stream only.
   */
  standalone?: { id?: string; relay(eventId: string | undefined, message: JSONRPCMessage): void; opened?(): void };
}

const isThenable = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as Promise<T> | undefined)?.then === 'function';

const isShared = (store: EventStore | undefined): store is SharedEventStore =>
  store !== undefined &&
  typeof (store as SharedEventStore).follow === 'function' &&
  typeof (store as SharedEventStore).streamOpened === 'function';

type Id = string | number | bigint;

/** How often events the store did not take are offered to it again, ms. */
const KEPT_RETRY_MS = 1000;
/** How long such events are kept before they are dropped, ms (a stream's events live 5 minutes in the Redis store). */
const KEPT_FOR_MS = 300_000;

// (a number id counts up on most clients: its text made outside the number-to-string cache)
const idKey = (id: Id): string => (typeof id === 'number' ? `number:${decimal(id)}` : `${typeof id}:${id}`);

/** A JSON-RPC error body with no `id` (no request was read: the error-id rule of ../../../jsonrpc/message.ts), for HTTP-level rejections. */
export function errorBody(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message } });
}

/**
 * The server-side {@link Transport} of one session. Created by the HTTP handler when an
 * `initialize` request arrives and handed to `onSession`; the engine then calls `start`.
 * Inbound messages that arrive before `start` are held and delivered by it.
 */
export class HttpServerSession implements Transport {
  readonly sessionId: string;
  /** Handshake revisions only (a session begins with `initialize`): a stateless revision's server session refuses it. */
  get lifecycle(): 'handshake' {
    return 'handshake';
  }
  /** The negotiated protocol version, taken from the `initialize` result; undefined before. */
  protocolVersion: string | undefined;
  // An idle session holds only its id, settings and negotiated version: the collections below
  // are allocated on first use and dropped when they empty out or the session ends (the two
  // stream maps are FewMaps: a request answered alone makes two small objects and no Map).
  private events: TransportEvents | undefined;
  /** Inbound messages that arrived before `start`. */
  private held: Array<[JSONRPCMessage, MessageInfo]> | undefined;
  /** Open streams by key of the request they answer. */
  private requests: FewMap<string, OutStream> | undefined;
  /** POST streams not finished yet (a client may resume them), by stream id. */
  private postStreams: FewMap<string, OutStream> | undefined;
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
  /** Ids of this session's streams (made with its first stream). */
  private streamIds: StreamIds | undefined;
  #lastActive = Date.now();
  #reading = 0;
  /** Connections following streams of other processes (see `follow`). */
  private followers = 0;
  private followStops: Set<() => void> | undefined;
  /** {@link idle} as last told to `onIdleChange`. */
  private wasIdle = true;
  /** Shared standalone stream: the last event ID written on its connection (where the store is read from on a relayed message). */
  private standaloneCursor: string | undefined;
  /** Shared standalone stream: the event IDs written on it lately (at most 256), so that none goes out twice. */
  private standaloneSeen: Set<string> | undefined;
  /** The SSE headers last made, and the headers they were made from. */
  private sseHeaderCache: { from: HeaderMap; headers: HeaderMap } | undefined;
  /** Starts the keep-alive comments of a stream still open at the end of the tick that opened it. */
  #keepAliveIfOpen: ((s: OutStream) => void) | undefined;
  /**
   * An event store call failed (a Redis that stalls answers each command only after its
   * timeout): until a new request reaches the session or a kept event is stored, events are
   * not stored, so a stall holds the session's sends for one store timeout, not for its length.
   */
  private storeDown = false;
  /** POST streams with events kept to store later (see {@link keep}), and when that began (ms). */
  private unstored: { streams: Set<OutStream>; since: number; timer?: ReturnType<typeof setTimeout> } | undefined;

  constructor(
    sessionId: string,
    private readonly settings: SessionSettings,
    private readonly onEnd: (session: HttpServerSession) => void,
  ) {
    this.sessionId = sessionId;
  }

  #responseHeaders: Readonly<HeaderMap> | undefined;

  /** The headers every response of this session carries (`Mcp-Session-Id`); one object, not to be changed. */
  get responseHeaders(): Readonly<HeaderMap> {
    return (this.#responseHeaders ??= Object.freeze({ 'Mcp-Session-Id': this.sessionId }));
  }

  /** The stream of the session's GET (created on first use). */
  private get standalone(): OutStream {
    return (this.standaloneStream ??= this.newStream(
      this.ids.standalone,
      'standalone',
      'sse',
      this.settings.assumedVersion,
    ));
  }

  private get ids(): StreamIds {
    return (this.streamIds ??= new StreamIds(this.settings.standalone?.id));
  }

  /** The id of the standalone (GET) stream (a shared deployment records it with the session). */
  get standaloneStreamId(): string {
    return this.ids.standalone;
  }

  /**
   * When the session last did something (ms since the epoch, as `Date.now()`): a request for
   * it arrived or its body was read, a response went out, or a connection of one of its
   * streams ended.
   */
  get lastActive(): number {
    return this.#lastActive;
  }

  /**
   * Handler side: a request carrying this session's id arrived (its body may still be on its
   * way), which counts as activity; `now`: the time it arrived (ms, as `Date.now()`), when read already.
   */
  touch(now: number = Date.now()): void {
    this.#lastActive = now;
  }

  /**
   * Handler side: a POST body for this session is being read (`true`: the request was just
   * {@link touch}ed) or was read (`false`, which counts as activity). A session reading a body
   * is not idle.
   */
  reading(started: boolean): void {
    if (started) this.#reading++;
    else {
      this.#reading--;
      this.#lastActive = Date.now();
    }
    this.checkIdle();
  }

  /**
   * True when nothing is under way: no request awaits its response, no POST body is being
   * read, no stream has a connection, no send is queued. Only an idle session may expire or
   * be evicted.
   */
  get idle(): boolean {
    return (
      !this.ended &&
      this.requests === undefined &&
      this.queue === undefined &&
      this.#reading === 0 &&
      !this.standaloneStream?.sink &&
      this.followers === 0
    );
  }

  /** Tells `onIdleChange` when {@link idle} changed (an ended session counts as idle: nothing more is under way). */
  private checkIdle(): void {
    const idle = this.ended || this.idle;
    if (idle === this.wasIdle || !this.settings.onIdleChange) return;
    this.wasIdle = idle;
    this.settings.onIdleChange(idle);
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
      if (this.replyNow(message)) {
        this.checkIdle();
        return SENT;
      }
      const now = this.replySseNow(message);
      if (now !== false) {
        this.checkIdle();
        return now;
      }
    } catch (e) {
      return Promise.reject(e);
    }
    return this.enqueue(() => this.route(message, options));
  }

  /**
   * Writes `message` now when it is the last response a POST stream open as SSE awaits and no
   * send is queued (so order holds): stored (when the event store answers at once; else the
   * write waits for it in the queue), written, and the stream ends, as `route` would do a
   * microtask later. False (nothing done) otherwise; {@link SENT} when it went out, or the
   * queued rest.
   */
  private replySseNow(message: JSONRPCMessage): false | Promise<void> {
    if (this.queue !== undefined || this.ended || !isResponse(message)) return false;
    const key = idKey(message.id as Id);
    const s = this.requests?.get(key);
    if (
      !s ||
      key === this.initKey ||
      s.pending.size !== 1 ||
      s.batch ||
      s.done ||
      s.mode === 'json' ||
      !s.sink?.started
    )
      return false;
    // serialised first: a result JSON cannot express throws with the request still open
    const text = serializeMessage(message);
    // (the session's activity time is taken when the stream detaches, at its end)
    s.pending.delete(key);
    this.requests!.delete(key);
    if (this.requests!.size === 0) this.requests = undefined;
    s.mode = 'sse';
    const eventId = this.store(s, message, text);
    if (!isThenable(eventId)) {
      this.finishSse(s, message, eventId, text);
      return SENT;
    }
    return this.chain(eventId.then((id) => this.finishSse(s, message, id, text)));
  }

  /** Writes the last event of POST stream `s` and ends it. */
  private finishSse(s: OutStream, message: JSONRPCMessage, eventId: string | undefined, text: string): void {
    if (eventId === undefined) this.writeUnstored(s, message, text);
    else this.write(s, message, eventId, text);
    s.done = true;
    this.forget(s);
    this.detach(s, true);
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
    if (!s || key === this.initKey || s.pending.size !== 1 || s.mode === 'sse' || s.sink?.started || s.batch)
      return false;
    // serialised first: a result JSON cannot express throws with the request still open
    const body = serializeMessage(message);
    s.pending.delete(key);
    this.requests!.delete(key);
    if (this.requests!.size === 0) this.requests = undefined;
    this.replyJson(s, message, body);
    return true;
  }

  /**
   * Answers a POST stream with `message` (a batch: an array) as `application/json`; the stream is
   * finished. `body`: its serialised text, when made already.
   */
  private replyJson(s: OutStream, message: JSONRPCMessage | JSONRPCMessage[], body = serializeMessage(message)): void {
    this.#lastActive = Date.now();
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
    for (const s of [
      ...(this.standaloneStream ? [this.standaloneStream] : []),
      ...(this.postStreams?.values() ?? []),
    ]) {
      if (reason !== undefined && s.kind === 'post' && s.sink && !s.done && s.pending.size > 0)
        answerPending(s, reason);
      this.detach(s, true);
      if (s.kind === 'post') abortStream(s, new Error(`Session ${this.sessionId} ended`));
    }
    this.requests = undefined;
    this.postStreams = undefined;
    this.backlog = undefined;
    for (const stop of this.followStops ?? []) stop();
    this.followStops = undefined;
    this.onEnd(this);
    this.checkIdle();
    await this.settings.eventStore?.clear?.(this.sessionId);
    this.events?.onClose();
  }

  /**
   * The engine sends no response for request `id` (the client cancelled it): the request stops
   * awaiting one, and a POST stream left with nothing to wait for ends: as an empty
   * `text/event-stream` when nothing was sent on it yet (a request's POST is answered with JSON
   * or SSE, 2025-11-25 basic/transports, POST rule 5), else its SSE body ends. Resolves after
   * queued sends.
   */
  unanswered(id: Id): Promise<void> {
    return this.enqueue(async () => {
      const key = idKey(id);
      const s = this.requests?.get(key);
      if (!s || this.ended) return;
      s.pending.delete(key);
      this.requests!.delete(key);
      if (this.requests!.size === 0) this.requests = undefined;
      if (key === this.initKey) this.initKey = undefined;
      if (s.pending.size > 0 || s.done) return;
      s.done = true;
      this.forget(s);
      const sink = s.sink;
      if (sink && !sink.started && !sink.closed) sink.open(200, sseHeaders(s.headers));
      this.detach(s, true);
    });
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
   * request is delivered with a `CarrierWatch` info (same sessionId, headers and
   * protocolVersion) whose `signal` (built when read) and watched request abort when its
   * stream dies unanswered: the connection closed while the client cannot resume the stream
   * (no event store, or no event ID sent yet), or the session ended. A disconnection the
   * client can resume from is not a cancellation (2025-11-25 basic/transports, POST rule 6).
   * Once the session has ended the POST gets 404 "Session not found" and nothing is delivered.
   */
  acceptPost(message: JSONRPCMessage, info: MessageInfo, sink: ResponseSink, headers: HeaderMap): void {
    if (this.ended) {
      // the session ended while the body was arriving (DELETE, close, expiry): nothing would answer
      sink.respond(404, { 'Content-Type': 'application/json' }, errorBody(ErrorCode.ServerError, 'Session not found'));
      return;
    }
    this.#lastActive = Date.now();
    // a request reached the session: the store answered its lookup (shared), worth trying again
    this.storeDown = false;
    const id = message.id as Id | undefined;
    if (typeof message.method === 'string' && id !== undefined && id !== null) {
      const key = idKey(id);
      if (this.requests?.has(key)) {
        sink.respond(
          400,
          { 'Content-Type': 'application/json', ...headers },
          errorBody(ErrorCode.InvalidRequest, `Request id ${idText(id)} is already in use`),
        );
        return;
      }
      if (message.method === 'initialize') this.initKey = key;
      const s = this.newStream(
        this.ids.next(),
        'post',
        this.settings.replyMode,
        info.protocolVersion ?? this.settings.assumedVersion,
      );
      s.pending.add(key);
      info = new RequestInfo(info, s);
      (this.requests ??= new FewMap()).set(key, s);
      (this.postStreams ??= new FewMap()).set(s.id, s);
      this.attach(s, sink, headers, s.mode === 'sse');
    } else {
      sink.respond(202, headers);
    }
    this.checkIdle();
    this.deliver(message, info);
  }

  /**
   * Handler side: one POSTed JSON-RPC batch in a session whose negotiated revision has batches
   * (2025-03-26 basic/transports, "Sending Messages to the Server"): `messages` are its valid
   * entries, in order; `errors` the -32600 responses the handler made for its invalid ones. With
   * no request among them the POST gets 202 (or, when there are errors, 200 with their array).
   * Else one stream answers all its requests, as the reply mode says: one `application/json`
   * array of every response (errors first), or an SSE stream with one event per message; a
   * request whose id is already in flight, or repeated in the batch, gets -32600 in that array
   * and is not delivered. Each request's `info` is that of its stream, as for one POSTed request.
   */
  acceptBatch(
    messages: JSONRPCMessage[],
    errors: JSONRPCMessage[],
    info: MessageInfo,
    sink: ResponseSink,
    headers: HeaderMap,
  ): void {
    const answers = [...errors];
    const requests: JSONRPCMessage[] = [];
    const others: JSONRPCMessage[] = [];
    const keys = new Set<string>();
    for (const m of messages) {
      const id = m.id as Id | undefined;
      if (typeof m.method !== 'string' || id === undefined || id === null) {
        others.push(m);
        continue;
      }
      const key = idKey(id);
      if (this.requests?.has(key) || keys.has(key)) {
        answers.push({
          jsonrpc: '2.0',
          id,
          error: {
            code: ErrorCode.InvalidRequest,
            message: `Invalid Request: request id ${idText(id)} is already in use`,
          },
        });
        continue;
      }
      keys.add(key);
      requests.push(m);
    }
    const plain: MessageInfo = { ...info, signal: info.signal };
    if (requests.length === 0) {
      if (answers.length)
        sink.respond(200, { ...headers, 'Content-Type': 'application/json' }, serializeMessage(answers));
      else sink.respond(202, headers);
      for (const m of others) this.deliver(m, plain);
      return;
    }
    const s = this.newStream(
      this.ids.next(),
      'post',
      this.settings.replyMode,
      info.protocolVersion ?? this.settings.assumedVersion,
    );
    s.batch = answers;
    for (const key of keys) {
      s.pending.add(key);
      (this.requests ??= new FewMap()).set(key, s);
    }
    (this.postStreams ??= new FewMap()).set(s.id, s);
    this.attach(s, sink, headers, s.mode === 'sse');
    const streamInfo = new RequestInfo({ ...info, signal: undefined }, s);
    this.checkIdle();
    for (const m of messages) {
      if (requests.includes(m)) this.deliver(m, streamInfo);
      else if (others.includes(m)) this.deliver(m, plain);
    }
  }

  /**
   * Handler side: a GET. With `lastEventId` (and an event store) replays the missed events of
   * the stream that ID belongs to and continues that stream on this connection (400, nothing
   * replayed, when the ID is unknown, names a stream of another session, or its successors
   * were discarded); without, opens the standalone stream and sends the messages held for it.
   * Either way a connection the stream already had is ended and replaced (one connection per
   * stream; a client whose connection died unnoticed can always come back).
   */
  acceptGet(
    sink: ResponseSink,
    headers: HeaderMap,
    protocolVersion: string | undefined,
    lastEventId?: string,
  ): Promise<void> {
    const json = { 'Content-Type': 'application/json', ...headers };
    this.#lastActive = Date.now();
    this.storeDown = false;
    return this.enqueue(async () => {
      const store = this.settings.eventStore;
      if (lastEventId !== undefined && store) {
        // the events as JSON texts: the memory store's as they went out, another store's serialized
        const replay: Array<[string, string]> = [];
        const streamId =
          store instanceof MemoryEventStore
            ? store.replayTextsAfter(this.sessionId, lastEventId, (eventId, text) => void replay.push([eventId, text]))
            : await store.replayEventsAfter(
                this.sessionId,
                lastEventId,
                (eventId, m) => void replay.push([eventId, serializeMessage(m)]),
              );
        // a stream begun on another process of a shared deployment: followed from the store
        if (!this.ids.owns(lastEventId.slice(0, Math.max(0, lastEventId.lastIndexOf('_')))) && isShared(store)) {
          return this.follow(store, sink, headers, lastEventId);
        }
        // a replay never crosses sessions, whatever the store did
        if (streamId === undefined || !this.ids.owns(streamId)) {
          sink.respond(400, json, errorBody(ErrorCode.ServerError, 'Unknown or expired Last-Event-ID'));
          return;
        }
        const s = streamId === this.ids.standalone ? this.standalone : this.postStreams?.get(streamId);
        sink.open(200, sseHeaders(headers));
        for (const [eventId, text] of replay) sink.write(encodeEvent({ id: eventId, data: text }));
        if (s === this.standaloneStream) {
          this.standaloneCursor = lastEventId;
          for (const [eventId] of replay) this.noteStandalone(eventId);
        }
        if (s?.kept) s.replayed = new Set(replay.map(([eventId]) => eventId));
        if (!s || (s.done && !s.kept)) {
          sink.end();
          return;
        }
        if (s.done) {
          // finished, with events the store had not taken: they follow as it takes them (storeKept)
          this.detach(s, true);
          s.sink = sink;
          sink.onClose(() => this.lost(s, sink));
          return;
        }
        if (s === this.standaloneStream) {
          this.backlog = undefined;
          this.settings.standalone?.opened?.();
        }
        this.detach(s, true);
        s.protocolVersion = protocolVersion;
        await this.attachOpen(s, sink);
        return;
      }
      this.detach(this.standalone, true);
      this.standalone.protocolVersion = protocolVersion;
      this.attach(this.standalone, sink, headers, false);
      this.settings.standalone?.opened?.();
      // Held messages go before the priming event: its ID is then a cursor past all of them.
      const held = (this.settings.eventStore ? this.backlog?.slice() : this.backlog) ?? [];
      if (!this.settings.eventStore) this.backlog = undefined;
      await this.openStream(this.standalone, held);
    });
  }

  /**
   * Handler side: a standalone message another process of a shared deployment sent (stored
   * there with `eventId`) while this one holds the standalone stream's connection. Written
   * after the stream's events stored since the last one written (read from the shared event
   * store, so that the connection gets them in the store's order), unless already written;
   * nothing is done without a connection (the event waits in the store for a resumption).
   */
  /**
   * Handler side, shared deployments: a connection of another process took the standalone
   * stream later than this one's: ends this process's connection of it, as a second GET here
   * would (the client's newest GET is the one that stays).
   */
  dropStandalone(): Promise<void> {
    return this.enqueue(() => {
      const s = this.standaloneStream;
      if (!s?.sink) return;
      this.detach(s, true);
      this.checkIdle();
    });
  }

  deliverStandalone(eventId: string | undefined, message: JSONRPCMessage): Promise<void> {
    return this.enqueue(async () => {
      const s = this.standaloneStream;
      if (this.ended || !s?.sink || s.sink.closed) return;
      await this.writeStandalone(s, eventId, message);
    });
  }

  /** Writes `message` (stored as `eventId`) on the shared standalone stream `s`, after what the store holds before it. */
  private async writeStandalone(s: OutStream, eventId: string | undefined, message: JSONRPCMessage): Promise<void> {
    const store = this.settings.eventStore;
    if (store && eventId !== undefined && this.standaloneCursor !== undefined && !this.standaloneSeen?.has(eventId)) {
      try {
        await store.replayEventsAfter(this.sessionId, this.standaloneCursor, (id, m) => {
          if (!this.standaloneSeen?.has(id)) this.write(s, m, id);
        });
      } catch (e) {
        this.settings.onStoreError?.(e instanceof Error ? e : new Error(String(e)));
      }
    }
    if (eventId === undefined || !this.standaloneSeen?.has(eventId)) this.write(s, message, eventId);
  }

  /** Remembers that `eventId` went out on the shared standalone stream (the newest 256). */
  private noteStandalone(eventId: string): void {
    this.standaloneCursor = eventId;
    const seen = (this.standaloneSeen ??= new Set());
    seen.add(eventId);
    if (seen.size > 256) seen.delete(seen.values().next().value as string);
  }

  /**
   * Handler side: a message for this session that another process received (a response to a
   * request this process may have sent, a `notifications/cancelled`), delivered as if POSTed here.
   */
  deliverRemote(message: JSONRPCMessage): void {
    if (this.ended) return;
    this.deliver(message, { sessionId: this.sessionId, protocolVersion: this.protocolVersion, headers: {} });
  }

  /**
   * Stores one event of stream `s` (`text`: the message's JSON text when already made); when the
   * store fails, the event goes out without an ID. Answers at once when the store does.
   */
  private store(
    s: OutStream,
    message: JSONRPCMessage | null,
    text?: string,
  ): string | undefined | Promise<string | undefined> {
    const store = this.settings.eventStore;
    if (!store) return undefined;
    // not stored while the store fails, nor before the events of `s` kept earlier (order)
    if (this.storeDown || s.kept !== undefined) return undefined;
    let id: string | Promise<string>;
    try {
      // (a user's store gets the three arguments of the interface, nothing more; the memory
      // store is told the text, and when nothing was stored on a POST stream yet: its id is this
      // session object's own, unlike the standalone stream's, which the processes of a shared
      // deployment have in common)
      if (store instanceof MemoryEventStore) {
        id = store.storeEvent(this.sessionId, s.id, message, text, s.kind === 'post' && !s.stored);
        s.stored = true;
      } else id = store.storeEvent(this.sessionId, s.id, message);
    } catch (e) {
      this.storeFailed(e);
      return undefined;
    }
    if (typeof id === 'string') return id;
    return Promise.resolve(id).then(undefined, (e: unknown) => {
      this.storeFailed(e);
      return undefined;
    });
  }

  private storeFailed(e: unknown): void {
    this.storeDown = true;
    this.settings.onStoreError?.(e instanceof Error ? e : new Error(String(e)));
  }

  /**
   * Writes event `message` of POST stream `s` whose store gave no ID (it failed, or was skipped
   * while the store fails): on the live connection without an ID. What the client may not have
   * got is kept to be stored once the store answers (a response always: a connection that
   * resets after the write loses it), so that a client resuming the stream gets it.
   */
  private writeUnstored(s: OutStream, message: JSONRPCMessage, text?: string): void {
    const sink = s.sink;
    const delivered = this.write(s, message, undefined, text);
    if (s.kind === 'post' && this.settings.eventStore && (!delivered || isResponse(message)))
      this.keep(s, message, delivered ? sink : null);
  }

  /** Keeps `message` of `s` to store later, in order, retried every second for up to 5 minutes. */
  private keep(s: OutStream, message: JSONRPCMessage, deliveredOn: ResponseSink | null): void {
    (s.kept ??= []).push({ message, deliveredOn });
    const u = (this.unstored ??= { streams: new Set(), since: Date.now() });
    u.streams.add(s);
    if (!u.timer) {
      u.timer = setTimeout(() => void this.storeKept(), KEPT_RETRY_MS);
      u.timer.unref?.();
    }
  }

  /**
   * Stores the kept events of each stream in order, then a finished stream's end; runs beside
   * the send queue, so a store that still does not answer holds no send. A connection that
   * resumed the stream here meanwhile gets each stored event it has not had (a response, unless
   * written on that very connection; other events, unless written on any), with its ID, in
   * queue order after its replay; it ends after a finished stream's last. Gives up after
   * {@link KEPT_FOR_MS}.
   */
  private async storeKept(): Promise<void> {
    const u = this.unstored;
    const store = this.settings.eventStore;
    if (!u || !store) return;
    u.timer = undefined;
    if (this.ended || Date.now() - u.since > KEPT_FOR_MS) {
      if (!this.ended)
        this.settings.onStoreError?.(new Error(`events of ${u.streams.size} stream(s) could not be stored; dropped`));
      for (const s of u.streams) s.kept = undefined;
      this.unstored = undefined;
      return;
    }
    try {
      for (const s of [...u.streams]) {
        while (s.kept?.length) {
          const { message, deliveredOn } = s.kept[0];
          const id = await store.storeEvent(this.sessionId, s.id, message);
          s.kept.shift();
          this.storeDown = false;
          const owed = deliveredOn === null || (isResponse(message) && deliveredOn !== undefined);
          if (owed)
            void this.enqueue(() => {
              if (s.sink && s.sink !== deliveredOn && !s.replayed?.has(id)) this.write(s, message, id);
            });
        }
        s.kept = undefined;
        s.replayed = undefined;
        u.streams.delete(s);
        if (s.done) {
          await store.streamFinished?.(this.sessionId, s.id);
          void this.enqueue(() => {
            if (s.kept) return;
            if (s.sink) this.detach(s, true);
            if (this.postStreams?.get(s.id) === s) this.dropPostStream(s);
          });
        }
      }
    } catch (e) {
      this.storeFailed(e);
    }
    if (u.streams.size === 0) {
      this.unstored = undefined;
      return;
    }
    u.timer = setTimeout(() => void this.storeKept(), KEPT_RETRY_MS);
    u.timer.unref?.();
  }

  /**
   * Serves a GET with `Last-Event-ID` of a stream this process does not hold: the events after
   * it, then every event any process stores on it, until it finishes (the connection ends),
   * its owner process is lost (each request it left unanswered gets error -32000 on this
   * connection, then it ends) or the client goes away.
   */
  private async follow(
    store: SharedEventStore,
    sink: ResponseSink,
    headers: HeaderMap,
    lastEventId: string,
  ): Promise<void> {
    const json = { 'Content-Type': 'application/json', ...headers };
    const abort = new AbortController();
    let opened = false;
    const write = (eventId: string, m: JSONRPCMessage): void => {
      if (!opened) {
        opened = true;
        sink.open(200, sseHeaders(headers));
      }
      sink.write(encodeEvent({ id: eventId, data: serializeMessage(m) }));
    };
    let followed: Awaited<ReturnType<SharedEventStore['follow']>>;
    try {
      followed = await store.follow(this.sessionId, lastEventId, write, abort.signal);
    } catch (e) {
      this.settings.onStoreError?.(e instanceof Error ? e : new Error(String(e)));
      sink.respond(
        503,
        { ...json, 'Retry-After': '1' },
        errorBody(ErrorCode.ServerError, 'Service Unavailable: the event store cannot be reached'),
      );
      return;
    }
    if (!followed) {
      sink.respond(400, json, errorBody(ErrorCode.ServerError, 'Unknown or expired Last-Event-ID'));
      return;
    }
    if (!opened) {
      opened = true;
      sink.open(200, sseHeaders(headers));
    }
    this.followers++;
    const timer =
      this.settings.keepAliveMs > 0
        ? setInterval(() => sink.write(encodeComment()), this.settings.keepAliveMs)
        : undefined;
    timer?.unref?.();
    sink.onClose(() => abort.abort());
    const stop = (): void => abort.abort();
    (this.followStops ??= new Set()).add(stop);
    void followed.ended.then((end) => {
      this.followers--;
      this.checkIdle();
      this.followStops?.delete(stop);
      if (timer) clearInterval(timer);
      this.#lastActive = Date.now();
      if (end.reason === 'owner-lost' && !sink.closed) {
        for (const id of end.pending) {
          sink.write(
            encodeEvent({
              data: serializeMessage({
                jsonrpc: '2.0',
                id,
                error: {
                  code: ErrorCode.ServerError,
                  message: 'The server process handling this request ended before answering it',
                },
              }),
            }),
          );
        }
      }
      if (!sink.closed) sink.end();
    });
  }

  private deliver(message: JSONRPCMessage, info: MessageInfo): void {
    if (this.events) this.events.onMessage(message, info);
    else (this.held ??= []).push([message, info]);
  }

  /** Runs `task` after the tasks queued before it; the queue is dropped once it drains. */
  private enqueue(task: () => void | Promise<void>): Promise<void> {
    return this.chain((this.queue ?? Promise.resolve()).then(task));
  }

  /** Makes `run` (begun after everything queued so far) the tail of the queue. */
  private chain(run: Promise<void>): Promise<void> {
    const tail: Promise<void> = run.then(
      () => this.drained(tail),
      () => this.drained(tail),
    );
    this.queue = tail;
    this.checkIdle();
    return run;
  }

  private drained(tail: Promise<void>): void {
    if (this.queue === tail) this.queue = undefined;
    this.checkIdle();
  }

  private newStream(
    id: string,
    kind: OutStream['kind'],
    mode: ReplyMode,
    protocolVersion: string | undefined,
  ): OutStream {
    return {
      id,
      kind,
      sink: null,
      headers: {},
      mode,
      pending: new FewSet(),
      protocolVersion,
      resumable: false,
      done: false,
      stored: false,
    };
  }

  /** Binds a connection to a stream; opens it now when `openNow` (else on first SSE message). */
  private attach(s: OutStream, sink: ResponseSink, headers: HeaderMap, openNow: boolean): void {
    s.sink = sink;
    s.headers = headers;
    sink.onClose(() => this.lost(s, sink));
    if (!openNow) return;
    // nothing queued: opened now (at once when the event store answers at once), else in turn
    if (this.queue !== undefined) {
      void this.enqueue(() => this.openStream(s));
      return;
    }
    const opening = this.openStream(s);
    if (opening) void this.chain(opening);
  }

  /** Binds an already opened (resumed) connection to a stream. */
  private async attachOpen(s: OutStream, sink: ResponseSink): Promise<void> {
    s.sink = sink;
    sink.onClose(() => this.lost(s, sink));
    await this.prime(s);
    this.keepAlive(s);
  }

  /**
   * Sends SSE status and headers on the stream's connection, `held`, then the priming event.
   * Done at once (undefined) unless the event store makes it wait.
   */
  private openStream(
    s: OutStream,
    held: Array<{ eventId?: string; message: JSONRPCMessage }> = [],
  ): Promise<void> | undefined {
    const sink = s.sink;
    if (!sink || sink.closed || sink.started) return undefined;
    if (held.length === 0) {
      // the priming event's ID is made before the headers go, so that both go out together:
      // a client that got the headers holds a cursor (even if this process dies right after)
      const id = this.primingId(s);
      if (isThenable(id)) return id.then((v) => this.openPrimed(s, sink, v));
      this.openPrimed(s, sink, id);
      return undefined;
    }
    return this.openHeld(s, sink, held);
  }

  private openPrimed(s: OutStream, sink: ResponseSink, id: string | undefined): void {
    if (s.sink !== sink || sink.closed || sink.started) return;
    // keep-alive comments once the stream is still open at the end of this tick (a reply that
    // ends within it needs no timer), checked by the sink's own end-of-tick call
    sink.open(200, this.sseHeaders(s.headers), this.settings.keepAliveMs > 0 ? this.keepAliveIfOpen : undefined, s);
    if (id !== undefined && sink.write(encodeEvent({ id, data: '', retry: this.settings.retryMs }))) {
      s.resumable = true;
      if (s.kind === 'standalone' && this.settings.standalone) this.noteStandalone(id);
    }
  }

  private async openHeld(
    s: OutStream,
    sink: ResponseSink,
    held: Array<{ eventId?: string; message: JSONRPCMessage }>,
  ): Promise<void> {
    sink.open(200, this.sseHeaders(s.headers));
    for (const { eventId, message } of held) this.write(s, message, eventId);
    await this.prime(s);
    this.keepAlive(s);
  }

  /** {@link sseHeaders} of `headers`, made once for the session's own (the same object on every request). */
  private sseHeaders(headers: HeaderMap): HeaderMap {
    const cached = this.sseHeaderCache;
    if (cached?.from === headers) return cached.headers;
    const made = sseHeaders(headers);
    this.sseHeaderCache = { from: headers, headers: made };
    return made;
  }

  /**
   * Priming event: an event ID with empty data, so that the client can resume even before the
   * first message. Only for the versions whose table says so (`table.http.primesStreams`:
   * 2025-11-25 basic/transports; older clients reject empty data).
   */
  private async prime(s: OutStream): Promise<void> {
    const id = await this.primingId(s);
    if (id !== undefined && s.sink?.write(encodeEvent({ id, data: '', retry: this.settings.retryMs }))) {
      s.resumable = true;
      if (s.kind === 'standalone' && this.settings.standalone) this.noteStandalone(id);
    }
  }

  /** Stores the priming event of `s` and returns its ID (undefined: no priming for this stream); at once when the store answers at once. */
  private primingId(s: OutStream): string | undefined | Promise<string | undefined> {
    const store = this.settings.eventStore;
    if (!store || !s.sink || s.protocolVersion === undefined || !this.settings.priming?.has(s.protocolVersion))
      return undefined;
    if (s.kind === 'post' && isShared(store)) return this.sharedPrimingId(store, s);
    return this.store(s, null);
  }

  /** {@link primingId} of a POST stream of a shared deployment: announced first. */
  private async sharedPrimingId(store: SharedEventStore, s: OutStream): Promise<string | undefined> {
    // a follower elsewhere learns from this which requests the stream owes answers to
    const ids = [...s.pending].map((key) =>
      key.startsWith('number:')
        ? Number(key.slice(7))
        : key.startsWith('bigint:')
          ? BigInt(key.slice(7))
          : key.slice(key.indexOf(':') + 1),
    );
    try {
      await store.streamOpened(this.sessionId, s.id, ids);
    } catch (e) {
      this.settings.onStoreError?.(e instanceof Error ? e : new Error(String(e)));
      return undefined;
    }
    return this.store(s, null);
  }

  /** Starts the keep-alive comments of `s` when it is still open (one function per session, made with its first stream, not a closure per stream). */
  private get keepAliveIfOpen(): (s: OutStream) => void {
    return (this.#keepAliveIfOpen ??= (open: OutStream) => {
      if (open.sink && !open.sink.closed) this.keepAlive(open);
    });
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
    this.checkIdle();
    if (s.kind === 'post' && !s.done && !(s.resumable && this.settings.eventStore)) {
      // Nobody can resume this stream: its messages have nowhere to go.
      s.done = true;
      this.forget(s);
      abortStream(s, new Error('HTTP connection closed'));
    }
  }

  private detach(s: OutStream, end: boolean): void {
    if (s.sink) this.#lastActive = Date.now();
    if (s.timer) clearInterval(s.timer);
    s.timer = undefined;
    const sink = s.sink;
    s.sink = null;
    if (end && sink) {
      if (sink.started) sink.end();
      else sink.respond(404, {}, errorBody(ErrorCode.ServerError, 'Session ended'));
    }
  }

  private async route(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.ended) throw new Error(`Session ${this.sessionId} has ended`);
    const response = isResponse(message);
    let s: OutStream | undefined;
    /** A response's serialised text. */
    let text: string | undefined;
    if (response) {
      const key = idKey(message.id as Id);
      s = this.requests?.get(key);
      if (!s) throw new Error(`No open request with id ${idText(message.id)} in session ${this.sessionId}`);
      // serialised first: a result JSON cannot express throws with the request still open
      text = serializeMessage(message);
      if (key === this.initKey) {
        this.learnVersion(message);
        if (this.settings.onNegotiated && !('error' in message)) {
          try {
            await this.settings.onNegotiated(message);
          } catch (e) {
            message = {
              jsonrpc: '2.0',
              id: message.id,
              error: { code: ErrorCode.ServerError, message: `Session could not be recorded: ${(e as Error).message}` },
            };
            text = undefined;
          }
        }
      }
      this.#lastActive = Date.now();
      s.pending.delete(key);
      this.requests!.delete(key);
      if (this.requests!.size === 0) this.requests = undefined;
    } else if (options?.relatedRequestId !== undefined) {
      s = this.requests?.get(idKey(options.relatedRequestId));
      if (s && (s.mode === 'json' || s.done)) s = undefined;
    }
    s ??= this.standalone;

    if (s.kind === 'post' && s.batch) await this.routeBatch(s, message, response);
    else if (s.kind === 'post') {
      if (s.mode === 'auto') s.mode = response && s.pending.size === 0 && !s.sink?.started ? 'json' : 'sse';
      if (s.mode === 'json') this.replyJson(s, message, text);
      else if (!s.done) {
        await this.openStream(s);
        text ??= serializeMessage(message);
        const eventId = await this.store(s, message, text);
        if (eventId === undefined) this.writeUnstored(s, message, text);
        else this.write(s, message, eventId, text);
        if (s.pending.size === 0) {
          s.done = true;
          this.forget(s);
          this.detach(s, true);
        }
      }
    } else {
      const eventId = await this.store(s, message);
      const live = s.sink !== null && !s.sink.closed;
      const shared = this.settings.standalone;
      if (live && shared) await this.writeStandalone(s, eventId, message);
      else if (live) this.write(s, message, eventId);
      // not held here: to the process whose connection holds it, if any
      else if (shared) shared.relay(eventId, message);
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

  /**
   * A message for a batch's stream: responses are collected while the stream may still answer
   * as one JSON array (mode `json`, or `auto` until something else goes first); else the stream
   * is SSE, the collected responses go out first, then `message`. It ends once every request
   * of the batch has its response.
   */
  private async routeBatch(s: OutStream, message: JSONRPCMessage, response: boolean): Promise<void> {
    if (s.done) return;
    const batch = s.batch!;
    if (response && s.mode !== 'sse' && !s.sink?.started) {
      batch.push(message);
      if (s.pending.size === 0) this.replyJson(s, batch.splice(0));
      return;
    }
    s.mode = 'sse';
    await this.openStream(s);
    for (const m of [...batch.splice(0), message]) {
      const eventId = await this.store(s, m);
      if (eventId === undefined) this.writeUnstored(s, m);
      else this.write(s, m, eventId);
    }
    if (s.pending.size === 0) {
      s.done = true;
      this.forget(s);
      this.detach(s, true);
    }
  }

  /** A finished POST stream: nothing will be resumed or sent on it. */
  private forget(s: OutStream): void {
    // (with events kept to store, a resumption here gets them: forgotten once they are stored)
    if (s.kept === undefined) this.dropPostStream(s);
    const store = this.settings.eventStore;
    // a JSON reply stored no events; with events kept to store, their store ends it after them
    if (s.mode !== 'json' && store?.streamFinished && s.kept === undefined) {
      // a store that fails here only keeps the stream longer
      try {
        const done = store.streamFinished(this.sessionId, s.id);
        if (isThenable(done)) done.then(undefined, () => undefined);
      } catch {
        /* as above */
      }
    }
  }

  private dropPostStream(s: OutStream): void {
    this.postStreams?.delete(s.id);
    if (this.postStreams?.size === 0) this.postStreams = undefined;
  }

  /** Writes `message` on the connection of `s` as one event (`text`: its `serializeMessage` text, when made already). */
  private write(s: OutStream, message: JSONRPCMessage, eventId: string | undefined, text?: string): boolean {
    if (!s.sink) return false;
    if (!s.sink.write(encodeJsonEvent(eventId, text ?? serializeMessage(message)))) return false;
    if (eventId !== undefined) {
      s.resumable = true;
      if (s.kind === 'standalone' && this.settings.standalone) this.noteStandalone(eventId);
    }
    return true;
  }

  private learnVersion(message: JSONRPCMessage): void {
    const result = message.result as { protocolVersion?: unknown } | undefined;
    if (typeof result?.protocolVersion === 'string') this.protocolVersion = result.protocolVersion;
  }
}
