/**
 * Storage behind resumable SSE streams (2025-11-25 basic/transports, "Resumability and
 * Redelivery"). The HTTP server transport stores every SSE event it sends and, when a client
 * reconnects with `Last-Event-ID`, replays the events of that one stream that came after it.
 */
import type { JSONRPCMessage } from './types.js';

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

/** Options for {@link MemoryEventStore}. Every bound holds per store (per session by default). */
export interface MemoryEventStoreOptions {
  /** Events kept per stream; older ones are discarded first. Default 1000. */
  maxEventsPerStream?: number;
  /**
   * Finished streams kept for resumption; the one that finished longest ago is released first.
   * Live streams are never released by this bound. Default 4096.
   */
  maxStreams?: number;
  /**
   * Bytes kept: each event counts its message's JSON text length plus 64 (its bookkeeping).
   * Over it, finished streams go first (longest finished first), then the oldest events of
   * live streams; the newest event of a live stream is always kept. Default 8 MiB (8 388 608).
   */
  maxBytes?: number;
  /**
   * How long an event stays replayable, ms: older events are discarded (the newest event of a
   * live stream excepted) and a finished stream is released this long after it finished.
   * Applied whenever the store is used. Default 300 000 (5 minutes).
   */
  ttlMs?: number;
  /** Clock in ms (tests). Default `Date.now`. */
  now?: () => number;
}

interface StoredEvent {
  seq: number;
  id: string;
  message: JSONRPCMessage | null;
  bytes: number;
  at: number;
}

interface StoredStream {
  key: string;
  events: StoredEvent[];
  /** Index of the first kept event in `events` (dropping from the head is O(1)). */
  head: number;
  /** Highest sequence number discarded from this stream (0: none). */
  discardedThrough: number;
  /** When the stream finished (undefined: live). */
  finishedAt?: number;
}

/** What an event costs beside its message, for the byte budget. */
const EVENT_OVERHEAD = 64;

const keyOf = (sessionId: string, streamId: string): string => `${sessionId}\n${streamId}`;

/**
 * In-memory {@link EventStore}, bounded in events per stream, finished streams, bytes and age.
 * Event IDs have the form `<streamId>_<sequence>`, the sequence counting across the store, so
 * an ID names its stream; the stream is looked up under the session the call names.
 */
export class MemoryEventStore implements EventStore {
  private readonly maxEvents: number;
  private readonly maxStreams: number;
  private readonly maxBytes: number;
  private readonly ttlMs: number;
  private readonly now: () => number;
  /** By `keyOf(session, stream)`; created by the first stored event (most sessions store none). */
  private streams: Map<string, StoredStream> | undefined;
  /** Finished streams, in the order they finished. */
  private finished: Map<string, StoredStream> | undefined;
  private seq = 0;
  private bytes = 0;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.maxEvents = Math.max(1, options.maxEventsPerStream ?? 1000);
    this.maxStreams = Math.max(0, options.maxStreams ?? 4096);
    this.maxBytes = Math.max(0, options.maxBytes ?? 8 * 1024 * 1024);
    this.ttlMs = Math.max(0, options.ttlMs ?? 300_000);
    this.now = options.now ?? Date.now;
  }

  /** Bytes held now, counted as for `maxBytes`. */
  get size(): number {
    return this.bytes;
  }

  storeEvent(sessionId: string, streamId: string, message: JSONRPCMessage | null): string {
    const now = this.now();
    this.expire(now);
    const streams = (this.streams ??= new Map());
    const key = keyOf(sessionId, streamId);
    let stream = streams.get(key);
    if (!stream) {
      stream = { key, events: [], head: 0, discardedThrough: 0 };
      streams.set(key, stream);
    } else if (stream.finishedAt !== undefined) {
      // stored after it finished: live again
      stream.finishedAt = undefined;
      this.finished?.delete(key);
    }
    const seq = ++this.seq;
    const id = `${streamId}_${seq}`;
    const bytes = EVENT_OVERHEAD + (message === null ? 0 : JSON.stringify(message).length);
    stream.events.push({ seq, id, message, bytes, at: now });
    this.bytes += bytes;
    if (stream.events.length - stream.head > this.maxEvents) this.dropHead(stream);
    else this.dropExpired(stream, now);
    if (this.bytes > this.maxBytes) this.shed();
    return id;
  }

  async replayEventsAfter(
    sessionId: string,
    lastEventId: string,
    send: (eventId: string, message: JSONRPCMessage) => void | Promise<void>,
  ): Promise<string | undefined> {
    this.expire(this.now());
    const cut = lastEventId.lastIndexOf('_');
    if (cut <= 0) return undefined;
    const streamId = lastEventId.slice(0, cut);
    const seqText = lastEventId.slice(cut + 1);
    if (!/^[1-9][0-9]*$/.test(seqText)) return undefined;
    const seq = Number(seqText);
    const stream = this.streams?.get(keyOf(sessionId, streamId));
    if (!stream || seq > this.seq) return undefined;
    const kept = stream.events.slice(stream.head);
    const known = kept.some((e) => e.seq === seq);
    if (!known && seq !== stream.discardedThrough) return undefined;
    for (const e of kept) {
      if (e.seq > seq && e.message !== null) await send(e.id, e.message);
    }
    return streamId;
  }

  streamFinished(sessionId: string, streamId: string): void {
    const key = keyOf(sessionId, streamId);
    const stream = this.streams?.get(key);
    if (!stream || stream.finishedAt !== undefined) return;
    stream.finishedAt = this.now();
    const finished = (this.finished ??= new Map());
    finished.set(key, stream);
    if (finished.size > this.maxStreams) this.release(finished.values().next().value as StoredStream);
  }

  clear(sessionId: string): void {
    if (!this.streams) return;
    const prefix = `${sessionId}\n`;
    for (const [key, stream] of this.streams) if (key.startsWith(prefix)) this.release(stream);
  }

  /** Releases finished streams past their TTL (oldest finished first, so the scan stops early). */
  private expire(now: number): void {
    if (!this.finished) return;
    for (const stream of this.finished.values()) {
      if (now - (stream.finishedAt as number) < this.ttlMs) break;
      this.release(stream);
    }
  }

  /** Drops expired events at the head of a stream, keeping the newest of a live one. */
  private dropExpired(stream: StoredStream, now: number): void {
    while (stream.events.length - stream.head > 1 && now - stream.events[stream.head].at >= this.ttlMs) this.dropHead(stream);
  }

  /** Over the byte budget: finished streams first, then the oldest events of live streams. */
  private shed(): void {
    if (this.finished) {
      for (const stream of this.finished.values()) {
        if (this.bytes <= this.maxBytes) return;
        this.release(stream);
      }
    }
    for (const stream of this.streams?.values() ?? []) {
      while (this.bytes > this.maxBytes && stream.events.length - stream.head > 1) this.dropHead(stream);
      if (this.bytes <= this.maxBytes) return;
    }
  }

  private dropHead(stream: StoredStream): void {
    const dropped = stream.events[stream.head++];
    stream.discardedThrough = dropped.seq;
    this.bytes -= dropped.bytes;
    if (stream.head > 32 && stream.head * 2 > stream.events.length) {
      stream.events = stream.events.slice(stream.head);
      stream.head = 0;
    }
  }

  private release(stream: StoredStream): void {
    for (let i = stream.head; i < stream.events.length; i++) this.bytes -= stream.events[i].bytes;
    this.streams?.delete(stream.key);
    this.finished?.delete(stream.key);
    if (this.streams?.size === 0) this.streams = undefined;
    if (this.finished?.size === 0) this.finished = undefined;
  }
}
