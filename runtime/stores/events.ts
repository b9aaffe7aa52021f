/**
 * Storage behind resumable SSE streams (2025-11-25 basic/transports, "Resumability and
 * Redelivery"). The HTTP server transport stores every SSE event it sends and, when a client
 * reconnects with `Last-Event-ID`, replays the events of that one stream that came after it.
 */
import { exactIds, serializeMessage } from '../jsonrpc/message.js';
import { FewMap } from '../jsonrpc/few.js';
import type { JSONRPCMessage } from '../jsonrpc/transport.js';
import type { RequestId } from '../jsonrpc/message.js';

/**
 * Event storage, for one session or shared by many: every call names the session, and a store
 * MUST keep sessions apart (a replay only ever sees events stored under the same `sessionId`).
 * Event IDs must be unique across all streams of the session and must not contain CR, LF or
 * NUL (they travel in the SSE `id` field).
 *
 * The server calls these methods one at a time per session, in send order. Stream ids are
 * made by the transport and name their session (they start with a random per-session tag),
 * so event IDs built from them are unique across sessions and processes too. The transport
 * checks that the stream a replay names is one of the session's own before it writes any of
 * the replayed events.
 */
export interface EventStore {
  /**
   * Records one event sent on stream `streamId` of session `sessionId` and returns its event
   * ID. `message` is null for a priming event (an ID with empty data that gives the client a
   * resumption cursor); such events take part in ordering but are never replayed.
   */
  storeEvent(sessionId: string, streamId: string, message: JSONRPCMessage | null): string | Promise<string>;
  /**
   * Calls `send` for every non-priming event stored after `lastEventId` on the stream that
   * event belongs to, in order, and returns that stream's ID. Returns undefined when the event
   * is unknown in `sessionId`, or when events after it have been discarded (replay would skip
   * messages).
   */
  replayEventsAfter(
    sessionId: string,
    lastEventId: string,
    send: (eventId: string, message: JSONRPCMessage) => void | Promise<void>,
  ): string | undefined | Promise<string | undefined>;
  /**
   * Stream `streamId` of `sessionId` is finished (its response went out, or it died): nothing
   * more will be stored on it; its events may be released once no client is likely to resume
   * it. Optional.
   */
  streamFinished?(sessionId: string, streamId: string): void | Promise<void>;
  /** Releases everything stored for `sessionId` (the session ended). Optional. */
  clear?(sessionId: string): void | Promise<void>;
}

/** How a followed stream ended (see {@link SharedEventStore.follow}). */
export type FollowEnd =
  /** The stream finished: its last response was delivered. */
  | { reason: 'finished' }
  /**
   * The process that owned the stream stopped (its liveness record lapsed) before the stream
   * finished: `pending` are the requests of the stream that got no response in the log.
   */
  | { reason: 'owner-lost'; pending: RequestId[] }
  /** The follower stopped (its signal aborted), or the store became unreachable. */
  | { reason: 'aborted' };

/**
 * An {@link EventStore} shared by several server processes (e.g. ../stores/redis/events.ts):
 * a stream begun on one process can be resumed, and followed live, on any other.
 */
export interface SharedEventStore extends EventStore {
  /**
   * Records that POST stream `streamId` of `sessionId` is served by this process and carries
   * the requests `requestIds` (awaited before the stream's first event, so a follower that
   * holds an event ID of it can tell whether it ended unanswered).
   */
  streamOpened(sessionId: string, streamId: string, requestIds: RequestId[]): Promise<void>;
  /**
   * Replays, through `write`, every non-priming event of `sessionId` after `lastEventId` (on
   * the stream that event belongs to, never another stream or session), then keeps writing the
   * events stored on that stream by any process, in order and each once, until the stream
   * finishes, its owner process is lost, or `signal` aborts. Resolves undefined (nothing
   * written) when the event is unknown in `sessionId` or was discarded; else the stream's ID and
   * a promise of how the following ended.
   */
  follow(
    sessionId: string,
    lastEventId: string,
    write: (eventId: string, message: JSONRPCMessage) => void,
    signal: AbortSignal,
  ): Promise<{ streamId: string; ended: Promise<FollowEnd> } | undefined>;
}

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
  /** Clock in ms (tests). Default `Date.now`. */
  now?: () => number;
}

// A stream's events are one flat array, four slots per event: sequence number, time stored
// (ms since the store was made), bytes counted, and the message's JSON text (null: a priming
// event). Kept for minutes under load (256 finished streams per session by default), the
// events of a finished stream are then two objects, the log and the texts, instead of an object
// and the message's object tree per event.
const SEQ = 0;
const AT = 1;
const BYTES = 2;
const TEXT = 3;
const SLOTS = 4;

class StoredStream {
  /** Events, {@link SLOTS} slots each, oldest first; the kept ones start at `head`. */
  log: Array<number | string | null> = [];
  /** Slot index of the first kept event (dropping from the head is O(1)). */
  head = 0;
  /** Highest sequence number discarded from this stream (0: none). */
  discardedThrough = 0;
  /** Bytes of the kept events, counted as for the budgets. */
  bytes = 0;
  /** When the stream finished, on the store's clock (-1: live). */
  finishedAt = -1;
  // A finished stream is on two lists, oldest finished first: the store's and its session's.
  // (Linked lists rather than Maps used as queues: a Map that is appended to at one end and
  // emptied at the other keeps the deleted entries before its first live one until it is
  // rehashed, and every look at its oldest entry walks over them.)
  prev: StoredStream | undefined = undefined;
  next: StoredStream | undefined = undefined;
  sessionPrev: StoredStream | undefined = undefined;
  sessionNext: StoredStream | undefined = undefined;

  constructor(
    readonly streamId: string,
    readonly session: SessionEvents,
  ) {}

  /** Events kept. */
  get kept(): number {
    return (this.log.length - this.head) / SLOTS;
  }
}

class SessionEvents {
  /**
   * Live streams by stream id (a few: the requests in flight and the standalone stream). A
   * finished stream is only on the lists below: a Map of every stream kept would be looked up
   * for each new stream and shrunk for each released one, hundreds of cold entries per session.
   */
  readonly live = new FewMap<string, StoredStream>();
  /** Finished streams, in the order they finished: the oldest, the newest, how many. */
  firstFinished: StoredStream | undefined = undefined;
  lastFinished: StoredStream | undefined = undefined;
  finishedCount = 0;
  bytes = 0;

  constructor(readonly id: string) {}
}

/** What an event costs beside its message, for the byte budgets. */
const EVENT_OVERHEAD = 64;

/**
 * In-memory {@link EventStore}, for one session or shared by many, bounded in events per
 * stream, finished streams, bytes (per session and in all) and age. Event IDs have the form
 * `<streamId>_<sequence>`, the sequence counting across the store, so an ID names its stream;
 * the stream is looked up under the session the call names. A message is kept as the JSON
 * text it went out as (`serializeMessage`), and replayed as that text
 * ({@link MemoryEventStore.replayTextsAfter}) or parsed again ({@link replayEventsAfter}).
 */
export class MemoryEventStore implements EventStore {
  private readonly maxEvents: number;
  private readonly maxStreams: number;
  private readonly maxBytes: number;
  private readonly maxSessionBytes: number;
  private readonly ttlMs: number;
  private readonly now: () => number;
  /** The clock's reading when the store was made: times are kept relative to it (small integers). */
  private readonly epoch: number;
  /** Sessions that stored an event (most sessions store none). */
  private readonly sessions = new Map<string, SessionEvents>();
  /** Finished streams of every session, in the order they finished: the oldest and the newest. */
  private firstFinished: StoredStream | undefined;
  private lastFinished: StoredStream | undefined;
  private seq = 0;
  private bytes = 0;
  /** The stream stored to last (a stream's events, and its end, come one after another): no lookups for it. */
  private last: StoredStream | undefined;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.maxEvents = Math.max(1, options.maxEventsPerStream ?? 1000);
    this.maxStreams = Math.max(0, options.maxStreams ?? 256);
    this.maxBytes = Math.max(0, options.maxBytes ?? 64 * 1024 * 1024);
    this.maxSessionBytes = Math.max(0, options.maxSessionBytes ?? 4 * 1024 * 1024);
    this.ttlMs = Math.max(0, options.ttlMs ?? 300_000);
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
  storeEvent(sessionId: string, streamId: string, message: JSONRPCMessage | null, text?: string, fresh = false): string {
    const now = this.now() - this.epoch;
    this.expire(now);
    let stream = fresh ? undefined : this.recent(sessionId, streamId);
    if (!stream) {
      let session = this.sessions.get(sessionId);
      if (!session) {
        session = new SessionEvents(sessionId);
        this.sessions.set(sessionId, session);
      }
      stream = fresh ? undefined : this.find(session, streamId);
      if (!stream) {
        stream = new StoredStream(streamId, session);
        session.live.set(streamId, stream);
      }
      this.last = stream;
    }
    const session = stream.session;
    // stored after it finished: live again
    if (stream.finishedAt >= 0) this.unlinkFinished(stream);
    const seq = ++this.seq;
    const data = message === null ? null : (text ?? serializeMessage(message));
    const bytes = EVENT_OVERHEAD + (data === null ? 0 : data.length);
    stream.log.push(seq, now, bytes, data);
    stream.bytes += bytes;
    session.bytes += bytes;
    this.bytes += bytes;
    if (stream.kept > this.maxEvents) this.dropHead(stream);
    else this.dropExpired(stream, now);
    if (session.bytes > this.maxSessionBytes) this.shed(session, session.live.values(), () => session.bytes <= this.maxSessionBytes);
    if (this.bytes > this.maxBytes) this.shed(undefined, this.liveStreams(), () => this.bytes <= this.maxBytes);
    return `${streamId}_${seq}`;
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
    const streamId = this.replayTextsAfter(sessionId, lastEventId, (eventId, text) => void replay.push([eventId, text]));
    for (const [eventId, text] of replay) await send(eventId, parseStored(text));
    return streamId;
  }

  /**
   * {@link replayEventsAfter} with each message as the JSON text it went out as, at once:
   * `send(eventId, text)` for every non-priming event of the stream after `lastEventId`, in
   * order; the stream's ID, or undefined (nothing sent) when the event is unknown in
   * `sessionId` or events after it were discarded.
   */
  replayTextsAfter(sessionId: string, lastEventId: string, send: (eventId: string, text: string) => void): string | undefined {
    this.expire(this.now() - this.epoch);
    const cut = lastEventId.lastIndexOf('_');
    if (cut <= 0) return undefined;
    const streamId = lastEventId.slice(0, cut);
    const seqText = lastEventId.slice(cut + 1);
    if (!/^[1-9][0-9]*$/.test(seqText)) return undefined;
    const seq = Number(seqText);
    const session = this.sessions.get(sessionId);
    const stream = session && this.find(session, streamId);
    if (!stream || seq > this.seq) return undefined;
    const log = stream.log;
    let from = -1;
    for (let i = stream.head; i < log.length; i += SLOTS) {
      if (log[i + SEQ] === seq) {
        from = i + SLOTS;
        break;
      }
    }
    if (from < 0) {
      if (seq !== stream.discardedThrough) return undefined;
      from = stream.head;
    }
    const after: Array<[number, string]> = [];
    for (let i = from; i < log.length; i += SLOTS) {
      const text = log[i + TEXT];
      if (text !== null) after.push([log[i + SEQ] as number, text as string]);
    }
    for (const [s, text] of after) send(`${streamId}_${s}`, text);
    return streamId;
  }

  streamFinished(sessionId: string, streamId: string): void {
    const stream = this.recent(sessionId, streamId) ?? this.sessions.get(sessionId)?.live.get(streamId);
    if (!stream || stream.finishedAt >= 0) return;
    const session = stream.session;
    session.live.delete(streamId);
    // kept for minutes from here: the log at its exact size (push left room for ~16 more slots)
    stream.log = stream.log.slice(stream.head);
    stream.head = 0;
    stream.finishedAt = Math.max(0, this.now() - this.epoch);
    stream.prev = this.lastFinished;
    if (this.lastFinished) this.lastFinished.next = stream;
    else this.firstFinished = stream;
    this.lastFinished = stream;
    stream.sessionPrev = session.lastFinished;
    if (session.lastFinished) session.lastFinished.sessionNext = stream;
    else session.firstFinished = stream;
    session.lastFinished = stream;
    if (++session.finishedCount > this.maxStreams) this.release(session.firstFinished!);
  }

  /** Stream `streamId` of `session`: a live one, else a finished one still kept (a scan of at most `maxStreams`). */
  private find(session: SessionEvents, streamId: string): StoredStream | undefined {
    const live = session.live.get(streamId);
    if (live) return live;
    for (let stream = session.lastFinished; stream; stream = stream.sessionPrev) if (stream.streamId === streamId) return stream;
    return undefined;
  }

  /** The stream stored to last, when it is stream `streamId` of session `sessionId` and still held. */
  private recent(sessionId: string, streamId: string): StoredStream | undefined {
    const last = this.last;
    return last !== undefined && last.streamId === streamId && last.session.id === sessionId ? last : undefined;
  }

  /** Takes finished `stream` off both lists of finished streams (it is live again, or released). */
  private unlinkFinished(stream: StoredStream, released = false): void {
    const session = stream.session;
    stream.finishedAt = -1;
    if (stream.prev) stream.prev.next = stream.next;
    else this.firstFinished = stream.next;
    if (stream.next) stream.next.prev = stream.prev;
    else this.lastFinished = stream.prev;
    if (stream.sessionPrev) stream.sessionPrev.sessionNext = stream.sessionNext;
    else session.firstFinished = stream.sessionNext;
    if (stream.sessionNext) stream.sessionNext.sessionPrev = stream.sessionPrev;
    else session.lastFinished = stream.sessionPrev;
    stream.prev = stream.next = stream.sessionPrev = stream.sessionNext = undefined;
    session.finishedCount--;
    if (!released) session.live.set(stream.streamId, stream);
  }

  clear(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    for (const stream of [...session.live.values()]) this.release(stream);
    while (session.firstFinished) this.release(session.firstFinished);
    this.sessions.delete(sessionId);
  }

  /** Releases finished streams past their TTL (oldest finished first, so the scan stops early). */
  private expire(now: number): void {
    for (let stream = this.firstFinished; stream && now - stream.finishedAt >= this.ttlMs; stream = this.firstFinished) this.release(stream);
  }

  /** Drops expired events at the head of a stream, keeping the newest of a live one. */
  private dropExpired(stream: StoredStream, now: number): void {
    while (stream.kept > 1 && now - (stream.log[stream.head + AT] as number) >= this.ttlMs) this.dropHead(stream);
  }

  private *liveStreams(): Iterable<StoredStream> {
    for (const session of this.sessions.values()) yield* session.live.values();
  }

  /**
   * Over a budget: the finished streams of `session` (undefined: of every session) first,
   * longest finished first, then the oldest events of the `live` ones, until `enough`.
   */
  private shed(session: SessionEvents | undefined, live: Iterable<StoredStream>, enough: () => boolean): void {
    for (let stream = session ? session.firstFinished : this.firstFinished; stream; stream = session ? session.firstFinished : this.firstFinished) {
      if (enough()) return;
      this.release(stream);
    }
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

  private release(stream: StoredStream): void {
    if (this.last === stream) this.last = undefined;
    const bytes = stream.bytes;
    const session = stream.session;
    session.bytes -= bytes;
    this.bytes -= bytes;
    if (stream.finishedAt >= 0) this.unlinkFinished(stream, true);
    else session.live.delete(stream.streamId);
    if (session.live.size === 0 && session.finishedCount === 0 && this.sessions.get(session.id) === session) this.sessions.delete(session.id);
  }
}

/** A stored JSON text as a message again, integer ids beyond ±(2^53 − 1) exact. */
function parseStored(text: string): JSONRPCMessage {
  const message = JSON.parse(text) as JSONRPCMessage;
  exactIds(message, text);
  return message;
}
