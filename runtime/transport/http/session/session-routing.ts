/**
 * Request routing in a Streamable HTTP server session (./session.ts; 2025-11-25
 * basic/transports, "Sending Messages to the Server"): a POSTed request or batch gets a stream,
 * and each outbound message goes to one: a response to the stream of the request it answers (which
 * then ends; at once as JSON or as the stream's last event when nothing is queued before it), a
 * message with `relatedRequestId` to that request's stream while it is open, anything else to the
 * standalone stream (or, in a shared deployment, to the process holding it). Also the session's
 * end, a request the engine will not answer, and a connection closed for polling.
 */
import { ErrorCode } from '../../../jsonrpc/errors.js';
import { FewMap } from '../../../jsonrpc/few.js';
import { errorResponse, idText, serializeMessage } from '../../../jsonrpc/message.js';
import { SENT } from '../../../jsonrpc/sent.js';
import type { JSONRPCMessage, MessageInfo, SendOptions } from '../../../jsonrpc/transport.js';
import type { HeaderMap, ResponseSink } from '../io/exchange.js';
import { errorBody, idInUse } from './settings.js';
import { type Id, idKey, isThenable } from './session-state.js';
import { SessionReplay, withReplayCapability } from './session-replay.js';
import { type OutStream, RequestInfo, abortStream, answerPending, isResponse, sseHeaders } from './stream.js';

/** The protocol version an `initialize` response names, if any. */
function negotiatedOf(message: JSONRPCMessage): string | undefined {
  const result = message.result as { protocolVersion?: unknown } | undefined;
  return typeof result?.protocolVersion === 'string' ? result.protocolVersion : undefined;
}

/** The core of one session: its state and every part, routing on top (see the module docs). */
export class SessionRouter extends SessionReplay {
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    try {
      // nothing queued (so order holds): written now when it can be
      const now = this.queue === undefined && !this.ended && this.sendNow(message, options);
      if (now !== false) {
        this.checkIdle();
        return now;
      }
    } catch (e) {
      return Promise.reject(e);
    }
    return this.enqueue(() => this.route(message, options));
  }

  /**
   * Writes `message` now, as `route` would do a few microtasks later, when no send is queued
   * (the caller checked) and it is the response of the one request of a POST stream (not of
   * `initialize`): as `application/json` while the stream can still answer so, else, once it is
   * open as SSE, stored (when the event store answers at once; else the write waits for it in the
   * queue) and written as its last event, and the stream ends. A notification or request goes
   * through {@link relatedSseNow}. False (nothing done) otherwise; {@link SENT} when it went out,
   * or the queued rest.
   */
  protected sendNow(message: JSONRPCMessage, options: SendOptions | undefined): false | Promise<void> {
    if (!isResponse(message)) return this.relatedSseNow(message, options);
    const key = idKey(message.id as Id);
    const s = this.requests?.get(key);
    if (!s || key === this.initKey || s.pending.size !== 1 || s.batch) return false;
    const started = s.sink?.started;
    const json = !started && s.mode !== 'sse';
    if (!json && (!started || s.done || s.mode === 'json')) return false;
    // serialised first: a result JSON cannot express throws with the request still open
    const text = serializeMessage(message);
    this.settle(s, key);
    if (json) {
      this.replyJson(s, message, text);
      return SENT;
    }
    // (the session's activity time is taken when the stream detaches, at its end)
    s.mode = 'sse';
    const eventId = this.store(s, message, text);
    if (!isThenable(eventId)) {
      this.finishSse(s, message, eventId, text);
      return SENT;
    }
    return this.chain(eventId.then((id) => this.finishSse(s, message, id, text)));
  }

  /**
   * Writes `message`, a notification or request about a request (`relatedRequestId`), now when
   * the POST stream of that request is open as SSE and still awaits a response (no send is
   * queued: order holds): stored (when the event store answers at once; else the write waits for
   * it in the queue) and written, as `route` would do a few microtasks later (a tool's
   * `notifications/progress` costs no queue turn). False (nothing done) otherwise; {@link SENT}
   * when it went out, or the queued rest.
   */
  protected relatedSseNow(message: JSONRPCMessage, options: SendOptions | undefined): false | Promise<void> {
    const related = options?.relatedRequestId;
    if (related === undefined) return false;
    const s = this.requests?.get(idKey(related));
    if (s?.kind !== 'post' || s.batch || s.done || s.mode !== 'sse' || s.pending.size === 0 || !s.sink?.started)
      return false;
    const text = serializeMessage(message);
    const eventId = this.store(s, message, text);
    if (!isThenable(eventId)) {
      this.writeEvent(s, message, eventId, text);
      return SENT;
    }
    return this.chain(eventId.then((id) => this.writeEvent(s, message, id, text)));
  }

  protected async route(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.ended) throw new Error(`Session ${this.sessionId} has ended`);
    const response = isResponse(message);
    let s: OutStream | undefined;
    /** A response's serialised text. */
    let text: string | undefined;
    if (response) {
      const key = idKey(message.id as Id);
      s = this.requests?.get(key);
      if (!s) throw new Error(`No open request with id ${idText(message.id)} in session ${this.sessionId}`);
      // advertised only where requests are claimed: a session whose revision primes its
      // streams (elsewhere, a 2025-03-26 batch too, an identical re-send would run again)
      if (key === this.initKey && 'result' in message && this.replaysIn(negotiatedOf(message)))
        message = withReplayCapability(message);
      // serialised first: a result JSON cannot express throws with the request still open
      text = serializeMessage(message);
      if (key === this.initKey) {
        const negotiated = negotiatedOf(message);
        if (negotiated !== undefined) this.owner.protocolVersion = negotiated;
        if (this.settings.onNegotiated && !('error' in message)) {
          try {
            await this.settings.onNegotiated(message);
          } catch (e) {
            message = errorResponse(
              message.id as Id,
              ErrorCode.ServerError,
              `Session could not be recorded: ${(e as Error).message}`,
            );
            text = undefined;
          }
        }
      }
      this.lastActiveAt = Date.now();
      this.settle(s, key);
    } else if (options?.relatedRequestId !== undefined) {
      s = this.requests?.get(idKey(options.relatedRequestId));
      if (s && (s.mode === 'json' || s.done)) s = undefined;
    }
    s ??= this.standalone;

    if (s.kind === 'post' && s.batch) await this.routeBatch(s, message, response);
    else if (s.kind === 'post') {
      if (s.mode === 'auto') s.mode = response && s.pending.size === 0 && !s.sink?.started ? 'json' : 'sse';
      if (s.mode === 'json') this.replyJson(s, message, text);
      else if (!s.done) {
        await this.openStream(s);
        text ??= serializeMessage(message);
        this.writeEvent(s, message, await this.store(s, message, text), text);
        if (s.pending.size === 0) this.endStream(s);
      }
    } else {
      const eventId = await this.store(s, message);
      const live = s.sink !== null && !s.sink.closed;
      const shared = this.settings.standalone;
      if (live && shared) await this.writeStandalone(s, eventId, message);
      else if (live) this.write(s, message, eventId);
      // not held here: to the process whose connection holds it, if any
      else if (shared) shared.relay(eventId, message);
      if (eventId === undefined && (live || shared)) this.sentWithoutId(s, message);
      if (!live || this.settings.eventStore) {
        const backlog = (this.backlog ??= []);
        backlog.push({ eventId, message });
        if (backlog.length > this.settings.maxBacklog) backlog.shift();
      }
    }
    if (response && this.initKey === idKey(message.id as Id)) {
      this.initKey = undefined;
      if ('error' in message) await this.close();
    }
  }

  /**
   * A message for a batch's stream: responses are collected while the stream may still answer
   * as one JSON array (mode `json`, or `auto` until something else goes first); else the stream
   * is SSE, the collected responses go out first, then `message`. It ends once every request
   * of the batch has its response.
   */
  protected async routeBatch(s: OutStream, message: JSONRPCMessage, response: boolean): Promise<void> {
    if (s.done) return;
    const batch = s.batch!;
    if (response && s.mode !== 'sse' && !s.sink?.started) {
      batch.push(message);
      if (s.pending.size === 0) this.replyJson(s, batch.splice(0));
      return;
    }
    s.mode = 'sse';
    await this.openStream(s);
    for (const m of [...batch.splice(0), message]) this.writeEvent(s, m, await this.store(s, m));
    if (s.pending.size === 0) this.endStream(s);
  }

  acceptPost(message: JSONRPCMessage, info: MessageInfo, sink: ResponseSink, headers: HeaderMap): void {
    if (this.ended) {
      // the session ended while the body was arriving (DELETE, close, expiry): nothing would answer
      sink.respond(404, { 'Content-Type': 'application/json' }, errorBody(ErrorCode.ServerError, 'Session not found'));
      return;
    }
    this.lastActiveAt = Date.now();
    // a request reached the session: the store answered its lookup (shared), worth trying again
    this.storeDown = false;
    const id = message.id as Id | undefined;
    if (typeof message.method === 'string' && id !== undefined && id !== null) {
      if (message.method !== 'initialize' && this.replaysIn(info.protocolVersion ?? this.settings.assumedVersion)) {
        this.acceptClaimed(message, info, sink, headers, id).catch((e: unknown) => {
          this.storeError(e);
          if (!sink.started && !sink.closed)
            sink.respond(
              500,
              { 'Content-Type': 'application/json', ...headers },
              errorBody(ErrorCode.InternalError, 'Internal error'),
            );
        });
        return;
      }
      const key = idKey(id);
      if (this.requests?.has(key)) {
        sink.respond(400, { 'Content-Type': 'application/json', ...headers }, serializeMessage(idInUse(id)));
        return;
      }
      if (message.method === 'initialize') this.initKey = key;
      const s = this.newStream(
        this.ids.next(),
        'post',
        this.settings.replyMode,
        info.protocolVersion ?? this.settings.assumedVersion,
      );
      s.pending.add(key);
      info = new RequestInfo(info, s);
      (this.requests ??= new FewMap()).set(key, s);
      (this.postStreams ??= new FewMap()).set(s.id, s);
      this.attach(s, sink, headers, s.mode === 'sse');
    } else {
      sink.respond(202, headers);
    }
    this.checkIdle();
    this.deliver(message, info);
  }

  acceptBatch(
    messages: JSONRPCMessage[],
    errors: JSONRPCMessage[],
    info: MessageInfo,
    sink: ResponseSink,
    headers: HeaderMap,
  ): void {
    const answers = [...errors];
    const requests: JSONRPCMessage[] = [];
    const others: JSONRPCMessage[] = [];
    const keys = new Set<string>();
    for (const m of messages) {
      const id = m.id as Id | undefined;
      if (typeof m.method !== 'string' || id === undefined || id === null) {
        others.push(m);
        continue;
      }
      const key = idKey(id);
      if (this.requests?.has(key) || keys.has(key)) {
        answers.push(idInUse(id));
        continue;
      }
      keys.add(key);
      requests.push(m);
    }
    const plain: MessageInfo = { ...info, signal: info.signal };
    if (requests.length === 0) {
      if (answers.length)
        sink.respond(200, { ...headers, 'Content-Type': 'application/json' }, serializeMessage(answers));
      else sink.respond(202, headers);
      for (const m of others) this.deliver(m, plain);
      return;
    }
    const s = this.newStream(
      this.ids.next(),
      'post',
      this.settings.replyMode,
      info.protocolVersion ?? this.settings.assumedVersion,
    );
    s.batch = answers;
    for (const key of keys) {
      s.pending.add(key);
      (this.requests ??= new FewMap()).set(key, s);
    }
    (this.postStreams ??= new FewMap()).set(s.id, s);
    this.attach(s, sink, headers, s.mode === 'sse');
    const streamInfo = new RequestInfo({ ...info, signal: undefined }, s);
    this.checkIdle();
    for (const m of messages) {
      if (requests.includes(m)) this.deliver(m, streamInfo);
      else if (others.includes(m)) this.deliver(m, plain);
    }
  }

  unanswered(id: Id): Promise<void> {
    return this.enqueue(async () => {
      const key = idKey(id);
      const s = this.requests?.get(key);
      if (!s || this.ended) return;
      this.settle(s, key);
      if (key === this.initKey) this.initKey = undefined;
      if (s.pending.size > 0 || s.done) return;
      this.retire(s);
      const sink = s.sink;
      if (sink && !sink.started && !sink.closed) sink.open(200, sseHeaders(s.headers));
      this.detach(s, true);
    });
  }

  closeSseConnection(relatedRequestId?: Id): Promise<void> {
    return this.enqueue(async () => {
      const s = relatedRequestId === undefined ? this.standaloneStream : this.requests?.get(idKey(relatedRequestId));
      if (!s?.sink) return;
      if (this.settings.retryMs !== undefined) s.sink.write(`retry: ${this.settings.retryMs}\n\n`);
      this.detach(s, true);
    });
  }

  async close(reason?: string): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    if (this.standaloneStream) this.detach(this.standaloneStream, true);
    for (const s of [...(this.postStreams?.values() ?? [])]) {
      // (answerPending answers on an open connection only)
      if (reason !== undefined && !s.done && s.pending.size > 0) answerPending(s, reason);
      this.detach(s, true);
      abortStream(s, new Error(`Session ${this.sessionId} ended`));
    }
    this.requests = undefined;
    this.postStreams = undefined;
    this.backlog = undefined;
    for (const stop of this.followStops ?? []) stop();
    this.followStops = undefined;
    this.onEnd();
    this.checkIdle();
    await this.settings.eventStore?.clear?.(this.sessionId);
    this.events?.onClose();
  }

  /** A message for this session that another process received, delivered as if POSTed here. */
  deliverRemote(message: JSONRPCMessage): void {
    if (this.ended) return;
    this.deliver(message, { sessionId: this.sessionId, protocolVersion: this.owner.protocolVersion, headers: {} });
  }
}
