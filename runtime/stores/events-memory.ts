/**
 * `MemoryEventStore`: the in-memory {@link EventStore} behind resumable SSE streams (2025-11-25
 * basic/transports, "Resumability and Redelivery"), bounded in events, streams, bytes and age.
 */
import { serializeMessage } from '../jsonrpc/message.js';
import { decimal } from '../jsonrpc/decimal.js';
import type { JSONRPCMessage } from '../jsonrpc/transport.js';
import { ClaimLimitError, type EventStore } from './events.js';
import { FinishOrder } from './events-order.js';
import { parseStored } from './stored-message.js';
import {
  AT,
  BYTES,
  CLAIM_OVERHEAD,
  EVENT_OVERHEAD,
  FinishedStreams,
  MAX_CAPACITY,
  SEQ,
  SessionEvents,
  type RequestClaim,
  SLOTS,
  StoredStream,
  TEXT,
  roomFor,
  textsAfter,
} from './events-streams.js';

/** Options for {@link MemoryEventStore}. */
export interface MemoryEventStoreOptions {
  /** Events kept per stream; older ones are discarded first. Default 1000. */
  maxEventsPerStream?: number;
  /**
   * Finished streams kept for resumption, per session; the one that finished longest ago is
   * released first. Live streams are never released by this bound. Default 256.
   */
  maxStreams?: number;
  /**
   * Bytes kept by the whole store: each event counts its message's JSON text length plus 64
   * (its bookkeeping). Over it, finished streams go first (longest finished first), then the
   * oldest events of live streams; the newest event of a live stream is always kept. Default
   * 64 MiB (67 108 864).
   */
  maxBytes?: number;
  /** Bytes kept per session, shed the same way within that session. Default 4 MiB (4 194 304). */
  maxSessionBytes?: number;
  /**
   * How long an event stays replayable, ms: older events are discarded (the newest event of a
   * live stream excepted) and a finished stream is released this long after it finished.
   * Applied whenever the store is used. Default 300 000 (5 minutes).
   */
  ttlMs?: number;
  /**
   * Live request claims ({@link MemoryEventStore.claimRequest}: those whose stream has not
   * finished) per session; past it a new claim is refused ({@link ClaimLimitError}), none is
   * forgotten. A finished request's claim holds no slot (it is kept `ttlMs` for its re-sends and
   * bounded by the byte budgets). Each claim also counts
   * 64 + 43 + its text's length (about 140) bytes in `maxSessionBytes` and `maxBytes`, and is
   * refused when the claims alone would pass either. Default 10 000.
   */
  maxClaims?: number;
  /** Clock in ms (tests). Default `Date.now`. */
  now?: () => number;
}

/**
 * In-memory {@link EventStore}, for one session or shared by many, bounded in events per
 * stream, finished streams, bytes (per session and in all) and age. Event IDs have the form
 * `<streamId>_<sequence>`, the sequence counting across the store, so an ID names its stream;
 * the stream is looked up under the session the call names. A message is kept as the JSON
 * text it went out as (`serializeMessage`), and replayed as that text
 * ({@link MemoryEventStore.replayTextsAfter}) or parsed again ({@link replayEventsAfter}).
 * Finished streams are kept as bytes, at most 1 GiB of them per session whatever the budgets
 * (past it, the session's oldest finished streams go first).
 */
export class MemoryEventStore implements EventStore {
  private readonly maxEvents: number;
  private readonly maxStreams: number;
  private readonly maxBytes: number;
  private readonly maxSessionBytes: number;
  private readonly ttlMs: number;
  private readonly maxClaims: number;
  private readonly now: () => number;
  /** The clock's reading when the store was made: times are kept relative to it (small integers). */
  private readonly epoch: number;
  /** Sessions that stored an event (most sessions store none). */
  private readonly sessions = new Map<string, SessionEvents>();
  /** Claims whose stream finished, in the order they did (so in expiry order), from `claimHead` on. */
  private finishedClaims: Array<[SessionEvents, RequestClaim]> = [];
  private claimHead = 0;
  /** Bytes of every session's claims (counted in `bytes` too). */
  private claimBytes = 0;
  private seq = 0;
  private bytes = 0;
  /** The stream stored to last (a stream's events, and its end, come one after another): no lookups for it. */
  private last: StoredStream | undefined;
  /** The finished streams of every session in the order they finished, for the TTL and the store's byte budget. */
  private readonly order = new FinishOrder();
  /** Serial of the last stream that finished. */
  private serial = 0;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.maxEvents = Math.max(1, options.maxEventsPerStream ?? 1000);
    this.maxStreams = Math.max(0, options.maxStreams ?? 256);
    this.maxBytes = Math.max(0, options.maxBytes ?? 64 * 1024 * 1024);
    this.maxSessionBytes = Math.max(0, options.maxSessionBytes ?? 4 * 1024 * 1024);
    this.ttlMs = Math.max(0, options.ttlMs ?? 300_000);
    this.maxClaims = Math.max(0, options.maxClaims ?? 10_000);
    this.now = options.now ?? Date.now;
    this.epoch = this.now();
  }

  /** Bytes held now by the whole store, counted as for `maxBytes`. */
  get size(): number {
    return this.bytes;
  }

  /** Bytes held now for `sessionId`. */
  sessionSize(sessionId: string): number {
    return this.sessions.get(sessionId)?.bytes ?? 0;
  }

  /**
   * {@link EventStore.storeEvent}; `text`, when given, is the message's JSON text as it goes out
   * (`serializeMessage(message)`), which then is not made again; `fresh`: the caller knows that
   * nothing was stored on `streamId` before (the stream is made without looking for it).
   */
  storeEvent(
    sessionId: string,
    streamId: string,
    message: JSONRPCMessage | null,
    text?: string,
    fresh = false,
  ): string {
    const now = this.now() - this.epoch;
    this.expire(now);
    let stream = fresh ? undefined : this.recent(sessionId, streamId);
    if (!stream) {
      let session = this.sessions.get(sessionId);
      if (!session) {
        session = new SessionEvents(sessionId);
        this.sessions.set(sessionId, session);
      }
      // stored after it finished: live again
      stream = fresh ? undefined : (session.live.get(streamId) ?? this.revive(session, streamId));
      if (!stream) {
        stream = new StoredStream(streamId, session);
        session.live.set(streamId, stream);
      }
      this.last = stream;
    }
    const session = stream.session;
    const seq = ++this.seq;
    const data = message === null ? null : (text ?? serializeMessage(message));
    const bytes = EVENT_OVERHEAD + (data === null ? 0 : data.length);
    stream.log.push(seq, now, bytes, data);
    stream.bytes += bytes;
    session.bytes += bytes;
    this.bytes += bytes;
    if (stream.kept > this.maxEvents) this.dropHead(stream);
    else this.dropExpired(stream, now);
    this.withinBudgets(session);
    // (the sequence is new on every call: its text made outside the number-to-string cache)
    return `${streamId}_${decimal(seq)}`;
  }

  /**
   * {@link EventStore.replayEventsAfter}: each message is its stored JSON text parsed again
   * (an integer id beyond ±(2^53 − 1) comes back exact, as a `bigint`, see `exactIds`).
   */
  async replayEventsAfter(
    sessionId: string,
    lastEventId: string,
    send: (eventId: string, message: JSONRPCMessage) => void | Promise<void>,
  ): Promise<string | undefined> {
    const replay: Array<[string, string]> = [];
    const streamId = this.replayTextsAfter(
      sessionId,
      lastEventId,
      (eventId, text) => void replay.push([eventId, text]),
    );
    for (const [eventId, text] of replay) await send(eventId, parseStored(text));
    return streamId;
  }

  /**
   * {@link replayEventsAfter} with each message as the JSON text it went out as, at once:
   * `send(eventId, text)` for every non-priming event of the stream after `lastEventId`, in
   * order; the stream's ID, or undefined (nothing sent) when the event is unknown in
   * `sessionId` or events after it were discarded.
   */
  replayTextsAfter(
    sessionId: string,
    lastEventId: string,
    send: (eventId: string, text: string) => void,
  ): string | undefined {
    this.expire(this.now() - this.epoch);
    const cut = lastEventId.lastIndexOf('_');
    if (cut <= 0) return undefined;
    const streamId = lastEventId.slice(0, cut);
    const seqText = lastEventId.slice(cut + 1);
    if (!/^[1-9][0-9]*$/.test(seqText)) return undefined;
    const seq = Number(seqText);
    const session = this.sessions.get(sessionId);
    if (!session || seq > this.seq) return undefined;
    const stream = session.live.get(streamId);
    let after: Array<[number, string]> | undefined;
    if (stream) after = textsAfter(stream, seq);
    else {
      const finished = session.finished;
      const r = finished ? finished.find(streamId) : -1;
      after = r < 0 ? undefined : textsAfter(finished!.toStream(r, streamId, session), seq);
    }
    if (!after) return undefined;
    for (const [s, text] of after) send(`${streamId}_${decimal(s)}`, text);
    return streamId;
  }

  streamFinished(sessionId: string, streamId: string): void {
    const stream = this.recent(sessionId, streamId) ?? this.sessions.get(sessionId)?.live.get(streamId);
    if (!stream) return;
    const session = stream.session;
    if (stream.claim) {
      // its slot is free: a finished request's claim counts only in the byte budgets
      if (stream.claim.finishedAt === undefined && session.claims?.get(stream.claim.key) === stream.claim)
        session.liveClaims--;
      this.claimFinished(session, stream.claim);
    }
    session.live.delete(streamId);
    if (this.last === stream) this.last = undefined;
    // none kept (maxStreams 0: Infinity, nothing to release either)
    const room = this.maxStreams === 0 ? Infinity : FinishedStreams.room(stream);
    // a session's buffer stays under MAX_CAPACITY: its oldest go first (a stream larger than
    // that alone is not kept)
    while (session.finished && roomFor(session.finished.used + room) > MAX_CAPACITY) this.releaseFirst(session, true);
    if (roomFor(room) > MAX_CAPACITY) {
      this.forgetBytes(session, stream.bytes);
      this.dropIfEmpty(session);
      return;
    }
    const finished = (session.finished ??= new FinishedStreams());
    const serial = ++this.serial;
    finished.append(stream, serial, room);
    this.order.push(session, serial, Math.max(0, this.now() - this.epoch));
    if (finished.count > this.maxStreams) this.releaseFirst(session);
  }

  /** Finished stream `streamId` of `session` as a live stream again, when one is kept. */
  private revive(session: SessionEvents, streamId: string): StoredStream | undefined {
    const finished = session.finished;
    const r = finished ? finished.find(streamId) : -1;
    if (r < 0) return undefined;
    const stream = finished!.toStream(r, streamId, session);
    this.order.forget(finished!.serialOf(r));
    finished!.remove(r);
    if (finished!.count === 0) session.finished = undefined;
    session.live.set(streamId, stream);
    return stream;
  }

  /** The stream stored to last, when it is stream `streamId` of session `sessionId` (always a live one). */
  private recent(sessionId: string, streamId: string): StoredStream | undefined {
    const last = this.last;
    return last !== undefined && last.streamId === streamId && last.session.id === sessionId ? last : undefined;
  }

  /**
   * {@link EventStore.claimRequest}: the session's claims in a Map by request key (a hash of
   * the id, never the id), each lasting while stream `streamId` is live here and `ttlMs` after it
   * finished, dropped with the session. A claim counts 64 + its key's and
   * text's lengths in the byte budgets (the session's events are shed to make room, as for an
   * event); a new claim past `maxClaims` live ones (finished requests' claims hold no slot), or whose bytes would take the session's (or the
   * store's) claims past `maxSessionBytes` (`maxBytes`), is refused.
   *
   * @throws ClaimLimitError when refused (nothing claimed).
   */
  claimRequest(sessionId: string, requestKey: string, claim: string, streamId?: string): string | undefined {
    const now = this.now() - this.epoch;
    this.expire(now);
    this.expireClaims(now);
    let session = this.sessions.get(sessionId);
    const prior = session?.claims?.get(requestKey);
    // the same text again: its maker's retry (its first reply was lost), claimed by this call
    if (prior && prior.text === claim && prior.finishedAt === undefined) return undefined;
    if (prior) return prior.text;
    const bytes = CLAIM_OVERHEAD + requestKey.length + claim.length;
    const count = session?.liveClaims ?? 0;
    if (
      count >= this.maxClaims ||
      (session?.claimBytes ?? 0) + bytes > this.maxSessionBytes ||
      this.claimBytes + bytes > this.maxBytes
    )
      throw new ClaimLimitError(`too many requests in flight in this session (${count} claimed)`);
    if (!session) {
      session = new SessionEvents(sessionId);
      this.sessions.set(sessionId, session);
    }
    const c: RequestClaim = { key: requestKey, text: claim, bytes, finishedAt: undefined };
    (session.claims ??= new Map()).set(requestKey, c);
    session.claimBytes += bytes;
    session.bytes += bytes;
    this.claimBytes += bytes;
    this.bytes += bytes;
    const stream = streamId === undefined ? undefined : session.live.get(streamId);
    // its stream is not live here (not stored on, or finished): the claim expires as a finished one
    if (stream && !stream.claim) {
      stream.claim = c;
      session.liveClaims++;
    } else this.claimFinished(session, c, now);
    this.withinBudgets(session);
    return undefined;
  }

  /** Claim `c` of `session` starts to expire (its stream finished). */
  private claimFinished(session: SessionEvents, c: RequestClaim, now = this.now() - this.epoch): void {
    if (c.finishedAt !== undefined) return;
    c.finishedAt = now;
    this.finishedClaims.push([session, c]);
  }

  /** Forgets the claims whose stream finished `ttlMs` ago or longer (finish order is expiry order). */
  private expireClaims(now: number): void {
    const order = this.finishedClaims;
    let head = this.claimHead;
    while (head < order.length && now - (order[head][1].finishedAt as number) >= this.ttlMs) {
      const [session, c] = order[head];
      order[head++] = undefined as unknown as [SessionEvents, RequestClaim];
      if (session.claims?.get(c.key) !== c) continue;
      session.claims.delete(c.key);
      if (session.claims.size === 0) session.claims = undefined;
      session.claimBytes -= c.bytes;
      this.claimBytes -= c.bytes;
      this.forgetBytes(session, c.bytes);
      this.dropIfEmpty(session);
    }
    if (head > 1024 && head * 2 > order.length) {
      this.finishedClaims = order.slice(head);
      head = 0;
    }
    this.claimHead = head;
  }

  clear(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    // session.bytes counts its claims, live streams and finished records; its entries in the
    // finished-claims order and the finish order are skipped when they come up (no claims, no
    // finished records left)
    this.claimBytes -= session.claimBytes;
    this.bytes -= session.bytes;
    session.claims = undefined;
    session.finished = undefined;
    if (this.last?.session === session) this.last = undefined;
    this.sessions.delete(sessionId);
  }

  private forgetBytes(session: SessionEvents, bytes: number): void {
    session.bytes -= bytes;
    this.bytes -= bytes;
  }

  private dropIfEmpty(session: SessionEvents): void {
    if (
      session.live.size === 0 &&
      session.finished === undefined &&
      session.claims === undefined &&
      this.sessions.get(session.id) === session
    )
      this.sessions.delete(session.id);
  }

  /** Releases the finished stream of `session` that finished longest ago (`keep`: the session stays, a stream is about to be added to it). */
  private releaseFirst(session: SessionEvents, keep = false): void {
    const finished = session.finished!;
    this.forgetBytes(session, finished.shift());
    if (finished.count === 0) {
      session.finished = undefined;
      if (!keep) this.dropIfEmpty(session);
    }
  }

  /** Takes the first entry off the finish order and releases its record when that is its session's oldest. */
  private releaseOrderHead(): void {
    const session = this.order.shift();
    if (session) this.releaseFirst(session);
  }

  /** Releases finished streams past their TTL (oldest finished first, so the scan stops early). */
  private expire(now: number): void {
    while (this.order.count > 0 && now - this.order.firstAt() >= this.ttlMs) this.releaseOrderHead();
  }

  /** Drops expired events at the head of a stream, keeping the newest of a live one. */
  private dropExpired(stream: StoredStream, now: number): void {
    while (stream.kept > 1 && now - (stream.log[stream.head + AT] as number) >= this.ttlMs) this.dropHead(stream);
  }

  private *liveStreams(): Iterable<StoredStream> {
    for (const session of this.sessions.values()) yield* session.live.values();
  }

  /** After `session` grew: sheds what is over its budget, then what is over the store's (see `shed`). */
  private withinBudgets(session: SessionEvents): void {
    if (session.bytes > this.maxSessionBytes)
      this.shed(session, session.live.values(), () => session.bytes <= this.maxSessionBytes);
    if (this.bytes > this.maxBytes) this.shed(undefined, this.liveStreams(), () => this.bytes <= this.maxBytes);
  }

  /**
   * Over a budget: the finished streams of `session` (undefined: of every session) first,
   * longest finished first, then the oldest events of the `live` ones, until `enough`.
   */
  private shed(session: SessionEvents | undefined, live: Iterable<StoredStream>, enough: () => boolean): void {
    if (session) {
      while (session.finished && !enough()) this.releaseFirst(session);
    } else {
      while (this.order.count > 0 && !enough()) this.releaseOrderHead();
    }
    if (enough()) return;
    for (const stream of live) {
      while (!enough() && stream.kept > 1) this.dropHead(stream);
      if (enough()) return;
    }
  }

  private dropHead(stream: StoredStream): void {
    const log = stream.log;
    const head = stream.head;
    const bytes = log[head + BYTES] as number;
    stream.discardedThrough = log[head + SEQ] as number;
    stream.bytes -= bytes;
    stream.session.bytes -= bytes;
    this.bytes -= bytes;
    log[head + TEXT] = null;
    stream.head = head + SLOTS;
    if (stream.head > 32 * SLOTS && stream.head * 2 > log.length) {
      stream.log = log.slice(stream.head);
      stream.head = 0;
    }
  }
}
