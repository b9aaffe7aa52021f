/**
 * The POST of one message by a Streamable HTTP client transport (./fetch-client.ts; 2025-11-25
 * basic/transports, "Sending Messages to the Server"), and each kind of answer it gets: 202,
 * one JSON body, an SSE reply stream (read by ./client-streams.ts), a 404 that ends the session
 * (case 006: this request was not processed; replies of others already streaming are read to
 * their end), or an HTTP error.
 *
 * Request replay: when the server's `initialize` result advertises
 * `capabilities.experimental["mcpgen/requestReplay"]` (this runtime's server with
 * `requestReplay`, e.g. `mcpgen serve --redis`: ./session-replay.ts), a request whose POST was
 * lost after it may have been written and before any event ID came back (the connection lost
 * before the response head, or its SSE reply before an event ID) is POSTed again, identical
 * (same id, same session, the same message object: the server compares `JSON.stringify` of
 * the parsed message), with jittered backoff, at least `retry.maxRetries` times and until
 * `retry.resendForMs` after its first cut (../io/delivery.ts `resendDelay`; then it fails with
 * a ConnectionClosedError saying how many times it was sent): that server answers the re-send
 * from the request's stream and never runs it twice. Without the capability nothing is
 * re-sent (another server could run the request again): the request fails with
 * ConnectionClosedError, as it may have run. Once re-sent, every failure of the request is a
 * ConnectionClosedError (its `cause` the answer's error): a re-send answered 400, 404, 409 or
 * 503 says nothing of whether the first POST ran.
 */
import { ConnectionClosedError, ErrorCode, RequestAbortedError } from '../../../jsonrpc/errors.js';
import { isObject, serializeMessage } from '../../../jsonrpc/message.js';
import {
  adoptAnswer,
  BODY_HEAD,
  bodyHead,
  Cancel,
  HttpStatusError,
  emptyReply,
  lostBefore,
  mediaType,
  readBody,
  refusal,
} from '../io/request.js';
import { deliver, resendDelay, resendsSpent } from '../io/delivery.js';
import type { JSONRPCMessage, SendOptions } from '../../../jsonrpc/transport.js';
import { expiredAt, SessionExpiredError, type StreamState } from './client-state.js';
import { ClientStreams } from './client-streams.js';
import { parsePeerJson } from '../../../codec/json-depth.js';

/** A value that is a JSON-RPC message or close to one: an object with its own `method`, `result` or `error`. */
const rpcLike = (m: unknown): boolean =>
  isObject(m) && (Object.hasOwn(m, 'method') || Object.hasOwn(m, 'result') || Object.hasOwn(m, 'error'));

/**
 * The failure `e` of a re-sent request's POST, as the caller must see it: the request may have
 * run (an earlier POST of it was cut after it was written), so an answer that would read as "not
 * run" or as a header error — 400 (e.g. the server no longer keeps the request's stream), 404
 * (the session ended meanwhile), 409/410 (it ran and its answer is no longer kept), any other
 * status or body — is a ConnectionClosedError whose cause is that answer's error. A cancellation
 * stays what it is.
 */
function mayHaveRun(e: unknown, what: string): unknown {
  if (e instanceof ConnectionClosedError || e instanceof RequestAbortedError) return e;
  if (e instanceof Error && e.name === 'AbortError') return e;
  return new ConnectionClosedError(
    e,
    `Connection lost before the response (${what}; the request may have run); sent again, which failed`,
  );
}

/** The POSTs of a client transport (see the module docs). */
export class ClientPost extends ClientStreams {
  /** POSTs one message; see `HttpClientTransport.send` for what it resolves with and throws. */
  // size: a POST and each kind of answer it gets
  async send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.closed || !this.events)
      throw new Error(this.closed ? 'HttpClientTransport is closed' : 'HttpClientTransport not started');
    if (message.method === 'notifications/cancelled' && this.retrying) {
      // a request still waiting to be retried was never processed: it is not sent again
      const target = (message.params as { requestId?: unknown } | undefined)?.requestId;
      const waiting = typeof target === 'string' || typeof target === 'number' ? this.retrying.get(target) : undefined;
      waiting?.cancel(new RequestAbortedError(String(target), 'cancelled while waiting to be retried'));
    }
    const sent = this.session;
    const base = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    const made = this.headers(base);
    const headers = made instanceof Promise ? await made : made;
    // One handle per POST, cancelled by close(): fetch keeps its abort listener on the signal it
    // is given until the request is garbage collected, so one shared signal would pile them up.
    const cancel = new Cancel();
    this.inFlight.add(cancel);
    let streaming = false;
    const requestId = typeof message.method === 'string' ? (message.id as string | number | undefined) : undefined;
    const what = `POST ${String(message.method ?? 'response')}`;
    if (message.method === 'initialize') {
      this.initId = requestId;
      this.replay = false;
    }
    // an earlier POST of this request may have run it: then no failure may read as "not run"
    let cuts = this.resent?.get(message);
    // sent once (options `retry: false`): no retry, no re-send, not even of a lost reply stream
    const once = options?.retry === false;
    try {
      const res = await deliver(
        this.request,
        { method: 'POST', headers, body: serializeMessage(message), cancel },
        {
          what,
          retry: once ? false : this.opts.retry,
          onRetry: requestId === undefined ? undefined : () => (this.retrying ??= new Map()).set(requestId, cancel),
          resend:
            requestId === undefined || once
              ? undefined
              : (c) => {
                  cuts = c;
                  if (!this.mayResend(sent)) return false;
                  (this.resent ??= new WeakMap()).set(message, c);
                  return true;
                },
          cuts,
        },
      );
      const assigned = res.header('mcp-session-id');
      if (assigned && this.session === undefined && sent === undefined) this.session = assigned;

      if (res.status === 404 && sent !== undefined) {
        res.discard();
        // a POST that reached the server after close()'s DELETE: the session did not expire, this transport closed it
        if (this.closed)
          throw new ConnectionClosedError(
            undefined,
            `Connection closed before the response (POST ${String(message.method)}: the transport was closed)`,
          );
        // this request was not processed (2025-11-25 basic/transports, "Session Management"); the
        // session is gone for new requests, while replies already streaming go on (client-state.ts dropSession)
        const error = cuts ? new SessionExpiredError(sent) : expiredAt(sent, what);
        this.expire(sent);
        throw error;
      }
      if (!res.ok) {
        const body = await readBody(res);
        // (an error with id null or absent is no answer here: this era's servers refuse at the HTTP
        // level with such bodies, 400 for a missing session id, 405, and the status is what counts)
        const err = (body as { id?: unknown; error?: unknown } | undefined) ?? {};
        if (requestId !== undefined && err.id === requestId && typeof err.error === 'object' && !cuts) {
          this.deliver(body as JSONRPCMessage);
          return;
        }
        throw new HttpStatusError(res.status, body, what, res.header('content-type'));
      }
      const contentType = res.header('content-type');
      const type = mediaType(contentType);
      // (a 202 to a request, a protocol fault, is read as any 2xx: no body fails it at once, as in the draft client)
      if (requestId === undefined) {
        res.discard();
        if (message.method === 'notifications/initialized' && (this.opts.standaloneStream ?? true))
          this.openStandalone();
        return;
      }
      if (type === 'application/json' || type === '') {
        const text = await res.text().catch((e: unknown) => {
          throw cancel.reason ? e : lostBefore(e, what);
        });
        if (text === '') throw emptyReply(what, res.status);
        if (type === '')
          throw new HttpStatusError(
            res.status,
            text.slice(0, BODY_HEAD),
            `${what}: unexpected Content-Type (none)`,
            contentType,
          );
        let body: unknown;
        let notJson: Error | undefined;
        try {
          body = parsePeerJson(text);
        } catch (e) {
          notJson = e as Error;
        }
        // the JSON reply to a request is its response (2025-11-25 basic/transports, POST rule 5):
        // JSON that holds no message ({"status":"ok"}), or one for another id, would leave the
        // request waiting out its timeout; an array (a batch) is none: 2025-11-25 has no batches
        if (notJson || !adoptAnswer(body, requestId))
          throw refusal(what, requestId, res, body, text, rpcLike(body), notJson);
        this.deliver(body as JSONRPCMessage);
        return;
      }
      if (type === 'text/event-stream') {
        // the session the request was sent in (a 404 to another request may have dropped it meanwhile)
        const state = this.track('post', sent ?? this.session);
        state.pending.add(requestId);
        if (this.replay && !once) state.request = message;
        streaming = true;
        state.reading = true;
        this.consume(res, state, cancel);
        return;
      }
      throw new HttpStatusError(
        res.status,
        await bodyHead(res),
        `${what}: unexpected Content-Type ${type}`,
        contentType,
      );
    } catch (e) {
      throw cuts ? mayHaveRun(e, what) : e;
    } finally {
      if (!streaming) this.inFlight.delete(cancel);
      if (requestId !== undefined && this.retrying?.get(requestId) === cancel) this.retrying.delete(requestId);
    }
  }

  /** A reply stream lost before any event ID: its request is sent again where the server replays requests (see the module docs). */
  override streamEnded(state: StreamState, broken: unknown): void {
    const request = state.request;
    if (
      request &&
      state.lastEventId === undefined &&
      state.pending.size > 0 &&
      !state.aborted &&
      !this.closed &&
      this.mayResend(state.sessionId)
    ) {
      const resent = (this.resent ??= new WeakMap());
      let cuts = resent.get(request);
      if (cuts) cuts.cuts++;
      else resent.set(request, (cuts = { sends: 1, cuts: 1, since: Date.now() }));
      const delay = resendDelay(cuts, this.opts.retry);
      if (delay !== undefined || cuts.cuts > 1) {
        state.reading = false;
        this.forget(state);
        state.pending.clear();
        if (delay !== undefined) void this.sendAgain(request, delay);
        else this.failRequest(request, resendsSpent(cuts, `POST ${String(request.method)}`, broken));
        return;
      }
    }
    super.streamEnded(state, broken);
  }

  /** POSTs `request` again after a jittered wait of `delay` ms; a failure is its error. */
  private async sendAgain(request: JSONRPCMessage, delay: number): Promise<void> {
    await new Promise((r) => setTimeout(r, delay));
    try {
      await this.send(request);
    } catch (e) {
      this.failRequest(request, e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** Fails `request` with `error` (its re-send failed, or its re-sends are spent). */
  private failRequest(request: JSONRPCMessage, error: Error): void {
    const id = request.id as string | number;
    if (this.events?.onRequestError) this.events.onRequestError(id, error);
    else this.deliver({ jsonrpc: '2.0', id, error: { code: ErrorCode.ServerError, message: error.message } });
  }
}
