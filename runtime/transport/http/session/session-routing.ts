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
import { errorBody, idInUse, idInUseBody } from './settings.js';
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
      if (this.replyNow(message)) {
        this.checkIdle();
        return SENT;
      }
      const now = this.replySseNow(message) || this.relatedSseNow(message, options);
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
   * Writes `message` now when it is the last response a POST stream open as SSE awaits and no
   * send is queued (so order holds): stored (when the event store answers at once; else the
   * write waits for it in the queue), written, and the stream ends, as `route` would do a
   * microtask later. False (nothing done) otherwise; {@link SENT} when it went out, or the
   * queued rest.
   */
  protected replySseNow(message: JSONRPCMessage): false | Promise<void> {
    if (this.queue !== undefined || this.ended || !isResponse(message)) return false;
    const key = idKey(message.id as Id);
    const s = this.requests?.get(key);
    if (
      !s ||
      key === this.initKey ||
      s.pending.size !== 1 ||
      s.batch ||
      s.done ||
      s.mode === 'json' ||
      !s.sink?.started
    )
      return false;
    // serialised first: a result JSON cannot express throws with the request still open
    const text = serializeMessage(message);
    // (the session's activity time is taken when the stream detaches, at its end)
    this.settle(s, key);
    s.mode = 'sse';
    const eventId = this.store(s, message, text);
    if (!isThenable(eventId)) {
      this.finishSse(s, message, eventId, text);
      return SENT;
    }
    return this.chain(eventId.then((id) => this.finishSse(s, message, id, text)));
  }

  /**
   * Writes `message` now when it is a notification or request about a request (`relatedRequestId`)
   * whose POST stream is open as SSE and still awaits a response, and no send is queued (so order
   * holds): stored (when the event store answers at once; else the write waits for it in the
   * queue) and written, as `route` would do a few microtasks later (a tool's
   * `notifications/progress` costs no queue turn). False (nothing done) otherwise; {@link SENT}
   * when it went out, or the queued rest.
   */
  protected relatedSseNow(message: JSONRPCMessage, options: SendOptions | undefined): false | Promise<void> {
    const related = options?.relatedRequestId;
    if (related === undefined || this.queue !== undefined || this.ended || isResponse(message)) return false;
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

  /**
   * Writes `message` now when it is the response of the one request of a POST stream still
   * answerable as `application/json`, no send is queued (so order holds) and it does not end
   * the `initialize` exchange; false (nothing done) otherwise.
   */
  protected replyNow(message: JSONRPCMessage): boolean {
    if (this.queue !== undefined || this.ended || !isResponse(message)) return false;
    const key = idKey(message.id as Id);
    const s = this.requests?.get(key);
    if (!s || key === this.initKey || s.pending.size !== 1 || s.mode === 'sse' || s.sink?.started || s.batch)
      return false;
    // serialised first: a result JSON cannot express throws with the request still open
    const body = serializeMessage(message);
    this.settle(s, key);
    this.replyJson(s, message, body);
    return true;
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
        this.learnVersion(message);
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

  protected learnVersion(message: JSONRPCMessage): void {
    const negotiated = negotiatedOf(message);
    if (negotiated !== undefined) this.owner.protocolVersion = negotiated;
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
      if (this.replays(message, info.protocolVersion ?? this.settings.assumedVersion)) {
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
        sink.respond(400, { 'Content-Type': 'application/json', ...headers }, idInUseBody(id));
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
    for (const s of [
      ...(this.standaloneStream ? [this.standaloneStream] : []),
      ...(this.postStreams?.values() ?? []),
    ]) {
      if (reason !== undefined && s.kind === 'post' && s.sink && !s.done && s.pending.size > 0)
        answerPending(s, reason);
      this.detach(s, true);
      if (s.kind === 'post') abortStream(s, new Error(`Session ${this.sessionId} ended`));
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
