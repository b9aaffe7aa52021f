/**
 * Request replay in a Streamable HTTP server session (./session.ts), an extension this runtime
 * offers beside 2025-11-25 basic/transports "Resumability and Redelivery": a client whose POST
 * was cut after it was written but before any event ID came back cannot resume (it holds no
 * cursor) and cannot tell whether the request ran. With `requestReplay` on (and an event store
 * that claims requests, {@link EventStore.claimRequest}), the server advertises
 * `capabilities.experimental["mcpgen/requestReplay"]` in its `initialize` result, and before it
 * dispatches a request it stores the priming event of the request's stream (answered as SSE) and
 * claims the request id in the store for `<digest> <priming event ID>` (atomically: one process
 * of a shared deployment wins). Such a client may then POST the identical request again (same
 * id, same session): a request whose id is claimed with the same digest is never dispatched
 * again; the re-send is answered with its stream replayed from the priming event, as a GET with
 * that `Last-Event-ID` would be (its response when it finished, then what it still sends, from
 * any process; error -32000 "ended before answering" when the process that ran it died first).
 * A different digest gets 400 -32600 "Invalid Request: request id N is already in use" (with the id), as without replay. A claim
 * lasts while its request runs and as long as the store keeps events (5 minutes by default)
 * after, and is bounded like them. A claim whose store reply was lost (a stall past the command
 * timeout) is answered 503 (nothing was dispatched); an identical re-send to this process claims
 * it again and runs it, and this process releases it once the store answers (a re-send
 * elsewhere is then told -32000 "did not run"). Such claims are bounded per session
 * ({@link ABANDONED_MAX}: new requests are refused 503 at the bound, none is forgotten). When
 * this process dies before it released one, no other process can tell the request never ran: a
 * re-send is told -32000 "ended before answering" until the claim's lease lapses.
 * Only sessions of a revision that primes its streams (2025-11-25) claim requests and advertise
 * it: a 2025-03-26 session (JSON-RPC batches) or a 2025-06-18 one neither claims nor advertises.
 */
import { toBase64Url } from '../../../codec/bytes.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { FewMap } from '../../../jsonrpc/few.js';
import { errorResponse, idText, serializeMessage } from '../../../jsonrpc/message.js';
import type { JSONRPCMessage, MessageInfo } from '../../../jsonrpc/transport.js';
import type { ClaimLimitError, EventStore } from './event-store.js';
import type { HeaderMap, ResponseSink } from '../io/exchange.js';
import { errorBody, idInUse } from './settings.js';
import { type Id, idKey } from './session-state.js';
import { SessionResumption } from './session-resumption.js';
import { RequestInfo } from './stream.js';

/** The capability key the server advertises under `capabilities.experimental`. */
export const REQUEST_REPLAY = 'mcpgen/requestReplay';

/** SHA-256 of `text`, base64url. */
async function digestOf(text: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))));
}

/** The `initialize` result `message` with the request replay capability added (a copy). */
export function withReplayCapability(message: JSONRPCMessage): JSONRPCMessage {
  const result = message.result as { capabilities?: { experimental?: Record<string, unknown> } } | undefined;
  if (!result || typeof result !== 'object') return message;
  const capabilities = { ...result.capabilities };
  capabilities.experimental = { ...capabilities.experimental, [REQUEST_REPLAY]: {} };
  return { ...message, result: { ...result, capabilities } };
}

/**
 * Claims whose store reply was lost, kept per session until released or taken over by an
 * identical re-send: while a session holds this many, its new requests are refused 503 (nothing
 * runs) rather than one of them forgotten (a forgotten claim would block its id, and a re-send
 * elsewhere would wait on its stream).
 */
export const ABANDONED_MAX = 256;
/** The wait between two attempts to release such a claim, ms. */
const RELEASE_EVERY_MS = 1000;
/** The longest `Retry-After` of a refused claim, s: the runtime client's default longest wait (`RetryOptions.maxDelayMs`). */
const CLAIM_RETRY_AFTER_MAX_S = 30;

/**
 * `Retry-After` (RFC 9110 §10.2.3, delay-seconds) of a claim refused with `retryAfterMs` (see
 * {@link ClaimLimitError}): whole seconds, at least 1, at most {@link CLAIM_RETRY_AFTER_MAX_S};
 * 1 when not known.
 */
function claimRetryAfter(retryAfterMs: number | undefined): string {
  // (undefined is no finite number)
  if (!Number.isFinite(retryAfterMs)) return '1';
  return String(Math.min(CLAIM_RETRY_AFTER_MAX_S, Math.max(1, Math.ceil(retryAfterMs! / 1000))));
}

/** A session's claimed requests and their re-sends (see the module docs). */
export class SessionReplay extends SessionResumption {
  /** Requests whose claim is being stored, by request key: an identical re-send meanwhile waits for the outcome. */
  protected claiming: Map<string, Promise<void>> | undefined;
  /**
   * Claims this process may have stored (the store's reply did not come) for a request it then
   * answered 503 (nothing dispatched), by request key: an identical re-send claims it again with
   * the same text (a claim made again with its own text is this caller's) and runs the request.
   */
  protected abandoned:
    | Map<string, { claim: string; streamId: string; primingId: string; requestKey: string; id: Id }>
    | undefined;

  /**
   * Whether requests are claimed (and request replay advertised) in a session of
   * `protocolVersion`: one whose streams start with a priming event, the claim's cursor
   * (2025-11-25). Never where JSON-RPC batches are (2025-03-26): a batch is not claimed.
   */
  protected replaysIn(protocolVersion: string | undefined): boolean {
    return (
      this.settings.requestReplay === true &&
      protocolVersion !== undefined &&
      this.settings.priming?.has(protocolVersion) === true &&
      typeof this.settings.eventStore?.claimRequest === 'function'
    );
  }

  /**
   * A request POSTed with request replay on: dispatched once its claim is stored, or answered
   * from the claimed request's stream when it is a re-send (see the module docs). The store not
   * answering, or refusing the claim (too many in flight), is a 503 with `Retry-After` (nothing
   * was dispatched: the client may send again); for a refused claim, when a claim of the session
   * frees at the latest (the soonest lease end, 1 to 30 s; 1 when the store keeps no leases).
   */
  protected async acceptClaimed(
    message: JSONRPCMessage,
    info: MessageInfo,
    sink: ResponseSink,
    headers: HeaderMap,
    id: Id,
  ): Promise<void> {
    const key = idKey(id);
    const [digest, requestKey] = await Promise.all([digestOf(serializeMessage(message)), digestOf(key)]);
    // an identical request being claimed here: its outcome first (it runs, or this takes it over)
    for (let before = this.claiming?.get(key); before; before = this.claiming?.get(key)) await before;
    const done = this.hold(key);
    try {
      await this.claimAndRun(message, info, sink, headers, id, key, digest, requestKey);
    } finally {
      done();
    }
  }

  /** Holds request `key` in {@link claiming} (its re-sends wait) until the returned function is called. */
  private hold(key: string): () => void {
    let done!: () => void;
    const held = new Promise<void>((r) => (done = r));
    (this.claiming ??= new Map()).set(key, held);
    return () => {
      if (this.claiming?.get(key) === held) this.claiming.delete(key);
      if (this.claiming?.size === 0) this.claiming = undefined;
      done();
    };
  }

  private async claimAndRun(
    message: JSONRPCMessage,
    info: MessageInfo,
    sink: ResponseSink,
    headers: HeaderMap,
    id: Id,
    key: string,
    digest: string,
    requestKey: string,
  ): Promise<void> {
    const store = this.settings.eventStore as EventStore & Required<Pick<EventStore, 'claimRequest'>>;
    const version = info.protocolVersion ?? this.settings.assumedVersion;
    const json = { 'Content-Type': 'application/json', ...headers };
    const inUse = () => sink.respond(400, json, serializeMessage(idInUse(id)));
    const replay = (primingId: string) =>
      this.acceptGet(sink, headers, version, primingId, () =>
        // what replay needs is no longer kept (the stream was released, or its priming event
        // dropped): the client learns that the request ran, not a header error
        sink.respond(
          200,
          json,
          serializeMessage(
            errorResponse(
              id,
              ErrorCode.ServerError,
              `Request ${idText(id)} ran (or is running); its answer is no longer kept`,
            ),
          ),
        ),
      );
    // a re-send while the request runs here: answered from its stream without a store round trip
    const running = this.requests?.get(key);
    if (running) {
      if (running.claim?.digest !== digest) return inUse();
      return replay(running.claim.primingId);
    }
    let gone = this.abandoned?.get(key);
    if (!gone && (this.abandoned?.size ?? 0) >= ABANDONED_MAX) {
      // as many unconfirmed claims as kept: nothing new runs until the store answers again
      sink.respond(
        503,
        { ...json, 'Retry-After': '1' },
        errorBody(ErrorCode.ServerError, 'Service Unavailable: the event store is not answering; send again'),
      );
      return;
    }
    if (gone) {
      this.abandoned!.delete(key);
      if (this.abandoned!.size === 0) this.abandoned = undefined;
      if (!gone.claim.startsWith(`${digest} `)) gone = undefined;
    }
    const s = this.newStream(gone?.streamId ?? this.ids.next(), 'post', 'sse', version);
    s.pending.add(key);
    let prior: string | undefined;
    let primingId = gone?.primingId;
    let claim = gone?.claim;
    try {
      if (primingId === undefined || claim === undefined) {
        s.sink = sink;
        primingId = await this.primingId(s);
        s.sink = null;
        if (primingId === undefined) throw new Error('the priming event was not stored');
        claim = `${digest} ${primingId}`;
      }
      prior = await store.claimRequest(this.sessionId, requestKey, claim, s.id);
    } catch (e) {
      s.sink = null;
      if ((e as Error | undefined)?.name === 'ClaimLimitError') {
        // nothing claimed: the stream is not used
        this.finished(s);
        this.settings.onStoreError?.(e as Error);
        sink.respond(
          503,
          { ...json, 'Retry-After': claimRetryAfter((e as ClaimLimitError).retryAfterMs) },
          errorBody(ErrorCode.ServerError, 'Service Unavailable: too many requests in flight in this session'),
        );
        return;
      }
      // the claim may have been stored: an identical re-send claims it again as its own
      if (claim !== undefined && primingId !== undefined) {
        (this.abandoned ??= new Map()).set(key, { claim, streamId: s.id, primingId, requestKey, id });
        this.releaseLater(store, key);
      }
      this.storeUnavailable(sink, headers, e);
      return;
    }
    if (this.ended) {
      sink.respond(404, json, errorBody(ErrorCode.ServerError, 'Session not found'));
      return;
    }
    if (prior !== undefined) {
      // claimed before: this stream was never used
      this.finished(s);
      const cut = prior.indexOf(' ');
      if (prior.slice(0, cut) !== digest) return inUse();
      return replay(prior.slice(cut + 1));
    }
    if (this.requests?.has(key)) return inUse();
    s.claim = { digest, primingId: primingId! };
    // resumable by a re-send from now on, whether or not this connection delivers the cursor
    s.resumable = true;
    (this.requests ??= new FewMap()).set(key, s);
    (this.postStreams ??= new FewMap()).set(s.id, s);
    if (!sink.closed) {
      s.sink = sink;
      s.headers = headers;
      sink.onClose(() => this.lost(s, sink));
      this.openPrimed(s, sink, primingId);
    }
    this.checkIdle();
    this.deliver(message, new RequestInfo(info, s));
  }

  /**
   * Releases the claim of request `key` this process answered 503 (see {@link abandoned}) once the
   * store answers, unless an identical re-send took it over first: a re-send that reached another
   * process follows the claim's stream, and gets error -32000 "did not run" from it instead of
   * waiting for an answer that never comes; the request's id is free again. Tried until the store
   * answers or the session ends, every second.
   */
  private releaseLater(store: EventStore, key: string): void {
    if (typeof store.releaseClaim !== 'function') return;
    const timer = setTimeout(() => void this.release(store, key), RELEASE_EVERY_MS);
    timer.unref?.();
  }

  private async release(store: EventStore, key: string): Promise<void> {
    const gone = this.abandoned?.get(key);
    if (!gone || this.ended) return;
    if (this.claiming?.has(key)) return this.releaseLater(store, key);
    // the re-sends of this request wait for this attempt
    const done = this.hold(key);
    try {
      await store.releaseClaim!(
        this.sessionId,
        gone.requestKey,
        gone.claim,
        gone.streamId,
        errorResponse(
          gone.id,
          ErrorCode.ServerError,
          `Service Unavailable: request ${idText(gone.id)} did not run (its claim could not be confirmed); send it again`,
        ),
      );
      if (this.abandoned?.get(key) === gone) this.abandoned.delete(key);
      if (this.abandoned?.size === 0) this.abandoned = undefined;
    } catch {
      this.releaseLater(store, key);
    } finally {
      done();
    }
  }
}
