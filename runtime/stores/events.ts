// size: the event store: memory log, shared follow and resumption; split pending (#36)
/**
 * Storage behind resumable SSE streams (2025-11-25 basic/transports, "Resumability and
 * Redelivery"). The HTTP server transport stores every SSE event it sends and, when a client
 * reconnects with `Last-Event-ID`, replays the events of that one stream that came after it.
 */
import { exactIds, serializeMessage } from '../jsonrpc/message.js';
import { FewMap } from '../jsonrpc/few.js';
import { decimal } from '../jsonrpc/decimal.js';
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

// A live stream's events are one flat array, four slots per event: sequence number, time stored
// (ms since the store was made), bytes counted, and the message's JSON text (null: a priming
// event).
const SEQ = 0;
const AT = 1;
const BYTES = 2;
const TEXT = 3;
const SLOTS = 4;

/** A stream that is still being written (its events as they were stored). */
class StoredStream {
  /** Events, {@link SLOTS} slots each, oldest first; the kept ones start at `head`. */
  log: Array<number | string | null> = [];
  /** Slot index of the first kept event (dropping from the head is O(1)). */
  head = 0;
  /** Highest sequence number discarded from this stream (0: none). */
  discardedThrough = 0;
  /** Bytes of the kept events, counted as for the budgets. */
  bytes = 0;

  constructor(
    readonly streamId: string,
    readonly session: SessionEvents,
  ) {}

  /** Events kept. */
  get kept(): number {
    return (this.log.length - this.head) / SLOTS;
  }
}

// A finished stream is kept for minutes (256 per session by default) and read again only if its
// client resumes it. Kept as JS objects and strings (the stream, its log, its id, each text), it
// would be copied by every young-generation collection until promoted: under load that was the
// largest cost of an SSE reply. So finished streams are bytes instead: one record after another
// in their session's buffer, oldest finished first. A record (numbers little-endian):
//   R_SERIAL     f64  its place in the order streams finished, across the store
//   R_BYTES      f64  bytes counted for the budgets (the stream's `bytes`)
//   R_DISCARDED  f64  the stream's `discardedThrough`
//   R_LENGTH     u32  length of the whole record
//   R_ID_LENGTH  u32  length of the stream id in bytes
//   R_ID_UTF16   u32  1 when the id is written as UTF-16 code units, else 0 (UTF-8); then the id
// then per event: E_SEQ f64 sequence, E_AT f64 time stored, E_LENGTH i32 length of the text in
// bytes (-1: a priming event), E_UTF16 u8 as R_ID_UTF16, the text. A string goes as UTF-8 unless
// it holds a lone surrogate, which UTF-8 cannot carry (JSON.stringify never makes one, a caller's
// stream id might): then as its UTF-16 code units, so that every string comes back exactly.
const R_SERIAL = 0;
const R_BYTES = 8;
const R_DISCARDED = 16;
const R_LENGTH = 24;
const R_ID_LENGTH = 28;
const R_ID_UTF16 = 32;
const R_ID = 36;
const E_SEQ = 0;
const E_AT = 8;
const E_LENGTH = 16;
const E_UTF16 = 20;
const E_TEXT = 21;
/** Smallest size of a session's buffer of finished streams, bytes. */
const FIRST_CAPACITY = 1024;
/**
 * Largest size of a session's buffer, bytes (a typed array this long still takes every write:
 * `TextEncoder.encodeInto` writes nothing into a view past 2^31 bytes on some runtimes). The
 * store releases a session's oldest finished streams to stay under it.
 */
const MAX_CAPACITY = 2 ** 30;
const ENCODER = new TextEncoder();
/** (ignoreBOM: a U+FEFF that begins a string is part of it) */
const DECODER = new TextDecoder('utf-8', { ignoreBOM: true });
const wellFormed: (s: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (s) => (s as string & { isWellFormed(): boolean }).isWellFormed()
    : (s) => !/\p{Cs}/u.test(s);

/** Strings up to this many code units are copied by {@link putUtf8}'s loop while they are ASCII. */
const LOOP_MAX = 512;

/**
 * Writes `s` at `at` of `bytes` (room made) as UTF-8; the bytes written, or -1 when `s` holds a
 * lone surrogate (nothing usable written: write its code units instead). A short ASCII string
 * (the usual JSON text and stream id) is copied by a loop, without the view and result object
 * that `encodeInto` takes.
 */
function putUtf8(bytes: Uint8Array, at: number, s: string): number {
  const n = s.length;
  if (n <= LOOP_MAX) {
    let i = 0;
    for (; i < n; i++) {
      const unit = s.charCodeAt(i);
      if (unit > 0x7f) break;
      bytes[at + i] = unit;
    }
    if (i === n) return n;
  }
  return wellFormed(s) ? ENCODER.encodeInto(s, bytes.subarray(at)).written : -1;
}

/** A buffer size for `used` bytes: half as much again, in KiB. */
const roomFor = (used: number): number => Math.max(FIRST_CAPACITY, Math.ceil((used * 1.5) / 1024) * 1024);

/** Writes `s` at `at` of `bytes` (room made), as UTF-8 or, when `utf16`, its code units; the bytes written. */
function putString(bytes: Uint8Array, at: number, s: string, utf16: boolean): number {
  if (!utf16) return ENCODER.encodeInto(s, bytes.subarray(at)).written;
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    bytes[at + 2 * i] = unit & 0xff;
    bytes[at + 2 * i + 1] = unit >>> 8;
  }
  return 2 * s.length;
}

/** The string of `length` bytes at `at`, as {@link putString} wrote it. */
function getString(bytes: Uint8Array, at: number, length: number, utf16: boolean): string {
  if (!utf16) return DECODER.decode(bytes.subarray(at, at + length));
  let out = '';
  for (let i = 0; i < length; i += 2 * 4096) {
    const units: number[] = [];
    for (let j = i; j < Math.min(length, i + 2 * 4096); j += 2) units.push(bytes[at + j] | (bytes[at + j + 1] << 8));
    out += String.fromCharCode(...units);
  }
  return out;
}

/** The finished streams of one session, as records in one buffer (see above). */
class FinishedStreams {
  bytes = new Uint8Array(FIRST_CAPACITY);
  view = new DataView(this.bytes.buffer);
  /** Offset of the oldest record. */
  start = 0;
  /** Offset past the newest record. */
  end = 0;
  /** Records kept. */
  count = 0;
  /** Bytes counted by the records kept. */
  counted = 0;

  /** Serial of the oldest record (Infinity: none). */
  get firstSerial(): number {
    return this.count === 0 ? Infinity : this.view.getFloat64(this.start + R_SERIAL, true);
  }

  /** Bytes the records take. */
  get used(): number {
    return this.end - this.start;
  }

  /** The most bytes a record of `stream` can take (3 bytes of UTF-8 per UTF-16 code unit). */
  static room(stream: StoredStream): number {
    const log = stream.log;
    let need = R_ID + 3 * stream.streamId.length;
    for (let i = stream.head; i < log.length; i += SLOTS) {
      const text = log[i + TEXT] as string | null;
      need += E_TEXT + (text === null ? 0 : 3 * text.length);
    }
    return need;
  }

  /** Adds finished `stream` as the newest record (at most `room` bytes, see {@link FinishedStreams.room}). */
  append(stream: StoredStream, serial: number, room: number): void {
    this.reserve(room);
    const log = stream.log;
    const bytes = this.bytes;
    const view = this.view;
    const r = this.end;
    view.setFloat64(r + R_SERIAL, serial, true);
    view.setFloat64(r + R_BYTES, stream.bytes, true);
    view.setFloat64(r + R_DISCARDED, stream.discardedThrough, true);
    let idLength = putUtf8(bytes, r + R_ID, stream.streamId);
    const idUtf16 = idLength < 0;
    if (idUtf16) idLength = putString(bytes, r + R_ID, stream.streamId, true);
    view.setUint32(r + R_ID_LENGTH, idLength, true);
    view.setUint32(r + R_ID_UTF16, idUtf16 ? 1 : 0, true);
    let e = r + R_ID + idLength;
    for (let i = stream.head; i < log.length; i += SLOTS) {
      const text = log[i + TEXT] as string | null;
      let length = text === null ? -1 : putUtf8(bytes, e + E_TEXT, text);
      const utf16 = text !== null && length < 0;
      if (utf16) length = putString(bytes, e + E_TEXT, text, true);
      view.setFloat64(e + E_SEQ, log[i + SEQ] as number, true);
      view.setFloat64(e + E_AT, log[i + AT] as number, true);
      view.setInt32(e + E_LENGTH, length, true);
      view.setUint8(e + E_UTF16, utf16 ? 1 : 0);
      e += E_TEXT + Math.max(length, 0);
    }
    view.setUint32(r + R_LENGTH, e - r, true);
    this.end = e;
    this.count++;
    this.counted += stream.bytes;
  }

  /** Makes room for `need` more bytes at the end: the records move to the start of this buffer, or of a larger one. */
  private reserve(need: number): void {
    if (this.end + need <= this.bytes.length) return;
    const capacity = roomFor(this.used + need);
    if (capacity <= this.bytes.length) this.bytes.copyWithin(0, this.start, this.end);
    else this.move(capacity);
    this.end -= this.start;
    this.start = 0;
  }

  /** Moves the records to the start of a new buffer of `capacity` bytes (offsets: the caller's). */
  private move(capacity: number): void {
    const bytes = new Uint8Array(capacity);
    bytes.set(this.bytes.subarray(this.start, this.end));
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer);
  }

  /** A buffer over three times what its records take gets one of half as much again. */
  private shrink(): void {
    const used = this.used;
    if (this.bytes.length <= FIRST_CAPACITY || 3 * used >= this.bytes.length) return;
    this.move(roomFor(used));
    this.start = 0;
    this.end = used;
  }

  /** Releases the oldest record; the bytes it counted. */
  shift(): number {
    const counted = this.view.getFloat64(this.start + R_BYTES, true);
    this.start += this.view.getUint32(this.start + R_LENGTH, true);
    this.count--;
    this.counted -= counted;
    if (this.count === 0) this.start = this.end = 0;
    else this.shrink();
    return counted;
  }

  /** Takes record `r` out (its stream is live again); the later records move down. */
  remove(r: number): void {
    const length = this.view.getUint32(r + R_LENGTH, true);
    this.counted -= this.view.getFloat64(r + R_BYTES, true);
    this.count--;
    this.bytes.copyWithin(r, r + length, this.end);
    this.end -= length;
    if (this.count === 0) this.start = this.end = 0;
    else this.shrink();
  }

  /** The offset of the record of stream `streamId`, or -1 (a scan of the records). */
  find(streamId: string): number {
    const view = this.view;
    const bytes = this.bytes;
    const utf16 = !wellFormed(streamId);
    const id = utf16 ? new Uint8Array(2 * streamId.length) : ENCODER.encode(streamId);
    if (utf16) putString(id, 0, streamId, true);
    for (let r = this.start; r < this.end; r += view.getUint32(r + R_LENGTH, true)) {
      if (view.getUint32(r + R_ID_LENGTH, true) !== id.length || (view.getUint32(r + R_ID_UTF16, true) === 1) !== utf16)
        continue;
      let i = 0;
      while (i < id.length && bytes[r + R_ID + i] === id[i]) i++;
      if (i === id.length) return r;
    }
    return -1;
  }

  /** Serial of record `r`. */
  serialOf(r: number): number {
    return this.view.getFloat64(r + R_SERIAL, true);
  }

  /**
   * The events of record `r` after the one numbered `seq` that carry a message, as
   * `[sequence, text]`; undefined when `seq` is not one of its events and not the last one
   * discarded from it (a replay would skip messages).
   */
  textsAfter(r: number, seq: number): Array<[number, string]> | undefined {
    const view = this.view;
    const end = r + view.getUint32(r + R_LENGTH, true);
    const first = r + R_ID + view.getUint32(r + R_ID_LENGTH, true);
    let from = -1;
    for (let e = first; e < end; e = this.nextEvent(e)) {
      if (view.getFloat64(e + E_SEQ, true) === seq) {
        from = this.nextEvent(e);
        break;
      }
    }
    if (from < 0) {
      if (seq !== view.getFloat64(r + R_DISCARDED, true)) return undefined;
      from = first;
    }
    const after: Array<[number, string]> = [];
    for (let e = from; e < end; e = this.nextEvent(e)) {
      const text = this.textAt(e);
      if (text !== null) after.push([view.getFloat64(e + E_SEQ, true), text]);
    }
    return after;
  }

  /** Record `r` as a live stream of `session` again (the record stays: {@link remove} it). */
  toStream(r: number, streamId: string, session: SessionEvents): StoredStream {
    const view = this.view;
    const stream = new StoredStream(streamId, session);
    stream.bytes = view.getFloat64(r + R_BYTES, true);
    stream.discardedThrough = view.getFloat64(r + R_DISCARDED, true);
    const end = r + view.getUint32(r + R_LENGTH, true);
    for (let e = r + R_ID + view.getUint32(r + R_ID_LENGTH, true); e < end; e = this.nextEvent(e)) {
      const text = this.textAt(e);
      stream.log.push(
        view.getFloat64(e + E_SEQ, true),
        view.getFloat64(e + E_AT, true),
        EVENT_OVERHEAD + (text === null ? 0 : text.length),
        text,
      );
    }
    return stream;
  }

  /** The text of the event at `e` (null: a priming event). */
  private textAt(e: number): string | null {
    const length = this.view.getInt32(e + E_LENGTH, true);
    return length < 0 ? null : getString(this.bytes, e + E_TEXT, length, this.view.getUint8(e + E_UTF16) === 1);
  }

  private nextEvent(e: number): number {
    const length = this.view.getInt32(e + E_LENGTH, true);
    return e + E_TEXT + Math.max(length, 0);
  }
}

class SessionEvents {
  /**
   * Live streams by stream id (a few: the requests in flight and the standalone stream). A
   * finished stream is a record in `finished`, found by a scan (on a resumption, or a store
   * to a stream not live): a Map of every stream kept would be looked up for each new stream
   * and shrunk for each released one, hundreds of cold entries per session.
   */
  readonly live = new FewMap<string, StoredStream>();
  /** The finished streams kept (undefined: none). */
  finished: FinishedStreams | undefined = undefined;
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
 * Finished streams are kept as bytes, at most 1 GiB of them per session whatever the budgets
 * (past it, the session's oldest finished streams go first).
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
  private seq = 0;
  private bytes = 0;
  /** The stream stored to last (a stream's events, and its end, come one after another): no lookups for it. */
  private last: StoredStream | undefined;
  // The finished streams of every session in the order they finished, for the TTL and the
  // store's byte budget: a ring of (session, the record's serial, when it finished). An entry
  // whose record went otherwise (maxStreams, the session's budget, clear) is dropped when it
  // comes first, or when the ring is full and rebuilt; one whose stream was stored to again is
  // emptied at once.
  private orderSession: Array<SessionEvents | undefined> = new Array<SessionEvents | undefined>(64).fill(undefined);
  private orderSerial = new Float64Array(64);
  private orderAt = new Float64Array(64);
  private orderHead = 0;
  private orderLength = 0;
  /** Serial of the last stream that finished. */
  private serial = 0;

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
    if (session.bytes > this.maxSessionBytes)
      this.shed(session, session.live.values(), () => session.bytes <= this.maxSessionBytes);
    if (this.bytes > this.maxBytes) this.shed(undefined, this.liveStreams(), () => this.bytes <= this.maxBytes);
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
      after = r < 0 ? undefined : finished!.textsAfter(r, seq);
    }
    if (!after) return undefined;
    for (const [s, text] of after) send(`${streamId}_${decimal(s)}`, text);
    return streamId;
  }

  streamFinished(sessionId: string, streamId: string): void {
    const stream = this.recent(sessionId, streamId) ?? this.sessions.get(sessionId)?.live.get(streamId);
    if (!stream) return;
    const session = stream.session;
    session.live.delete(streamId);
    if (this.last === stream) this.last = undefined;
    if (this.maxStreams === 0) {
      this.forgetBytes(session, stream.bytes);
      this.dropIfEmpty(session);
      return;
    }
    const room = FinishedStreams.room(stream);
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
    this.pushOrder(session, serial, Math.max(0, this.now() - this.epoch));
    if (finished.count > this.maxStreams) this.releaseFirst(session);
  }

  /** Finished stream `streamId` of `session` as a live stream again, when one is kept. */
  private revive(session: SessionEvents, streamId: string): StoredStream | undefined {
    const finished = session.finished;
    const r = finished ? finished.find(streamId) : -1;
    if (r < 0) return undefined;
    const stream = finished!.toStream(r, streamId, session);
    this.forgetOrder(finished!.serialOf(r));
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

  clear(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    for (const stream of [...session.live.values()]) {
      if (this.last === stream) this.last = undefined;
      session.live.delete(stream.streamId);
      this.forgetBytes(session, stream.bytes);
    }
    if (session.finished) this.forgetBytes(session, session.finished.counted);
    session.finished = undefined;
    this.sessions.delete(sessionId);
  }

  private forgetBytes(session: SessionEvents, bytes: number): void {
    session.bytes -= bytes;
    this.bytes -= bytes;
  }

  private dropIfEmpty(session: SessionEvents): void {
    if (session.live.size === 0 && session.finished === undefined && this.sessions.get(session.id) === session)
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

  /** Whether the entry at `i` of the ring still names a kept record. */
  private orderKept(i: number): boolean {
    const finished = this.orderSession[i]?.finished;
    return finished !== undefined && this.orderSerial[i] >= finished.firstSerial;
  }

  /** Drops the entry of the record numbered `serial` from the ring (a binary search: the ring is in serial order). */
  private forgetOrder(serial: number): void {
    const capacity = this.orderSession.length;
    let low = 0;
    let high = this.orderLength - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const i = (this.orderHead + middle) % capacity;
      const found = this.orderSerial[i];
      if (found === serial) {
        this.orderSession[i] = undefined;
        return;
      }
      if (found < serial) low = middle + 1;
      else high = middle - 1;
    }
  }

  private pushOrder(session: SessionEvents, serial: number, at: number): void {
    if (this.orderLength === this.orderSession.length) this.rebuildOrder();
    const i = (this.orderHead + this.orderLength) % this.orderSession.length;
    this.orderSession[i] = session;
    this.orderSerial[i] = serial;
    this.orderAt[i] = at;
    this.orderLength++;
  }

  /**
   * The ring is full: its entries that name kept records, in a ring at least twice their number.
   * That is the same ring, compacted in place, unless it must grow or is four times too large:
   * a new ring of thousands of entries for each rebuild was garbage of the old generation.
   */
  private rebuildOrder(): void {
    const capacity = this.orderSession.length;
    let kept = 0;
    for (let n = 0; n < this.orderLength; n++) if (this.orderKept((this.orderHead + n) % capacity)) kept++;
    let size = 64;
    while (size < 2 * kept + 2) size *= 2;
    if (size <= capacity && 4 * size > capacity) return this.compactOrder();
    const sessions = new Array<SessionEvents | undefined>(size).fill(undefined);
    const serials = new Float64Array(size);
    const at = new Float64Array(size);
    let j = 0;
    for (let n = 0; n < this.orderLength; n++) {
      const i = (this.orderHead + n) % capacity;
      if (!this.orderKept(i)) continue;
      sessions[j] = this.orderSession[i];
      serials[j] = this.orderSerial[i];
      at[j] = this.orderAt[i];
      j++;
    }
    this.orderSession = sessions;
    this.orderSerial = serials;
    this.orderAt = at;
    this.orderHead = 0;
    this.orderLength = j;
  }

  /**
   * Drops the entries of the ring that name no kept record, in place: the others move up in
   * order behind the head (an entry is only ever written where an earlier one was read).
   */
  private compactOrder(): void {
    const capacity = this.orderSession.length;
    const head = this.orderHead;
    let w = 0;
    for (let n = 0; n < this.orderLength; n++) {
      const i = (head + n) % capacity;
      if (!this.orderKept(i)) continue;
      if (w !== n) {
        const j = (head + w) % capacity;
        this.orderSession[j] = this.orderSession[i];
        this.orderSerial[j] = this.orderSerial[i];
        this.orderAt[j] = this.orderAt[i];
      }
      w++;
    }
    for (let n = w; n < this.orderLength; n++) this.orderSession[(head + n) % capacity] = undefined;
    this.orderLength = w;
  }

  /**
   * Takes the first entry off the ring and releases its record when that is its session's
   * oldest (a kept record always is when its entry comes first: records and entries are both
   * in the order streams finished); false when it named nothing kept.
   */
  private releaseOrderHead(): boolean {
    const i = this.orderHead;
    const session = this.orderSession[i];
    const serial = this.orderSerial[i];
    this.orderSession[i] = undefined;
    this.orderHead = (i + 1) % this.orderSession.length;
    this.orderLength--;
    if (session === undefined || session.finished?.firstSerial !== serial) return false;
    this.releaseFirst(session);
    return true;
  }

  /** Releases finished streams past their TTL (oldest finished first, so the scan stops early). */
  private expire(now: number): void {
    while (this.orderLength > 0 && now - this.orderAt[this.orderHead] >= this.ttlMs) this.releaseOrderHead();
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
    if (session) {
      while (session.finished && !enough()) this.releaseFirst(session);
    } else {
      while (this.orderLength > 0 && !enough()) this.releaseOrderHead();
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

/** {@link FinishedStreams.textsAfter} of a live stream. */
function textsAfter(stream: StoredStream, seq: number): Array<[number, string]> | undefined {
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
  return after;
}

/** A stored JSON text as a message again, integer ids beyond ±(2^53 − 1) exact. */
function parseStored(text: string): JSONRPCMessage {
  const message = JSON.parse(text) as JSONRPCMessage;
  exactIds(message, text);
  return message;
}
