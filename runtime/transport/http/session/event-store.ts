/**
 * Storage behind resumable SSE streams (2025-11-25 basic/transports, "Resumability and
 * Redelivery"). The HTTP server transport stores every SSE event it sends and, when a client
 * reconnects with `Last-Event-ID`, replays the events of that one stream that came after it.
 */
import type { JSONRPCMessage } from '../../../jsonrpc/transport.js';

/**
 * Event storage for one session. Event IDs must be unique across all streams of the session
 * and must not contain CR, LF or NUL (they travel in the SSE `id` field).
 *
 * The server calls these methods one at a time per session, in send order.
 */
export interface EventStore {
  /**
   * Records one event sent on `streamId` and returns its event ID. `message` is null for a
   * priming event (an ID with empty data that gives the client a resumption cursor); such
   * events take part in ordering but are never replayed.
   */
  storeEvent(streamId: string, message: JSONRPCMessage | null): string | Promise<string>;
  /**
   * Calls `send` for every non-priming event stored after `lastEventId` on the stream that
   * event belongs to, in order, and returns that stream's ID. Returns undefined when the event
   * is unknown, or when events after it have been discarded (replay would skip messages).
   */
  replayEventsAfter(
    lastEventId: string,
    send: (eventId: string, message: JSONRPCMessage) => void | Promise<void>,
  ): string | undefined | Promise<string | undefined>;
  /** Releases everything stored (the session ended). Optional. */
  clear?(): void | Promise<void>;
}

/** Options for {@link MemoryEventStore}. */
export interface MemoryEventStoreOptions {
  /** Events kept per stream; older ones are discarded first. Default 1000. */
  maxEventsPerStream?: number;
  /** Streams kept; the stream created longest ago is discarded first. Default 64. */
  maxStreams?: number;
}

interface StoredEvent {
  seq: number;
  id: string;
  message: JSONRPCMessage | null;
}

interface StoredStream {
  events: StoredEvent[];
  /** Highest sequence number discarded from this stream (0: none). */
  discardedThrough: number;
}

/**
 * In-memory {@link EventStore}, bounded per stream and in the number of streams. Event IDs
 * have the form `<streamId>_<sequence>`, the sequence counting across the store, so an ID
 * names its stream.
 */
export class MemoryEventStore implements EventStore {
  private readonly maxEvents: number;
  private readonly maxStreams: number;
  /** Created by the first stored event (most sessions never store one). */
  private streams: Map<string, StoredStream> | undefined;
  private seq = 0;

  constructor(options: MemoryEventStoreOptions = {}) {
    this.maxEvents = Math.max(1, options.maxEventsPerStream ?? 1000);
    this.maxStreams = Math.max(1, options.maxStreams ?? 64);
  }

  storeEvent(streamId: string, message: JSONRPCMessage | null): string {
    const streams = (this.streams ??= new Map());
    let stream = streams.get(streamId);
    if (!stream) {
      stream = { events: [], discardedThrough: 0 };
      streams.set(streamId, stream);
      if (streams.size > this.maxStreams) {
        const oldest = streams.keys().next().value as string;
        streams.delete(oldest);
      }
    }
    const seq = ++this.seq;
    const id = `${streamId}_${seq}`;
    stream.events.push({ seq, id, message });
    if (stream.events.length > this.maxEvents) {
      const dropped = stream.events.shift() as StoredEvent;
      stream.discardedThrough = dropped.seq;
    }
    return id;
  }

  async replayEventsAfter(
    lastEventId: string,
    send: (eventId: string, message: JSONRPCMessage) => void | Promise<void>,
  ): Promise<string | undefined> {
    const cut = lastEventId.lastIndexOf('_');
    if (cut <= 0) return undefined;
    const streamId = lastEventId.slice(0, cut);
    const seqText = lastEventId.slice(cut + 1);
    if (!/^[1-9][0-9]*$/.test(seqText)) return undefined;
    const seq = Number(seqText);
    const stream = this.streams?.get(streamId);
    if (!stream || seq > this.seq) return undefined;
    const known = stream.events.some((e) => e.seq === seq);
    if (!known && seq !== stream.discardedThrough) return undefined;
    for (const e of stream.events.slice()) {
      if (e.seq > seq && e.message !== null) await send(e.id, e.message);
    }
    return streamId;
  }

  clear(): void {
    this.streams = undefined;
  }
}
