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
 * A different digest gets 400 "Request id N is already in use", as without replay. A claim
 * lasts as long as the store keeps events (5 minutes by default) and is bounded like them.
 */
import { toBase64Url } from '../../../codec/bytes.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { FewMap } from '../../../jsonrpc/few.js';
import { idText, serializeMessage } from '../../../jsonrpc/message.js';
import type { JSONRPCMessage, MessageInfo } from '../../../jsonrpc/transport.js';
import type { EventStore } from './event-store.js';
import type { HeaderMap, ResponseSink } from '../io/exchange.js';
import { errorBody } from './settings.js';
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

/** A session's claimed requests and their re-sends (see the module docs). */
export class SessionReplay extends SessionResumption {
  /** Whether request `message` (not `initialize`) goes through {@link acceptClaimed}. */
  protected replays(message: JSONRPCMessage, protocolVersion: string | undefined): boolean {
    return (
      this.settings.requestReplay === true &&
      message.method !== 'initialize' &&
      protocolVersion !== undefined &&
      this.settings.priming?.has(protocolVersion) === true &&
      typeof this.settings.eventStore?.claimRequest === 'function'
    );
  }

  /**
   * A request POSTed with request replay on: dispatched once its claim is stored, or answered
   * from the claimed request's stream when it is a re-send (see the module docs). The store not
   * answering is a 503 with `Retry-After` (nothing was dispatched: the client may send again).
   */
  protected async acceptClaimed(
    message: JSONRPCMessage,
    info: MessageInfo,
    sink: ResponseSink,
    headers: HeaderMap,
    id: Id,
  ): Promise<void> {
    const store = this.settings.eventStore as EventStore & Required<Pick<EventStore, 'claimRequest'>>;
    const key = idKey(id);
    const version = info.protocolVersion ?? this.settings.assumedVersion;
    const json = { 'Content-Type': 'application/json', ...headers };
    const inUse = () =>
      sink.respond(400, json, errorBody(ErrorCode.InvalidRequest, `Request id ${idText(id)} is already in use`));
    const digest = await digestOf(serializeMessage(message));
    // a re-send while the request runs here: answered from its stream without a store round trip
    const running = this.requests?.get(key);
    if (running) {
      if (running.claim?.digest !== digest) return inUse();
      return this.acceptGet(sink, headers, version, running.claim.primingId);
    }
    const s = this.newStream(this.ids.next(), 'post', 'sse', version);
    s.pending.add(key);
    let prior: string | undefined;
    let primingId: string | undefined;
    try {
      s.sink = sink;
      primingId = await this.primingId(s);
      s.sink = null;
      if (primingId === undefined) throw new Error('the priming event was not stored');
      prior = await store.claimRequest(this.sessionId, key, `${digest} ${primingId}`);
    } catch (e) {
      s.sink = null;
      this.storeUnavailable(sink, json, e);
      return;
    }
    if (this.ended) {
      sink.respond(404, json, errorBody(ErrorCode.ServerError, 'Session not found'));
      return;
    }
    if (prior !== undefined) {
      // claimed before: this stream was never used (its priming event expires with the store's)
      void Promise.resolve(store.streamFinished?.(this.sessionId, s.id)).catch(() => undefined);
      const cut = prior.indexOf(' ');
      if (prior.slice(0, cut) !== digest) return inUse();
      return this.acceptGet(sink, headers, version, prior.slice(cut + 1));
    }
    if (this.requests?.has(key)) return inUse();
    s.claim = { digest, primingId };
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
}
