/**
 * Resumption in a Streamable HTTP server session (./session.ts; 2025-11-25 basic/transports,
 * "Resumability and Redelivery", "Listening for Messages from the Server"): a GET, which either
 * replays the events after its `Last-Event-ID` and continues that stream, follows a stream another
 * process of a shared deployment holds, or opens the standalone stream with the messages held for
 * it; and the standalone stream a shared deployment's processes have in common (one connection
 * across the deployment, each message written once, in the store's order).
 */
import { encodeComment, encodeJsonEvent } from '../../../codec/sse.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { errorResponse, serializeMessage } from '../../../jsonrpc/message.js';
import type { JSONRPCMessage } from '../../../jsonrpc/transport.js';
import { MemoryEventStore, type SharedEventStore } from './event-store.js';
import type { HeaderMap, ResponseSink } from '../io/exchange.js';
import { errorBody } from './settings.js';
import { isShared } from './session-state.js';
import { SessionStreams } from './session-streams.js';
import { type OutStream, sseHeaders } from './stream.js';

/** A Last-Event-ID that names nothing to replay in this session: `unknown`'s answer, else 400 (with the session's `headers`). */
function unknownEventId(sink: ResponseSink, headers: HeaderMap, unknown: (() => void) | undefined): void {
  if (unknown) return unknown();
  sink.respond(
    400,
    { 'Content-Type': 'application/json', ...headers },
    errorBody(ErrorCode.ServerError, 'Unknown or expired Last-Event-ID'),
  );
}

/** A session's GETs and its shared standalone stream (see the module docs). */
export class SessionResumption extends SessionStreams {
  /**
   * A GET: resumes the stream of `lastEventId`, else opens the standalone stream. `unknown`
   * answers instead of 400 "Unknown or expired Last-Event-ID" when that event is not (or no
   * longer) replayable (a re-send of a claimed request: ./session-replay.ts).
   */
  acceptGet(
    sink: ResponseSink,
    headers: HeaderMap,
    protocolVersion: string | undefined,
    lastEventId?: string,
    unknown?: () => void,
  ): Promise<void> {
    this.lastActiveAt = Date.now();
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
          return this.follow(store, sink, headers, lastEventId, unknown);
        }
        // a replay never crosses sessions, whatever the store did
        if (streamId === undefined || !this.ids.owns(streamId)) return unknownEventId(sink, headers, unknown);
        const s = streamId === this.ids.standalone ? this.standalone : this.postStreams?.get(streamId);
        sink.open(200, sseHeaders(headers));
        for (const [eventId, text] of replay) sink.write(encodeJsonEvent(eventId, text));
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
   * Reports `e` (settings.onStoreError) and answers 503 with `Retry-After: 1` and a -32000 body:
   * the event store did not answer, so nothing was read or dispatched and the client may retry
   * (with the session's `headers`).
   */
  protected storeUnavailable(sink: ResponseSink, headers: HeaderMap, e: unknown): void {
    this.storeError(e);
    sink.respond(
      503,
      { 'Content-Type': 'application/json', ...headers, 'Retry-After': '1' },
      errorBody(ErrorCode.ServerError, 'Service Unavailable: the event store cannot be reached'),
    );
  }

  /**
   * Serves a GET with `Last-Event-ID` of a stream this process does not hold: the events after
   * it, then every event any process stores on it, until it finishes (the connection ends),
   * its owner process is lost (each request it left unanswered gets error -32000 on this
   * connection, then it ends) or the client goes away.
   */
  protected async follow(
    store: SharedEventStore,
    sink: ResponseSink,
    headers: HeaderMap,
    lastEventId: string,
    unknown?: () => void,
  ): Promise<void> {
    const abort = new AbortController();
    let opened = false;
    const open = (): void => {
      if (opened) return;
      opened = true;
      sink.open(200, sseHeaders(headers));
    };
    const write = (eventId: string, m: JSONRPCMessage): void => {
      open();
      sink.write(encodeJsonEvent(eventId, serializeMessage(m)));
    };
    let followed: Awaited<ReturnType<SharedEventStore['follow']>>;
    try {
      followed = await store.follow(this.sessionId, lastEventId, write, abort.signal);
    } catch (e) {
      this.storeUnavailable(sink, headers, e);
      return;
    }
    if (!followed) return unknownEventId(sink, headers, unknown);
    open();
    this.followers++;
    const timer =
      this.settings.keepAliveMs > 0
        ? setInterval(() => sink.write(encodeComment()), this.settings.keepAliveMs)
        : undefined;
    timer?.unref?.();
    const stop = (): void => abort.abort();
    sink.onClose(stop);
    (this.followStops ??= new Set()).add(stop);
    void followed.ended.then((end) => {
      this.followers--;
      this.checkIdle();
      this.followStops?.delete(stop);
      if (timer) clearInterval(timer);
      this.lastActiveAt = Date.now();
      if (end.reason === 'owner-lost' && !sink.closed) {
        for (const id of end.pending) {
          sink.write(
            encodeJsonEvent(
              undefined,
              serializeMessage(
                errorResponse(
                  id,
                  ErrorCode.ServerError,
                  'The server process handling this request ended before answering it',
                ),
              ),
            ),
          );
        }
      }
      if (!sink.closed) sink.end();
    });
  }

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
  protected async writeStandalone(s: OutStream, eventId: string | undefined, message: JSONRPCMessage): Promise<void> {
    const store = this.settings.eventStore;
    if (store && eventId !== undefined && this.standaloneCursor !== undefined && !this.standaloneSeen?.has(eventId)) {
      try {
        await store.replayEventsAfter(this.sessionId, this.standaloneCursor, (id, m) => {
          if (!this.standaloneSeen?.has(id)) this.write(s, m, id);
        });
      } catch (e) {
        this.storeError(e);
      }
    }
    if (eventId === undefined || !this.standaloneSeen?.has(eventId)) this.write(s, message, eventId);
  }
}
