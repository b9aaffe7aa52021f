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
import type { HeaderMap, ResponseSink } from '../io/exchange.js';
import type {
  JSONRPCMessage,
  MessageInfo,
  SendOptions,
  Transport,
  TransportEvents,
} from '../../../jsonrpc/transport.js';
import type { SessionSettings } from './settings.js';
import type { Id } from './session-state.js';
import { SessionRouter } from './session-routing.js';

export type { ReplyMode } from './stream.js';
export { errorBody, type SessionSettings } from './settings.js';

/**
 * The server-side {@link Transport} of one session. Created by the HTTP handler when an
 * `initialize` request arrives and handed to `onSession`; the engine then calls `start`.
 * Inbound messages that arrive before `start` are held and delivered by it.
 *
 * Its parts: the session's state (./session-state.ts), stream bookkeeping
 * (./session-streams.ts), resumption and the shared standalone stream (./session-resumption.ts),
 * request routing (./session-routing.ts).
 */
export class HttpServerSession implements Transport {
  readonly sessionId: string;
  /** Handshake revisions only (a session begins with `initialize`): a stateless revision's server session refuses it. */
  get lifecycle(): 'handshake' {
    return 'handshake';
  }
  /** The negotiated protocol version, taken from the `initialize` result; undefined before. */
  protocolVersion: string | undefined;
  private readonly core: SessionRouter;
  #responseHeaders: Readonly<HeaderMap> | undefined;

  constructor(sessionId: string, settings: SessionSettings, onEnd: (session: HttpServerSession) => void) {
    this.sessionId = sessionId;
    this.core = new SessionRouter(sessionId, settings, this, () => onEnd(this));
  }

  /**
   * Shared deployments (`StreamableHttpOptions.shared`): what the ids of the engine's requests to
   * the client begin with (`<process id>.<n>.`, n counting this process's session objects), so
   * that they are unique in the session across the processes serving it and across the session
   * objects one process makes of it: a client's response is published to every process of the
   * session, and only the request it answers may take it. Undefined (ids 0, 1, …) otherwise.
   */
  get requestIdPrefix(): string | undefined {
    return this.core.settings.requestIdPrefix;
  }

  /** The headers every response of this session carries (`Mcp-Session-Id`); one object, not to be changed. */
  get responseHeaders(): Readonly<HeaderMap> {
    return (this.#responseHeaders ??= Object.freeze({ 'Mcp-Session-Id': this.sessionId }));
  }

  /** The id of the standalone (GET) stream (a shared deployment records it with the session). */
  get standaloneStreamId(): string {
    return this.core.ids.standalone;
  }

  /**
   * When the session last did something (ms since the epoch, as `Date.now()`): a request for
   * it arrived or its body was read, a response went out, or a connection of one of its
   * streams ended.
   */
  get lastActive(): number {
    return this.core.lastActiveAt;
  }

  /**
   * Handler side: a request carrying this session's id arrived (its body may still be on its
   * way), which counts as activity; `now`: the time it arrived (ms, as `Date.now()`), when read already.
   */
  touch(now: number = Date.now()): void {
    this.core.lastActiveAt = now;
  }

  /**
   * Handler side: a POST body for this session is being read (`true`: the request was just
   * {@link touch}ed) or was read (`false`, which counts as activity). A session reading a body
   * is not idle.
   */
  reading(started: boolean): void {
    this.core.reading(started);
  }

  /**
   * True when nothing is under way: no request awaits its response, no POST body is being
   * read, no stream has a connection, no send is queued. Only an idle session may expire or
   * be evicted.
   */
  get idle(): boolean {
    return this.core.idle;
  }

  /** False once the session ended (DELETE, `close()`, or a failed `initialize`). */
  get active(): boolean {
    return !this.core.ended;
  }

  async start(events: TransportEvents): Promise<void> {
    return this.core.start(events);
  }

  /**
   * Sends one message on the stream chosen as described in the module docs. A JSON reply
   * with no send queued before it is written at once and `SENT` (runtime/jsonrpc/sent.ts) returned.
   * @throws Error when the session ended, or for a response to a request id this session
   * never received (or already answered).
   */
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    return this.core.send(message, options);
  }

  /**
   * Ends the session: all its streams end, later requests with its id get 404. Idempotent.
   * With `reason` (e.g. "server shutting down") requests awaiting their response on an open
   * POST stream get error -32000 `reason` there (see `answerPending`), not a bare 404 or end.
   */
  async close(reason?: string): Promise<void> {
    return this.core.close(reason);
  }

  /**
   * The engine sends no response for request `id` (the client cancelled it): the request stops
   * awaiting one, and a POST stream left with nothing to wait for ends: as an empty
   * `text/event-stream` when nothing was sent on it yet (a request's POST is answered with JSON
   * or SSE, 2025-11-25 basic/transports, POST rule 5), else its SSE body ends. Resolves after
   * queued sends.
   */
  unanswered(id: Id): Promise<void> {
    return this.core.unanswered(id);
  }

  /**
   * Closes the HTTP connection of a stream without ending the stream (the "polling" pattern of
   * 2025-11-25 basic/transports, POST rule 6): sends `retry` when configured, then ends the
   * response. The client resumes with GET and `Last-Event-ID`. Targets the stream of
   * `relatedRequestId`, or the standalone stream when omitted. Resolves after queued sends.
   */
  closeSseConnection(relatedRequestId?: Id): Promise<void> {
    return this.core.closeSseConnection(relatedRequestId);
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
    this.core.acceptPost(message, info, sink, headers);
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
    this.core.acceptBatch(messages, errors, info, sink, headers);
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
    return this.core.acceptGet(sink, headers, protocolVersion, lastEventId);
  }

  /**
   * Handler side, shared deployments: a connection of another process took the standalone
   * stream later than this one's: ends this process's connection of it, as a second GET here
   * would (the client's newest GET is the one that stays).
   */
  dropStandalone(): Promise<void> {
    return this.core.dropStandalone();
  }

  /**
   * Handler side: a standalone message another process of a shared deployment sent (stored
   * there with `eventId`) while this one holds the standalone stream's connection. Written
   * after the stream's events stored since the last one written (read from the shared event
   * store, so that the connection gets them in the store's order), unless already written;
   * nothing is done without a connection (the event waits in the store for a resumption).
   */
  deliverStandalone(eventId: string | undefined, message: JSONRPCMessage): Promise<void> {
    return this.core.deliverStandalone(eventId, message);
  }

  /**
   * Handler side: a message for this session that another process received (a response to a
   * request this process may have sent, a `notifications/cancelled`), delivered as if POSTed here.
   */
  deliverRemote(message: JSONRPCMessage): void {
    this.core.deliverRemote(message);
  }
}
