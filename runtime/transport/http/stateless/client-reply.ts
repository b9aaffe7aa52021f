/**
 * Reading the SSE replies of the stateless client transport (./fetch-client.ts), and the whole
 * of a reply read outside the engine (the `tools/list` refresh of a -32020 retry).
 */
import { SseParser, type SseEvent } from '../../../codec/sse.js';
import { ConnectionClosedError } from '../../../jsonrpc/errors.js';
import type { JSONRPCMessage } from '../../../jsonrpc/transport.js';
import { type BodySink, type HttpReply, mediaType, readInto } from '../io/request.js';
import type { Id } from './client-flight.js';
import { parsePeerJson } from '../../../codec/json-depth.js';

/** Where a reply's messages go: each to the transport's answer, or the request's failure. */
export interface ReplyTarget {
  answer(m: JSONRPCMessage): void;
  fail(id: Id, error: Error): void;
}

/**
 * An SSE reply to request `id`: each event's message to `to.answer` as it arrives, from the I/O
 * callbacks (readInto: no promise per reply or chunk); the request fails (`to.fail`) when the
 * stream breaks, holds an event that is not JSON or over `maxEventSize`, or ends without its
 * answer.
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
      if (e.data === '') continue;
      const m = parsePeerJson(e.data) as JSONRPCMessage;
      if (!('method' in m) && m.id === this.id) this.answered = true;
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
    const { id, to } = this;
    if (this.failure !== undefined) return to.fail(id, this.failure as Error);
    // the stream broke: the request may have run, and a stateless stream cannot be resumed
    if (error)
      return to.fail(
        id,
        new ConnectionClosedError(error, 'Connection lost before the response (the request may have run)'),
      );
    try {
      this.take(this.parser.end());
    } catch (e) {
      return to.fail(id, e as Error);
    }
    if (!this.answered)
      to.fail(
        id,
        new ConnectionClosedError(
          undefined,
          'Connection closed: the response stream ended without a response (the request may have run)',
        ),
      );
  }
}

/** The JSON-RPC messages of a whole response (one JSON body, or every SSE event); none when it does not parse. */
export async function readMessages(res: HttpReply): Promise<JSONRPCMessage[]> {
  const text = await res.text();
  try {
    if (mediaType(res.header('content-type')) === 'text/event-stream') {
      const parser = new SseParser();
      return [...parser.push(text), ...parser.end()]
        .filter((e) => e.data !== '')
        .map((e) => parsePeerJson(e.data) as JSONRPCMessage);
    }
    return text === '' ? [] : [parsePeerJson(text) as JSONRPCMessage];
  } catch {
    return [];
  }
}
