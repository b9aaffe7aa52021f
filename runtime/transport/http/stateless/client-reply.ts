/**
 * Reading the SSE replies of the stateless client transport (./fetch-client.ts), and the whole
 * of a reply read outside the engine (the `tools/list` refresh of a -32020 retry).
 */
import { SseParser } from '../../../codec/sse.js';
import { ConnectionClosedError } from '../../../jsonrpc/errors.js';
import type { JSONRPCMessage } from '../../../jsonrpc/transport.js';
import { type HttpReply, mediaType, readInto } from '../io/request.js';
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
  const parser = new SseParser({ maxEventSize });
  let answered = false;
  let failure: unknown;
  const take = (events: ReturnType<SseParser['end']>): void => {
    for (const e of events) {
      if (e.data === '') continue;
      const m = parsePeerJson(e.data) as JSONRPCMessage;
      if (!('method' in m) && m.id === id) answered = true;
      to.answer(m);
    }
  };
  readInto(res, {
    chunk(data) {
      try {
        take(parser.push(data));
        return true;
      } catch (e) {
        failure = e;
        return false;
      }
    },
    end: (error) => {
      if (failure !== undefined) return to.fail(id, failure as Error);
      // the stream broke: the request may have run, and a stateless stream cannot be resumed
      if (error)
        return to.fail(
          id,
          new ConnectionClosedError(error, 'Connection lost before the response (the request may have run)'),
        );
      try {
        take(parser.end());
      } catch (e) {
        return to.fail(id, e as Error);
      }
      if (!answered)
        to.fail(
          id,
          new ConnectionClosedError(
            undefined,
            'Connection closed: the response stream ended without a response (the request may have run)',
          ),
        );
    },
  });
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
