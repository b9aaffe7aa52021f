/** Reading the SSE replies of the stateless client transport (./fetch-client.ts). */
import { SseParser, type SseEvent } from '../../../codec/sse.js';
import { ConnectionClosedError } from '../../../jsonrpc/errors.js';
import type { JSONRPCMessage } from '../../../jsonrpc/transport.js';
import { adoptAnswer, eventMessage, type BodySink, type HttpReply, readInto, stray } from '../io/request.js';
import type { Id } from './client-flight.js';

/** Where a reply's messages go: each to the transport's answer, or the request's failure. */
export interface ReplyTarget {
  answer(m: JSONRPCMessage): void;
  fail(id: Id, error: Error): void;
  /** An event skipped (not JSON): the transport's `onError`, as the 2025 client reports it. */
  skipped(error: Error): void;
}

/** What a request whose SSE reply could not be read to its answer fails with (as the 2025 client words it). */
const streamLost = (cause: unknown): ConnectionClosedError =>
  new ConnectionClosedError(cause, 'SSE response stream lost before the response (the request may have run)');

/**
 * An SSE reply to request `id`: each event's message to `to.answer` as it arrives, from the I/O
 * callbacks (readInto: no promise per reply or chunk). An event whose type (`event:` field) is not
 * `message`, or whose data is empty, is skipped, as the 2025 client skips it (the SSE standard
 * dispatches such an event to listeners of its own type, not as a message). An event whose data is
 * not JSON, a JSON array (a batch) or no object is skipped and named to `to.skipped` (../io/request.ts
 * `eventMessage`), as the 2025 client does. The request fails (`to.fail`) with a ConnectionClosedError (-32000) when
 * the stream breaks, holds an event over `maxEventSize` (its `cause` the SseSizeError), or ends
 * without its answer.
 */
export function readSseReply(id: Id, res: HttpReply, maxEventSize: number | undefined, to: ReplyTarget): void {
  readInto(res, new SseReply(id, new SseParser({ maxEventSize }), to));
}

/** The sink of one SSE reply (one object per reply, no closures). */
class SseReply implements BodySink {
  answered = false;
  failure: unknown = undefined;
  constructor(
    readonly id: Id,
    readonly parser: SseParser,
    readonly to: ReplyTarget,
  ) {}

  take(events: SseEvent[]): void {
    for (const e of events) {
      // (an event of another type than "message" is no JSON-RPC message: skipped, as the 2025 client does)
      if (e.event !== 'message' || e.data === '') continue;
      const m = eventMessage(e.data);
      if (m instanceof Error) {
        this.to.skipped(m);
        continue;
      }
      // (its id, or an error's null or absent id: JSON-RPC 2.0 §5, given the request's)
      if (adoptAnswer(m, this.id)) this.answered = true;
      else if (!('method' in m)) this.to.skipped(stray(m.id));
      this.to.answer(m);
    }
  }

  chunk(data: string | Uint8Array): boolean {
    try {
      this.take(this.parser.push(data));
      return true;
    } catch (e) {
      this.failure = e;
      return false;
    }
  }

  end(error: Error | undefined): void {
    if (this.failure !== undefined) return this.lost(streamLost(this.failure));
    // the stream broke: the request may have run, and a stateless stream cannot be resumed
    if (error)
      return this.lost(
        new ConnectionClosedError(error, 'Connection lost before the response (the request may have run)'),
      );
    try {
      this.take(this.parser.end());
    } catch (e) {
      return this.lost(streamLost(e));
    }
    // (tested here, not only in lost(): an answered stream, the usual end, makes no error)
    if (!this.answered)
      this.lost(
        new ConnectionClosedError(
          undefined,
          'Connection closed: the response stream ended without a response (the request may have run)',
        ),
      );
  }

  /**
   * The request fails with `error`, unless this stream answered it (a fault of the stream after
   * the answer fails nothing: the request may be under way again, posted once more after -32020).
   */
  lost(error: Error): void {
    if (!this.answered) this.to.fail(this.id, error);
  }
}
