/**
 * The streams a `MemoryEventStore` keeps (./events-memory.ts): a live stream's events as
 * one flat array, a session's finished streams as records in one byte buffer, and the session
 * that holds both.
 */
import { FewMap } from '../jsonrpc/few.js';
import { ENCODER, getString, putUtf16, putUtf8, wellFormed } from './events-bytes.js';

// A live stream's events are one flat array, four slots per event: sequence number, time stored
// (ms since the store was made), bytes counted, and the message's JSON text (null: a priming
// event).
export const SEQ = 0;
export const AT = 1;
export const BYTES = 2;
export const TEXT = 3;
export const SLOTS = 4;

/** A stream that is still being written (its events as they were stored). */
export class StoredStream {
  /** Events, {@link SLOTS} slots each, oldest first; the kept ones start at `head`. */
  log: Array<number | string | null> = [];
  /** Slot index of the first kept event (dropping from the head is O(1)). */
  head = 0;
  /** Highest sequence number discarded from this stream (0: none). */
  discardedThrough = 0;
  /** Bytes of the kept events, counted as for the budgets. */
  bytes = 0;
  /** The request claimed for this stream (MemoryEventStore.claimRequest), lasting while it is live. */
  claim: RequestClaim | undefined = undefined;

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
export const MAX_CAPACITY = 2 ** 30;

/** A buffer size for `used` bytes: half as much again, in KiB. */
export const roomFor = (used: number): number => Math.max(FIRST_CAPACITY, Math.ceil((used * 1.5) / 1024) * 1024);

/** The finished streams of one session, as records in one buffer (see above). */
export class FinishedStreams {
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
    if (idUtf16) idLength = putUtf16(bytes, r + R_ID, stream.streamId);
    view.setUint32(r + R_ID_LENGTH, idLength, true);
    view.setUint32(r + R_ID_UTF16, idUtf16 ? 1 : 0, true);
    let e = r + R_ID + idLength;
    for (let i = stream.head; i < log.length; i += SLOTS) {
      const text = log[i + TEXT] as string | null;
      let length = text === null ? -1 : putUtf8(bytes, e + E_TEXT, text);
      const utf16 = text !== null && length < 0;
      if (utf16) length = putUtf16(bytes, e + E_TEXT, text);
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
    if (utf16) putUtf16(id, 0, streamId);
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

  /** Record `r` as a live stream of `session` again (the record stays: {@link remove} it). */
  toStream(r: number, streamId: string, session: SessionEvents): StoredStream {
    const view = this.view;
    const stream = new StoredStream(streamId, session);
    stream.bytes = view.getFloat64(r + R_BYTES, true);
    stream.discardedThrough = view.getFloat64(r + R_DISCARDED, true);
    const end = r + view.getUint32(r + R_LENGTH, true);
    for (let e = r + R_ID + view.getUint32(r + R_ID_LENGTH, true); e < end; ) {
      // the text's length in bytes, -1: a priming event (null)
      const length = view.getInt32(e + E_LENGTH, true);
      const text = length < 0 ? null : getString(this.bytes, e + E_TEXT, length, view.getUint8(e + E_UTF16) === 1);
      stream.log.push(
        view.getFloat64(e + E_SEQ, true),
        view.getFloat64(e + E_AT, true),
        EVENT_OVERHEAD + (text === null ? 0 : text.length),
        text,
      );
      e += E_TEXT + Math.max(length, 0);
    }
    return stream;
  }
}

/** The events of one session: its live streams and its finished ones. */
export class SessionEvents {
  /**
   * Live streams by stream id (a few: the requests in flight and the standalone stream). A
   * finished stream is a record in `finished`, found by a scan (on a resumption, or a store
   * to a stream not live): a Map of every stream kept would be looked up for each new stream
   * and shrunk for each released one, hundreds of cold entries per session.
   */
  readonly live = new FewMap<string, StoredStream>();
  /** The finished streams kept (undefined: none). */
  finished: FinishedStreams | undefined = undefined;
  /** Bytes held for the session: its events and its request claims. */
  bytes = 0;
  /** Request claims by request key (undefined: none). */
  claims: Map<string, RequestClaim> | undefined = undefined;
  /** Bytes of `claims` (counted in `bytes` too). */
  claimBytes = 0;
  /** How many of `claims` are live (their stream has not finished): what `maxClaims` bounds. */
  liveClaims = 0;

  constructor(readonly id: string) {}
}

/**
 * A claimed request (MemoryEventStore.claimRequest): its claim text, what it costs in the byte
 * budgets, and when its stream finished (store clock; undefined while the stream is live: the
 * claim does not expire then).
 */
export interface RequestClaim {
  readonly key: string;
  readonly text: string;
  readonly bytes: number;
  finishedAt: number | undefined;
}

/** What a request claim costs beside its key and text, for the byte budgets. */
export const CLAIM_OVERHEAD = 64;

/** What an event costs beside its message, for the byte budgets. */
export const EVENT_OVERHEAD = 64;

/**
 * The events of `stream` after the one numbered `seq` that carry a message, as `[sequence,
 * text]`; undefined when `seq` is not one of its kept events and not the last one discarded from
 * it (a replay would skip messages). A finished stream is read as {@link FinishedStreams.toStream}
 * of its record.
 */
export function textsAfter(stream: StoredStream, seq: number): Array<[number, string]> | undefined {
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
