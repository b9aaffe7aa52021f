/**
 * The streams of a Streamable HTTP session (2025-11-25 basic/transports, "Sending Messages to
 * the Server" and "Resumability and Redelivery"): their state, ids, and how a POSTed request
 * learns that its stream died before it was answered. Used by ./session-*.ts.
 */
import { randomBytes, toBase64Url } from '../../../codec/bytes.js';
import type { CarrierWatch } from '../../../engine/cancellation.js';
import { encodeJsonEvent } from '../../../codec/sse.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import type { HeaderMap, ResponseSink } from '../io/exchange.js';
import { errorResponse, serializeMessage } from '../../../jsonrpc/message.js';
import type { FewSet } from '../../../jsonrpc/few.js';
import type { JSONRPCMessage, MessageInfo } from '../../../jsonrpc/transport.js';

/** How a POST that carries a request is answered (2025-11-25 basic/transports, POST rule 5). */
export type ReplyMode = 'json' | 'sse' | 'auto';

/** One outbound stream: a POST's response, or the session's standalone (GET) stream. */
export interface OutStream {
  readonly id: string;
  readonly kind: 'post' | 'standalone';
  sink: ResponseSink | null;
  /** Headers for the current connection's response (session id). */
  headers: HeaderMap;
  mode: ReplyMode;
  /** Keys of requests still awaiting their response on this stream (one, except in a batch). */
  pending: FewSet<string>;
  protocolVersion: string | undefined;
  /** The client holds an event ID of this stream and can resume it. */
  resumable: boolean;
  /** The response went out: the stream is finished. */
  done: boolean;
  /** An event of this stream went to the memory event store (which then looks the stream up). */
  stored: boolean;
  timer?: ReturnType<typeof setInterval>;
  /** Why the stream died unanswered (connection lost for good, or session ended); set once. */
  abortReason?: Error;
  /** The engine's handle on the request, cancelled when the stream dies unanswered. */
  watcher?: { cancel(reason: unknown): void };
  /** Behind the request's `MessageInfo.signal`; built when that is first read. */
  abort?: AbortController;
  /**
   * A POSTed JSON-RPC batch's stream (2025-03-26): the responses not written yet (collected for
   * one JSON array body, or waiting for the SSE stream to open), starting with the transport's
   * own -32600 errors for the batch's invalid entries.
   */
  batch?: JSONRPCMessage[];
  /**
   * Events the event store did not take (it failed): kept, in order, to store once it answers;
   * `deliveredOn`: the connection it was written on (without an ID), null when none; `size`: its
   * JSON text's length. Later events of the stream join them.
   */
  kept?: Array<{ message: JSONRPCMessage; deliveredOn: ResponseSink | null; size: number }>;
  /** The event IDs a resumed connection replayed while events were kept (not written to it again). */
  replayed?: Set<string>;
  /**
   * Request replay (./session-replay.ts): the claimed request's digest and the ID of the
   * priming event stored before it was dispatched, from which a re-send of it is answered.
   */
  claim?: { digest: string; primingId: string };
}

/**
 * Stream ids of one session: `<tag>.<n>`, where `tag` is 16 random base64url characters (96
 * bits) drawn per session and `n` counts the session's streams in base 36 (`0` is the
 * standalone stream, POST streams count from 1). They name streams inside event IDs (see
 * MemoryEventStore), so an event ID names its session and its stream: unique across sessions
 * and processes (an event store may be shared by all of them), and not guessable from another
 * session. The transport still honours a `Last-Event-ID` only when its stream is one of the
 * session's own ({@link StreamIds.owns}).
 */
export class StreamIds {
  readonly tag = toBase64Url(randomBytes(12));
  private count = 0;

  /**
   * @param shared the standalone stream's id when the session has one for every process of a
   * shared deployment (made by the process that initialized it, kept in the session record),
   * so that all of them store its events on one stream; default `<tag>.0`.
   */
  constructor(private readonly shared?: string) {}

  /** The standalone (GET) stream's id. */
  get standalone(): string {
    return this.shared ?? `${this.tag}.0`;
  }

  /** A fresh POST stream id. */
  next(): string {
    return `${this.tag}.${(++this.count).toString(36)}`;
  }

  /** Whether `streamId` was made by this generator. */
  owns(streamId: string): boolean {
    if (this.shared !== undefined && streamId === this.shared) return true;
    if (!streamId.startsWith(this.tag) || streamId.charCodeAt(this.tag.length) !== 0x2e) return false;
    const n = streamId.slice(this.tag.length + 1);
    return /^(0|[1-9a-z][0-9a-z]*)$/.test(n) && parseInt(n, 36) <= this.count;
  }
}

/** The request id of a pending key (`${typeof id}:${id}`, see `idKey` of ./session-state.ts). */
export function idOfKey(key: string): string | number | bigint {
  return key.startsWith('number:')
    ? Number(key.slice(7))
    : key.startsWith('bigint:')
      ? BigInt(key.slice(7))
      : key.slice(key.indexOf(':') + 1);
}

/**
 * Answers every request pending on the open POST stream `s` with
 * `{"jsonrpc":"2.0","id":<its id>,"error":{"code":-32000,"message":<reason>}}` (the JSON body
 * when nothing was sent yet, else one last SSE event each), ends it and marks it done.
 */
export function answerPending(s: OutStream, reason: string): void {
  const sink = s.sink;
  if (!sink) return;
  // pending keys are `${typeof id}:${id}`
  const bodies = [...s.pending].map((key) =>
    serializeMessage(errorResponse(idOfKey(key), ErrorCode.ServerError, reason)),
  );
  s.pending.clear();
  s.done = true;
  s.sink = null;
  // a batch: what it collected, then these, as one array (JSON) or one event each (SSE)
  const collected = (s.batch?.splice(0) ?? []).map((m) => JSON.stringify(m));
  if (!sink.started) {
    return sink.respond(
      200,
      { ...s.headers, 'Content-Type': 'application/json' },
      s.batch ? `[${[...collected, ...bodies].join(',')}]` : bodies[0],
    );
  }
  for (const data of [...collected, ...bodies]) sink.write(encodeJsonEvent(undefined, data));
  sink.end();
}

/** Marks a POST stream dead unanswered and tells its request (once). */
export function abortStream(s: OutStream, reason: Error): void {
  if (s.abortReason) return;
  s.abortReason = reason;
  s.watcher?.cancel(reason);
  s.watcher = undefined;
  s.abort?.abort(reason);
}

/** The MessageInfo of a POSTed request: the transport facts plus its stream's abort. */
export class RequestInfo implements CarrierWatch {
  readonly sessionId: string | undefined;
  readonly headers: MessageInfo['headers'];
  readonly protocolVersion: string | undefined;
  readonly auth: MessageInfo['auth'];
  readonly #stream: OutStream;

  constructor(info: MessageInfo, stream: OutStream) {
    this.sessionId = info.sessionId;
    this.headers = info.headers;
    this.protocolVersion = info.protocolVersion;
    this.auth = info.auth;
    this.#stream = stream;
  }

  /** Aborted (reason: an Error) when the request's stream dies unanswered. */
  get signal(): AbortSignal {
    const s = this.#stream;
    if (!s.abort) {
      s.abort = new AbortController();
      if (s.abortReason) s.abort.abort(s.abortReason);
    }
    return s.abort.signal;
  }

  watchCarrier(request: { cancel(reason: unknown): void }): void {
    const s = this.#stream;
    if (s.abortReason) return request.cancel(s.abortReason);
    // a batch's stream carries several requests: each is told
    const before = s.watcher;
    s.watcher = before ? { cancel: (reason) => (before.cancel(reason), request.cancel(reason)) } : request;
  }
}

/** A response (result or error), as opposed to a request or notification. */
export function isResponse(m: JSONRPCMessage): boolean {
  return !('method' in m) && ('result' in m || 'error' in m);
}

/** The headers of an SSE response: `headers` plus content type and no caching. */
export function sseHeaders(headers: HeaderMap): HeaderMap {
  return { ...headers, 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' };
}
