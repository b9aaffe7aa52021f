/**
 * A request in flight of the stateless client transport (./fetch-client.ts), and what it reports
 * to that transport: the reply of its first POST, that reply's JSON body, or the failure of
 * either.
 */
import type { JSONRPCMessage } from '../../../jsonrpc/transport.js';
import {
  Cancel,
  lostBefore,
  type HttpReply,
  type HttpRequestInit,
  type ReplyTaker,
  type TextTaker,
} from '../io/request.js';

/** A request id of this transport (a Map tells the id 1 from the id "1"). */
export type Id = string | number;

/** What the requests in flight of one transport report to it (one object per transport). */
export interface FlightHost {
  replied(f: Flight, res: HttpReply): void;
  notReplied(f: Flight, error: unknown): void;
  read(f: Flight, text: string): void;
  fail(id: Id, error: Error): void;
}

/**
 * A request in flight: its cancel handle, its method, and the taker of its first POST's reply
 * and of that reply's JSON body (one object per request: no closures, nor promises, per request
 * on the node:http requester).
 */
export class Flight extends Cancel implements ReplyTaker, TextTaker {
  /** The first POST (the transport's `#exchange`), once made. */
  init: HttpRequestInit | undefined = undefined;
  /** Its reply, while its body is being read. */
  res: HttpReply | undefined = undefined;
  /** Its POSTs are not retried: sent with `retry: false` (SendOptions), or the `tools/list` refresh's. */
  once = false;
  /** A `tools/call` answered -32020 once: its tools refreshed, posted again (the transport's `#again`). */
  refreshed = false;
  /** A request of the transport's own (the `tools/list` refresh): takes its answer, or why it has none, instead of the engine. */
  settle: ((answer: JSONRPCMessage | Error) => void) | undefined = undefined;
  constructor(
    readonly method: string,
    readonly id: Id,
    readonly message: JSONRPCMessage,
    private readonly host: FlightHost,
  ) {
    super();
  }
  reply(res: HttpReply): void {
    this.host.replied(this, res);
  }
  error(error: unknown): void {
    this.host.notReplied(this, error);
  }
  body(text: string): void {
    this.host.read(this, text);
  }
  broken(error: Error): void {
    this.host.fail(this.id, lostBefore(error, `POST ${this.method}`));
  }
}
