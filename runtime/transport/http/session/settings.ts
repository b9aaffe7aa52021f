/**
 * What a Streamable HTTP server session (./session.ts) is told by its handler (./server.ts), and the
 * error body of an HTTP-level rejection both of them send.
 */
import type { EventStore } from './event-store.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { errorResponse, idText } from '../../../jsonrpc/message.js';
import type { JSONRPCMessage } from '../../../jsonrpc/transport.js';
import type { ReplyMode } from './stream.js';

/** Settings a session inherits from the handler. */
export interface SessionSettings {
  replyMode: ReplyMode;
  eventStore?: EventStore;
  /** SSE `retry` (ms) sent in priming events and before the server drops a connection. */
  retryMs?: number;
  /** Interval (ms) of keep-alive comments on open SSE connections; 0 disables. */
  keepAliveMs: number;
  /** Standalone-stream messages kept for a GET that arrives without `Last-Event-ID`. */
  maxBacklog: number;
  /** The protocol version of a request that names none and has no session version yet (from the tables served). */
  assumedVersion?: string;
  /** Protocol versions whose SSE streams start with a priming event (from the tables served). */
  priming?: ReadonlySet<string>;
  /**
   * Awaited with the `initialize` response before it goes out (a shared deployment records the
   * session there, so that its next request may reach any process); a rejection turns the
   * response into error -32000 and ends the session.
   */
  onNegotiated?: (response: JSONRPCMessage) => Promise<void>;
  /**
   * Request replay (./session-replay.ts, `StreamableHttpOptions.requestReplay`): on, with an
   * event store that claims requests.
   */
  requestReplay?: boolean;
  /** An event store call failed: the event goes out without an ID (not resumable). */
  onStoreError?: (error: Error) => void;
  /**
   * The session turned busy (`idle` false: work started) or idle again (see
   * {@link HttpServerSession.idle}); called on each change, synchronously. A shared deployment
   * marks busy sessions in its store, whose cap then never evicts them.
   */
  onIdleChange?: (idle: boolean) => void;
  /**
   * Shared deployments: the standalone stream spans the processes. `id` is its stream id on
   * every process (the session record's `standaloneStreamId`; omitted on the process that
   * initialized the session, which makes it). `relay` carries a standalone message sent here
   * while no connection of this process holds the stream, with its event ID, to whichever
   * process holds it (the handler publishes it on the bus, where that process's
   * {@link HttpServerSession.deliverStandalone} gets it). `opened` is called when a connection of
   * this process takes the standalone stream (a GET, or a resumption of it here), so that the
   * handler ends the one another process held ({@link HttpServerSession.dropStandalone}): one
   * connection per stream across the deployment, each message sent on one stream only.
   */
  standalone?: { id?: string; relay(eventId: string | undefined, message: JSONRPCMessage): void; opened?(): void };
  /**
   * Shared deployments: what the ids of the server's requests to the client begin with
   * ({@link HttpServerSession.requestIdPrefix}), one per process and session object, because a
   * client's response reaches every process of the session over the bus.
   */
  requestIdPrefix?: string;
}

/** A JSON-RPC error body with no `id` (no request was read: the error-id rule of ../../../jsonrpc/message.ts), for HTTP-level rejections. */
export function errorBody(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message } });
}

/**
 * The -32600 response refusing a request whose id is already in flight on its session (or
 * claimed, with other content, under request replay), the body of a 400: with that id (JSON-RPC
 * 2.0 §5: the id could be read) and the engine's words, as stdio answers it.
 */
export function idInUse(id: string | number | bigint): JSONRPCMessage {
  return errorResponse(id, ErrorCode.InvalidRequest, `Invalid Request: request id ${idText(id)} is already in use`);
}
