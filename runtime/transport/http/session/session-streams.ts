// size: a session's streams, with the events a failing store did not take, kept (bounded) to store later
/**
 * Stream bookkeeping of a Streamable HTTP server session (./session.ts; 2025-11-25
 * basic/transports, "Sending Messages to the Server"): making a session's streams, binding a
 * connection to one and opening it as SSE (headers, held messages, the priming event), keep-alive
 * comments, writing and storing events (and keeping those a failing store did not take, to store
 * them once it answers), a JSON reply, and what happens when a connection is lost or a stream is
 * finished.
 */
import { encodeComment, encodeEvent, encodeJsonEvent } from '../../../codec/sse.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { FewSet } from '../../../jsonrpc/few.js';
import { serializeMessage } from '../../../jsonrpc/message.js';
import type { JSONRPCMessage } from '../../../jsonrpc/transport.js';
import { type EventStore, MemoryEventStore, type SharedEventStore } from './event-store.js';
import type { HeaderMap, ResponseSink } from '../io/exchange.js';
import { errorBody } from './settings.js';
import { SessionState, isShared, isThenable } from './session-state.js';
import { type OutStream, type ReplyMode, abortStream, idOfKey, isResponse, sseHeaders } from './stream.js';

/** How often events the store did not take are offered to it again, ms. */
const KEPT_RETRY_MS = 1000;
/** How long such events are kept before they are dropped, ms (a stream's events live 5 minutes in the Redis store). */
const KEPT_FOR_MS = 300_000;
/**
 * Most such events a session keeps (all its streams), and most characters of their JSON texts;
 * past either, the oldest notification is dropped (the oldest response when only responses are
 * kept), so a long stall holds bounded memory per session whatever its calls send.
 */
export const KEPT_MAX_EVENTS = 1000;
export const KEPT_MAX_CHARS = 8 * 1024 * 1024;

/** A session's streams and their connections (see the module docs). */
export class SessionStreams extends SessionState {
  /** The SSE headers last made, and the headers they were made from. */
  protected sseHeaderCache: { from: HeaderMap; headers: HeaderMap } | undefined;
  /** Starts the keep-alive comments of a stream still open at the end of the tick that opened it. */
  protected keepAliveIfOpenFn: ((s: OutStream) => void) | undefined;
  /**
   * An event store call failed (a Redis that stalls answers each command only after its
   * timeout): until a new request reaches the session or a kept event is stored, events are
   * not stored, so a stall holds the session's sends for one store timeout, not for its length.
   */
  protected storeDown = false;
  /** Messages whose store call failed, and may have stored them (see {@link sentWithoutId}). */
  protected storeLost: WeakSet<JSONRPCMessage> | undefined;
  /** POST streams with events kept to store later (see {@link keep}), and when that began (ms). */
  protected unstored:
    | {
        streams: Set<OutStream>;
        since: number;
        timer?: ReturnType<typeof setTimeout>;
        /** Events kept in all, the characters of their JSON texts, and how many the bounds dropped. */
        count: number;
        chars: number;
        dropped: number;
        /** A pass of {@link storeKept} is under way (one at a time). */
        storing?: boolean;
      }
    | undefined;

  /** The stream of the session's GET (created on first use). */
  protected get standalone(): OutStream {
    return (this.standaloneStream ??= this.newStream(
      this.ids.standalone,
      'standalone',
      'sse',
      this.settings.assumedVersion,
    ));
  }

  protected newStream(
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
  protected attach(s: OutStream, sink: ResponseSink, headers: HeaderMap, openNow: boolean): void {
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
  protected async attachOpen(s: OutStream, sink: ResponseSink): Promise<void> {
    s.sink = sink;
    sink.onClose(() => this.lost(s, sink));
    await this.prime(s);
    this.keepAlive(s);
  }

  /**
   * Sends SSE status and headers on the stream's connection, `held`, then the priming event.
   * Done at once (undefined) unless the event store makes it wait.
   */
  protected openStream(
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

  protected openPrimed(s: OutStream, sink: ResponseSink, id: string | undefined): void {
    if (s.sink !== sink || sink.closed || sink.started) return;
    // keep-alive comments once the stream is still open at the end of this tick (a reply that
    // ends within it needs no timer), checked by the sink's own end-of-tick call
    sink.open(200, this.sseHeaders(s.headers), this.settings.keepAliveMs > 0 ? this.keepAliveIfOpen : undefined, s);
    this.writePriming(s, sink, id);
  }

  /** Writes priming event `id` of `s` on `sink` (none: nothing). */
  protected writePriming(s: OutStream, sink: ResponseSink | null, id: string | undefined): void {
    if (id !== undefined && sink?.write(encodeEvent({ id, data: '', retry: this.settings.retryMs })))
      this.wentOut(s, id);
  }

  /** Event `eventId` of `s` went out: the stream is resumable (the shared standalone stream notes the ID). */
  protected wentOut(s: OutStream, eventId: string): void {
    s.resumable = true;
    if (s.kind === 'standalone' && this.settings.standalone) this.noteStandalone(eventId);
  }

  protected async openHeld(
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
  protected sseHeaders(headers: HeaderMap): HeaderMap {
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
  protected async prime(s: OutStream): Promise<void> {
    const id = await this.primingId(s);
    this.writePriming(s, s.sink, id);
  }

  /** Stores the priming event of `s` and returns its ID (undefined: no priming for this stream); at once when the store answers at once. */
  protected primingId(s: OutStream): string | undefined | Promise<string | undefined> {
    const store = this.settings.eventStore;
    if (!store || !s.sink || s.protocolVersion === undefined || !this.settings.priming?.has(s.protocolVersion))
      return undefined;
    if (s.kind === 'post' && isShared(store)) return this.sharedPrimingId(store, s);
    return this.store(s, null);
  }

  /** {@link primingId} of a POST stream of a shared deployment: announced first. */
  protected async sharedPrimingId(store: SharedEventStore, s: OutStream): Promise<string | undefined> {
    // a follower elsewhere learns from this which requests the stream owes answers to
    const ids = [...s.pending].map(idOfKey);
    try {
      await store.streamOpened(this.sessionId, s.id, ids);
    } catch (e) {
      this.storeError(e);
      return undefined;
    }
    return this.store(s, null);
  }

  /** Starts the keep-alive comments of `s` when it is still open (one function per session, made with its first stream, not a closure per stream). */
  protected get keepAliveIfOpen(): (s: OutStream) => void {
    return (this.keepAliveIfOpenFn ??= (open: OutStream) => {
      if (open.sink && !open.sink.closed) this.keepAlive(open);
    });
  }

  protected keepAlive(s: OutStream): void {
    if (this.settings.keepAliveMs <= 0 || s.timer) return;
    s.timer = setInterval(() => s.sink?.write(encodeComment()), this.settings.keepAliveMs);
    s.timer.unref?.();
  }

  /** The connection of `s` went away (client side, or ended by us). */
  protected lost(s: OutStream, sink: ResponseSink): void {
    if (s.sink !== sink) return;
    this.detach(s, false);
    this.checkIdle();
    if (s.kind === 'post' && !s.done && !(s.resumable && this.settings.eventStore)) {
      // Nobody can resume this stream: its messages have nowhere to go.
      this.retire(s);
      abortStream(s, new Error('HTTP connection closed'));
    }
  }

  protected detach(s: OutStream, end: boolean): void {
    if (s.sink) this.lastActiveAt = Date.now();
    if (s.timer) clearInterval(s.timer);
    s.timer = undefined;
    const sink = s.sink;
    s.sink = null;
    if (end && sink) {
      if (sink.started) sink.end();
      else sink.respond(404, {}, errorBody(ErrorCode.ServerError, 'Session ended'));
    }
  }

  /** A finished POST stream: nothing will be resumed or sent on it. */
  protected forget(s: OutStream): void {
    // (with events kept to store, a resumption here gets them: forgotten, and ended in the store,
    // once they are stored)
    if (s.kept !== undefined) return;
    this.dropPostStream(s);
    // a JSON reply stored no events
    if (s.mode !== 'json') this.finished(s);
  }

  /** Tells the event store, if any, that stream `s` is finished (one that fails here only keeps it longer). */
  protected finished(s: OutStream): void {
    try {
      const done = this.settings.eventStore?.streamFinished?.(this.sessionId, s.id);
      if (isThenable(done)) done.then(undefined, () => undefined);
    } catch {
      /* as above */
    }
  }

  /** Writes `message` on the connection of `s` as one event (`text`: its `serializeMessage` text, when made already). */
  protected write(s: OutStream, message: JSONRPCMessage, eventId: string | undefined, text?: string): boolean {
    if (!s.sink) return false;
    if (!s.sink.write(encodeJsonEvent(eventId, text ?? serializeMessage(message)))) return false;
    if (eventId !== undefined) this.wentOut(s, eventId);
    return true;
  }

  /** Remembers that `eventId` went out on the shared standalone stream (the newest 256). */
  protected noteStandalone(eventId: string): void {
    this.standaloneCursor = eventId;
    const seen = (this.standaloneSeen ??= new Set());
    seen.add(eventId);
    if (seen.size > 256) seen.delete(seen.values().next().value as string);
  }

  /**
   * Stores one event of stream `s` (`text`: the message's JSON text when already made); when the
   * store fails, the event goes out without an ID. Answers at once when the store does.
   */
  protected store(
    s: OutStream,
    message: JSONRPCMessage | null,
    text?: string,
  ): string | undefined | Promise<string | undefined> {
    const store = this.settings.eventStore;
    // not stored while the store fails, nor before the events of `s` kept earlier (order)
    if (!store || this.storeDown || s.kept !== undefined) return undefined;
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
      // the store may still have it (a Redis command that timed out runs once Redis continues)
      if (message !== null) (this.storeLost ??= new WeakSet()).add(message);
      return undefined;
    });
  }

  /**
   * Event `message` of stream `s` went out without an ID (its store failed): if the failed
   * store call may have stored it after all, the store drops it (its `discardEvent`), so that a client resuming `s` from an earlier event ID
   * does not get it a second time.
   */
  protected sentWithoutId(s: OutStream, message: JSONRPCMessage): void {
    if (!this.storeLost?.delete(message)) return;
    const store = this.settings.eventStore;
    if (!store?.discardEvent) return;
    Promise.resolve()
      .then(() => store.discardEvent!(this.sessionId, s.id, message))
      .then(undefined, (e: unknown) => this.storeError(e));
  }

  protected storeFailed(e: unknown): void {
    this.storeDown = true;
    this.storeError(e);
  }

  /**
   * Keeps `message` of `s` (`size`: its JSON text's length) to store later, in order, retried
   * every second for up to 5 minutes, within {@link KEPT_MAX_EVENTS} and {@link KEPT_MAX_CHARS}.
   */
  protected keep(s: OutStream, message: JSONRPCMessage, deliveredOn: ResponseSink | null, size: number): void {
    (s.kept ??= []).push({ message, deliveredOn, size });
    const u = (this.unstored ??= { streams: new Set(), since: Date.now(), count: 0, chars: 0, dropped: 0 });
    u.streams.add(s);
    u.count++;
    u.chars += size;
    while (u.count > KEPT_MAX_EVENTS || (u.chars > KEPT_MAX_CHARS && u.count > 1)) this.dropKept(u);
    this.retryKept(u);
  }

  /** Offers the kept events to the store again in {@link KEPT_RETRY_MS}, unless that is planned already. */
  protected retryKept(u: NonNullable<SessionStreams['unstored']>): void {
    if (u.timer) return;
    u.timer = setTimeout(() => void this.storeKept(), KEPT_RETRY_MS);
    u.timer.unref?.();
  }

  /** Drops the oldest kept notification of the session (else its oldest kept response), counted in `u.dropped`. */
  protected dropKept(u: NonNullable<SessionStreams['unstored']>): void {
    let from: OutStream | undefined;
    let at = -1;
    for (const s of u.streams) {
      const i = s.kept?.findIndex((k) => !isResponse(k.message)) ?? -1;
      if (i >= 0) {
        from = s;
        at = i;
        break;
      }
      if (!from && s.kept?.length) {
        from = s;
        at = 0;
      }
    }
    if (!from?.kept) return void (u.count = 0);
    const [gone] = from.kept.splice(at, 1);
    u.count--;
    u.chars -= gone.size;
    u.dropped++;
  }

  /**
   * Stores the kept events of each stream in order, then a finished stream's end; runs beside
   * the send queue, so a store that still does not answer holds no send. A connection that
   * resumed the stream here meanwhile gets each stored event it has not had (a response, unless
   * written on that very connection; other events, unless written on any), with its ID, in
   * queue order after its replay; it ends after a finished stream's last. Gives up after
   * {@link KEPT_FOR_MS}.
   */
  protected async storeKept(): Promise<void> {
    const u = this.unstored;
    const store = this.settings.eventStore;
    if (!u || !store) return;
    u.timer = undefined;
    // one pass at a time: what is kept meanwhile is stored by the pass under way (after what it
    // kept before, in order) or by the retry it schedules; a second pass stored the same events again
    if (u.storing) return;
    u.storing = true;
    try {
      await this.storeKeptPass(u, store);
    } finally {
      u.storing = false;
    }
  }

  private async storeKeptPass(u: NonNullable<SessionStreams['unstored']>, store: EventStore): Promise<void> {
    if (this.ended || Date.now() - u.since > KEPT_FOR_MS) {
      if (!this.ended)
        this.settings.onStoreError?.(new Error(`events of ${u.streams.size} stream(s) could not be stored; dropped`));
      for (const s of u.streams) s.kept = undefined;
      this.unstored = undefined;
      return;
    }
    if (u.dropped > 0) {
      this.settings.onStoreError?.(
        new Error(
          `${u.dropped} event(s) the store did not take were dropped (at most ${KEPT_MAX_EVENTS} events, ${KEPT_MAX_CHARS} characters kept per session)`,
        ),
      );
      u.dropped = 0;
    }
    try {
      for (const s of [...u.streams]) {
        while (s.kept?.length) {
          const entry = s.kept[0];
          const { message, deliveredOn, size } = entry;
          const id = await store.storeEvent(this.sessionId, s.id, message);
          // by identity: the bounds may have dropped it (counted then) while it was being stored
          const at = s.kept?.indexOf(entry) ?? -1;
          if (at >= 0) {
            s.kept?.splice(at, 1);
            u.count--;
            u.chars -= size;
          }
          this.storeDown = false;
          const owed = deliveredOn === null || isResponse(message);
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
    this.retryKept(u);
  }

  protected dropPostStream(s: OutStream): void {
    this.postStreams?.delete(s.id);
    if (this.postStreams?.size === 0) this.postStreams = undefined;
  }

  /**
   * Answers a POST stream with `message` (a batch: an array) as `application/json`; the stream is
   * finished. `body`: its serialised text, when made already.
   */
  protected replyJson(
    s: OutStream,
    message: JSONRPCMessage | JSONRPCMessage[],
    body = serializeMessage(message),
  ): void {
    this.lastActiveAt = Date.now();
    s.mode = 'json';
    this.retire(s);
    const sink = s.sink;
    s.sink = null;
    sink?.respond(200, { ...s.headers, 'Content-Type': 'application/json' }, body);
  }

  /**
   * Writes event `message` of `s` with the ID its store gave, or without one when the store gave
   * none (it failed, or was skipped while the store fails). Then, of a POST stream, what the
   * client may not have got is kept to be stored once the store answers (a response always: a
   * connection that resets after the write loses it), so that a client resuming the stream gets it.
   */
  protected writeEvent(s: OutStream, message: JSONRPCMessage, eventId: string | undefined, text?: string): void {
    const sink = s.sink;
    const delivered = this.write(s, message, eventId, text);
    if (eventId !== undefined) return;
    if (s.kind === 'post' && this.settings.eventStore && (!delivered || isResponse(message)))
      this.keep(s, message, delivered ? sink : null, (text ?? serializeMessage(message)).length);
    // delivered and not kept: it must not also be replayed from the store
    else if (delivered) this.sentWithoutId(s, message);
  }

  /** Writes the last event of POST stream `s` and ends it. */
  protected finishSse(s: OutStream, message: JSONRPCMessage, eventId: string | undefined, text: string): void {
    this.writeEvent(s, message, eventId, text);
    this.endStream(s);
  }

  /** POST stream `s` is finished: done, forgotten (see {@link forget}). */
  protected retire(s: OutStream): void {
    s.done = true;
    this.forget(s);
  }

  /** POST stream `s` is finished and its connection ended. */
  protected endStream(s: OutStream): void {
    this.retire(s);
    this.detach(s, true);
  }
}
