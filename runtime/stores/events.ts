/**
 * Storage behind resumable SSE streams (2025-11-25 basic/transports, "Resumability and
 * Redelivery"). The HTTP server transport stores every SSE event it sends and, when a client
 * reconnects with `Last-Event-ID`, replays the events of that one stream that came after it.
 * This file holds the contracts (`EventStore`, `SharedEventStore`); `MemoryEventStore` is in
 * ./events-memory.ts, the Redis one in ./redis/.
 */
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
  /**
   * `message`, offered to {@link EventStore.storeEvent} on stream `streamId` of `sessionId` by a
   * call that failed (rejected: a command that timed out may still be run), went out without an
   * event ID: if that call stored it, it must never be replayed (a client that resumes from an
   * earlier event ID got it already). Optional: a store whose failed calls store nothing (the
   * memory store) needs none.
   */
  discardEvent?(sessionId: string, streamId: string, message: JSONRPCMessage): void | Promise<void>;
  /** Releases everything stored for `sessionId` (the session ended). Optional. */
  clear?(sessionId: string): void | Promise<void>;
  /**
   * Claims request `requestKey` of `sessionId` for the text `claim` (the server's `<digest>
   * <priming event ID>`), atomically across every process that shares the store, unless it is
   * claimed already: resolves undefined when this call claimed it, else the earlier claim's
   * text. `requestKey` is a hash of the request id (SHA-256 of `<typeof id>:<id>`, base64url, 43
   * characters), never the id itself; `streamId` is the stream the request is answered on (the
   * one the priming event was stored on). A claim lasts while that stream is live and as long
   * as events stay replayable (the store's TTL) after {@link EventStore.streamFinished} of it; a store
   * counts claims in its bounds and, when a session holds as many as it allows, refuses a new
   * one with {@link ClaimLimitError} (nothing claimed) rather than forget one. Optional: a server
   * offers request replay (`StreamableHttpOptions.requestReplay`) only over a store that has it.
   */
  claimRequest?(
    sessionId: string,
    requestKey: string,
    claim: string,
    streamId: string,
  ): string | undefined | Promise<string | undefined>;
  /**
   * Releases the claim of request `requestKey` of `sessionId` if its text is `claim` (a claim
   * whose store reply was lost, so its request was answered 503 and never dispatched), and then
   * stores `answer` on stream `streamId` (the claim's) and finishes that stream, atomically: a
   * re-send that follows the stream elsewhere gets `answer`, and a later one claims the id anew.
   * Resolves whether the claim was released. Optional (the memory store never loses a reply).
   */
  releaseClaim?(
    sessionId: string,
    requestKey: string,
    claim: string,
    streamId: string,
    answer: JSONRPCMessage,
  ): boolean | Promise<boolean>;
}

/**
 * Thrown (or rejected with) by {@link EventStore.claimRequest} when the session holds as many
 * request claims as the store allows: nothing was claimed, the request must not run (the
 * Streamable HTTP server answers 503 with `Retry-After`, error -32000: `retryAfterMs` in whole
 * seconds, 1 to 30, RFC 9110 §10.2.3; 1 when it is undefined).
 */
export class ClaimLimitError extends Error {
  /**
   * When a claim of the session frees at the latest unless its request still runs, ms from now:
   * the soonest end of a live claim's lease (a claim whose process is gone frees then; a running
   * request's lease is renewed, and its claim frees when it finishes), set by the store that
   * throws. Undefined when the store keeps no leases (the memory store: a claim frees when its
   * request finishes).
   */
  retryAfterMs?: number;

  constructor(message = 'too many requests in flight in this session') {
    super(message);
    this.name = 'ClaimLimitError';
  }
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
