/**
 * Request routing of a Streamable HTTP endpoint (./server.ts): each request, after the guard's
 * checks and authorization, finds its session (here, adopted from the shared store, or none:
 * 404), then goes by method: DELETE ends the session, GET opens or resumes a stream, POST reads
 * the body and hands one message, or a batch, to its session; an `initialize` makes the session.
 * The status codes and their order are listed in ./server.ts.
 */
import { principalId } from '../../../auth/principal.js';
import { ErrorCode } from '../../../jsonrpc/errors.js';
import {
  answerId,
  errorResponse,
  exactIds,
  isObject,
  isRequestId,
  serializeMessage,
} from '../../../jsonrpc/message.js';
import type { AuthInfo, JSONRPCMessage, MessageInfo } from '../../../jsonrpc/transport.js';
import { SessionLimitError, type SessionRecord } from '../../../stores/sessions.js';
import type { Exchange, HeaderMap } from '../io/exchange.js';
import { type HttpRefusal, refusalBody, refusalHeaders } from '../io/guard.js';
import { authorizedBy } from '../io/types.js';
import { SharedAdoption } from './server-adoption.js';
import { fail } from './server-state.js';
import { HttpServerSession } from './session.js';
import { errorBody } from './settings.js';
import { parsePeerJson, tooDeepOr } from '../../../codec/json-depth.js';
import { UTF8 } from '../io/node.js';

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/** What a request brought once its session is found: its headers, principal, version and session. */
interface Arrival {
  h: Exchange['headers'];
  auth: AuthInfo | undefined;
  /** The served version the request names (the served string itself), if any. */
  version: string | undefined;
  /** The `Mcp-Session-Id` header. */
  sid: string | undefined;
  session: HttpServerSession | undefined;
  sessionHeaders: HeaderMap;
  /** The version the request is handled under. */
  effective: string | undefined;
}

/** A Streamable HTTP endpoint: its state, shared-store adoption, and the routing of requests. */
export class StreamableEndpoint extends SharedAdoption {
  /** Handles one exchange; a throw is answered with 500 (or ends a started response). */
  async safely(ex: Exchange): Promise<void> {
    try {
      await this.handle(ex);
    } catch (e) {
      this.report(e);
      if (!ex.sink.started) fail(ex, 500, ErrorCode.InternalError, 'Internal error');
      else ex.sink.end();
    }
  }

  private async handle(ex: Exchange): Promise<void> {
    const { options, versions, shared, sessions } = this;
    const h = ex.headers;
    const refused = this.guard.check(ex.method, h, ex.localPort);
    if (refused) return refuse(ex, refused);
    const method = ex.method === 'POST' || ex.method === 'GET' ? ex.method : ex.method.toUpperCase();
    let auth: AuthInfo | undefined;
    // a front that checked the token already (the dual-era front) left its verdict: one check per request
    if (options.authorize && !(auth = authorizedBy(options.authorize, ex.authorized))) {
      const verdict = await options.authorize({ method, headers: h, url: ex.url });
      if ('refusal' in verdict) return refuse(ex, verdict.refusal);
      auth = verdict.auth;
    }
    const resuming = method === 'GET' && h['last-event-id'] !== undefined && this.storeFor !== undefined;
    const sent = h['mcp-protocol-version'];
    // the served version's own string from here on, not the header's copy: the maps and sets
    // keyed by version (priming, tables) then find it without hashing a new string per request
    const version = sent === undefined ? undefined : versions[versions.indexOf(sent)];
    if (sent !== undefined && version === undefined) {
      return fail(
        ex,
        400,
        ErrorCode.ServerError,
        `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(sent)} (supported: ${versions.join(', ')})`,
      );
    }
    const sid = h['mcp-session-id'];
    let session = sid === undefined ? undefined : sessions.get(sid);
    // the time the request arrived, read once (an expired session, and then the session's activity)
    let now: number | undefined;
    if (session && this.expired(session, (now = Date.now()))) {
      void session.close();
      session = undefined;
    }
    if (sid !== undefined && shared) {
      let record: SessionRecord | undefined;
      try {
        record = await shared.sessions.touch(sid);
      } catch (e) {
        return this.sessionStoreFailed(ex, e);
      }
      if (!record) {
        if (session) void session.close();
        session = undefined;
      } else if (!session) {
        session = await this.restore(sid, record, h);
        if (!session) return fail(ex, 500, ErrorCode.InternalError, 'Internal error');
      }
    }
    // a session of another principal is, to this one, no session at all
    if (session && options.authorize && (!this.owners.has(session) || this.owners.get(session) !== principalId(auth)))
      session = undefined;
    if (sid !== undefined && !session) return fail(ex, 404, ErrorCode.ServerError, 'Session not found');
    if (session) {
      session.touch(now);
      sessions.touch(session.sessionId);
    }
    const sessionHeaders: HeaderMap = session ? session.responseHeaders : {};
    const effective = version ?? session?.protocolVersion ?? this.facts.assumed;

    if (method !== 'POST') {
      if (!session) return fail(ex, 400, ErrorCode.ServerError, 'Bad Request: Mcp-Session-Id header is required');
      if (method === 'DELETE') {
        if (shared) {
          try {
            await shared.sessions.delete(session.sessionId);
            await this.ended(session.sessionId);
          } catch (e) {
            return this.sessionStoreFailed(ex, e);
          }
        }
        await session.close();
        return ex.sink.respond(204, {});
      }
      return session.acceptGet(ex.sink, sessionHeaders, effective, resuming ? h['last-event-id'] : undefined);
    }
    return this.post(ex, { h, auth, version, sid, session, sessionHeaders, effective });
  }

  /** A POST: its body read (the session busy meanwhile), parsed, and handed to its session. */
  private async post(ex: Exchange, a: Arrival): Promise<void> {
    const { h, auth, session, sessionHeaders, effective } = a;
    // a session reading a body is busy: it cannot expire or be evicted meanwhile
    session?.reading(true);
    let body: Awaited<ReturnType<typeof ex.readBody>>;
    try {
      body = await ex.readBody(this.guard.maxBodyBytes, this.guard.bodyTimeoutMs);
    } finally {
      session?.reading(false);
    }
    if (typeof body === 'string') return refuse(ex, this.guard.bodyRefusal(body), sessionHeaders);
    const posted = postedMessage(body, true);
    if (posted.status === 202) return ex.sink.respond(202, {});
    if (posted.status !== undefined) return ex.sink.respond(400, { 'Content-Type': 'application/json' }, posted.body);
    if (Array.isArray(posted.message)) return this.postBatch(ex, a, posted.message);
    const msg = posted.message as JSONRPCMessage;
    const info: MessageInfo = auth ? { headers: h, auth } : { headers: h };
    // a request gets the signal of its stream from the session; the others that of the exchange
    if (msg.method === undefined || msg.id === undefined) info.signal = ex.signal;

    if (msg.method === 'initialize' && 'id' in msg) return this.initialize(ex, a, msg, info);
    if (!session) return fail(ex, 400, ErrorCode.ServerError, 'Bad Request: Mcp-Session-Id header is required');
    info.sessionId = session.sessionId;
    info.protocolVersion = effective;
    session.acceptPost(msg, info, ex.sink, sessionHeaders);
    // an answer to a server → client request, a cancellation, or the client's progress on such a
    // request may be awaited by another process (the one whose session object sent the request)
    const shared = this.shared;
    if (
      shared &&
      (msg.method === undefined || msg.method === 'notifications/cancelled' || msg.method === 'notifications/progress')
    ) {
      shared.bus.publish({ topic: 'inbound', sessionId: session.sessionId, payload: msg }).catch(this.busFailed);
    }
  }

  /** A POSTed batch: only in a session whose negotiated revision has them (2025-03-26). */
  private postBatch(ex: Exchange, a: Arrival, message: unknown[]): void {
    const { h, auth, session, sessionHeaders, effective } = a;
    const negotiated = session?.protocolVersion;
    if (!session || negotiated === undefined || !this.options.acceptsBatches?.(negotiated)) {
      return fail(
        ex,
        400,
        ErrorCode.InvalidRequest,
        `Invalid Request: batches are not accepted${negotiated ? ` in protocol version ${negotiated}` : ''}; send one message per POST`,
      );
    }
    if (message.length === 0) return fail(ex, 400, ErrorCode.InvalidRequest, 'Invalid Request: empty batch');
    const valid: JSONRPCMessage[] = [];
    const errors: JSONRPCMessage[] = [];
    for (const entry of message) {
      const why = shapeProblem(entry);
      if (!why) valid.push(entry as JSONRPCMessage);
      // an invalid request or unreadable entry gets -32600 (its id when readable); a malformed response none
      else if (!(isObject(entry) && !('method' in entry) && ('result' in entry || 'error' in entry))) {
        // no id member when none can be read (the error-id rule of ../../../jsonrpc/message.ts)
        const id = isObject(entry) && isRequestId(entry.id) ? entry.id : undefined;
        errors.push(errorResponse(id, ErrorCode.InvalidRequest, `Invalid Request: ${why}`));
      }
    }
    return session.acceptBatch(
      valid,
      errors,
      { headers: h, sessionId: session.sessionId, protocolVersion: effective, signal: ex.signal, auth },
      ex.sink,
      sessionHeaders,
    );
  }

  /** An `initialize` request: room made under the caps, the session made and handed to `onSession`. */
  private async initialize(ex: Exchange, a: Arrival, msg: JSONRPCMessage, info: MessageInfo): Promise<void> {
    const { options, shared, sessions, maxSessions } = this;
    const { h, auth, version, sid, effective } = a;
    if (sid !== undefined)
      return fail(ex, 400, ErrorCode.InvalidRequest, 'Bad Request: initialize must not carry Mcp-Session-Id');
    const params = msg.params as { protocolVersion?: unknown } | undefined;
    if (sessions.size >= maxSessions && !(await this.evictIdle())) {
      return fail(ex, 503, ErrorCode.ServerError, `Service Unavailable: session limit (${maxSessions}) reached`, {
        'Retry-After': String(Math.ceil(this.sweepMs / 1000)),
      });
    }
    if (shared) {
      // the deployment's cap: room made now (an idle session evicted), or 503 while all are busy
      try {
        for (const id of await shared.sessions.makeRoom()) void this.ended(id).catch(this.busFailed);
      } catch (e) {
        if (e instanceof SessionLimitError)
          return fail(ex, 503, ErrorCode.ServerError, `Service Unavailable: session limit (${e.maxSessions}) reached`, {
            'Retry-After': String(Math.max(1, Math.ceil(e.retryAfterMs / 1000))),
          });
        return this.sessionStoreFailed(ex, e);
      }
    }
    const newId = this.makeId();
    if (!VISIBLE_ASCII.test(newId) || sessions.has(newId)) {
      options.onError?.(new Error(`sessionIdGenerator returned an unusable id ${JSON.stringify(newId)}`));
      return fail(ex, 500, ErrorCode.InternalError, 'Internal error');
    }
    const fresh: HttpServerSession = new HttpServerSession(
      newId,
      this.settingsFor(
        newId,
        shared
          ? this.recorder(
              newId,
              params as Record<string, unknown> | undefined,
              () => fresh.standaloneStreamId,
              options.authorize ? principalId(auth) : undefined,
            )
          : undefined,
      ),
      this.removed,
    );
    if (options.authorize) this.owners.set(fresh, principalId(auth));
    this.added(fresh);
    this.opening.add(fresh);
    try {
      await options.onSession(fresh, { sessionId: newId, headers: h });
    } catch (e) {
      this.report(e);
      this.opening.delete(fresh);
      await fresh.close();
      return fail(ex, 500, ErrorCode.InternalError, 'Internal error');
    }
    this.opening.delete(fresh);
    info.sessionId = newId;
    info.protocolVersion =
      version ?? (typeof params?.protocolVersion === 'string' ? params.protocolVersion : effective);
    return fresh.acceptPost(msg, info, ex.sink, { 'Mcp-Session-Id': newId });
  }
}

/** Answers `ex` with refusal `r` (a JSON-RPC error with no `id`), its headers and `extra`. */
function refuse(ex: Exchange, r: HttpRefusal, extra?: HeaderMap): void {
  ex.sink.respond(r.status, refusalHeaders(r, extra), refusalBody(r));
}

/**
 * The JSON-RPC message a POST body holds (with `batches`, an array as it is), or, when it holds
 * none, how the POST is answered: 400 with -32700 (`body`: an error with no id) for bytes that are
 * not UTF-8 JSON; 202 for a malformed notification (accepted and ignored, never 4xx'd: field case
 * 004); else 400 with -32600 (`body`: the response, with the request's id when it can be read,
 * JSON-RPC 2.0 §5) and {@link shapeProblem}'s words.
 */
export function postedMessage(
  body: Uint8Array,
  batches: boolean,
): { message: unknown; status?: undefined } | { status: 202 | 400; body?: string } {
  let message: unknown;
  try {
    message = decodeBody(body);
  } catch (e) {
    return { status: 400, body: errorBody(ErrorCode.ParseError, `Parse error: ${tooDeepOr(e, 'body is not JSON')}`) };
  }
  if (batches && Array.isArray(message)) return { message };
  const problem = shapeProblem(message);
  if (!problem) return { message };
  if (isObject(message) && message.method !== undefined && !('id' in message)) return { status: 202 };
  const reply = errorResponse(answerId(message), ErrorCode.InvalidRequest, `Invalid Request: ${problem}`);
  return { status: 400, body: serializeMessage(reply) };
}

/**
 * The JSON value of a request body of UTF-8 bytes, integer ids beyond 2^53 exact (`exactIds` in
 * ../../../jsonrpc/message.ts): the one decoding of the session, HTTP+SSE and stateless endpoints.
 * @throws TypeError for bytes that are not UTF-8, SyntaxError for text that is not JSON,
 * JsonTooDeepError (a SyntaxError) for JSON nested deeper than 512 levels (not parsed).
 */
export function decodeBody(body: Uint8Array): unknown {
  const text = UTF8.decode(body);
  const message = parsePeerJson(text);
  exactIds(message, text);
  return message;
}

/**
 * Why `m` is not one JSON-RPC 2.0 request, notification or response (undefined if it is). Ids
 * are checked with {@link isRequestId}, the engine's definition (a string or an integer: `1.5`,
 * `true` or an object are refused here with 400 -32600 rather than reaching the engine).
 */
export function shapeProblem(m: unknown): string | undefined {
  if (Array.isArray(m)) return 'batches are not accepted; send one message per POST';
  if (typeof m !== 'object' || m === null) return 'body must be a JSON object';
  const o = m as Record<string, unknown>;
  if (o.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  // the engine's own definition of an id (../../../jsonrpc/message.ts): a request the transport admits is one
  // the engine answers with that id, so its answer always finds the POST that carried it
  const idOk = isRequestId(o.id);
  if ('method' in o) {
    if (typeof o.method !== 'string') return 'method must be a string';
    // (an array reaches the engine: -32602, JSON-RPC 2.0 §4.2); params before id, the order of §4
    if ('params' in o && (typeof o.params !== 'object' || o.params === null)) return 'params must be an object';
    if ('id' in o && !idOk) return 'id must be a string or an integer';
    if ('result' in o || 'error' in o) return 'a request must not carry result or error'; // (the engine's words)
    return undefined;
  }
  if ('result' in o || 'error' in o) {
    if ('result' in o && 'error' in o) return 'a response has either result or error';
    if (!idOk && o.id !== null) return 'response id must be a string, an integer or null';
    return undefined;
  }
  return 'message has no method, result or error';
}
