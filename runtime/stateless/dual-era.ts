/**
 * Dual-era serving (draft basic/versioning, "Backward Compatibility with Initialization-Based
 * Versions"): one endpoint or one stdio process answering legacy clients (`initialize`, 2025-11-25
 * and earlier) and modern clients (per-request `_meta`, 2026-07-28) at once.
 *
 * The era is decided per message, and each message reaches exactly one era's engine (so a
 * request gets exactly one answer, JSON-RPC 2.0 §5):
 * - modern: a message whose `params._meta` carries `io.modelcontextprotocol/protocolVersion`,
 *   or `server/discover` (also an `initialize` carrying that `_meta`: the modern marker decides);
 * - legacy: `initialize`, any message after a legacy `initialize` on stdio that is not modern,
 *   and over HTTP any request carrying `Mcp-Session-Id` without modern `_meta`;
 * - otherwise modern (so the modern error, -32602 for missing `_meta`, answers it).
 * A request keeps its kind whatever its method is called: one named like a notification
 * (`notifications/cancelled` with an `id`) is routed as a request and answered once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROTOCOL_VERSION_META } from '../transport/http/stateless/headers.js';
import type { StreamableHttpHandler } from '../transport/http/session/server.js';
import { readRequestBody } from '../transport/http/io/exchange.js';
import { corsNode, headOfRequest, withCors } from '../transport/http/io/cors.js';
import {
  RequestGuard,
  refusalBody,
  refusalHeaders,
  type BodyFailure,
  type HttpRefusal,
} from '../transport/http/io/guard.js';
import { afterClosingResponse, refuseNode, requestHeaders } from '../transport/http/io/node.js';
import { AUTHORIZED, type WithAuthorized } from '../transport/http/io/types.js';
import {
  PARSED_MESSAGE,
  parseJsonBody,
  readNodeBody,
  type StatelessHttpHandler,
} from '../transport/http/stateless/server.js';
import type { JSONRPCMessage, MessageInfo, SendOptions, Transport, TransportEvents } from '../jsonrpc/transport.js';
import { isRequestId, kindOf, type RequestId } from '../jsonrpc/message.js';
import { parseCancelled } from '../engine/cancellation.js';

type Obj = Record<string, unknown>;
/** A refusal as a WHATWG `Response`. */
const refusalResponse = (r: HttpRefusal): Response =>
  new Response(refusalBody(r), { status: r.status, headers: refusalHeaders(r) });

/** Whether a message is a modern-era request (`_meta` protocol version, or `server/discover`). */
export function isModernRequest(message: unknown): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Obj;
  if (m.method === 'server/discover') return true;
  const meta = (m.params as Obj | undefined)?._meta as Obj | undefined;
  return typeof meta?.[PROTOCOL_VERSION_META] === 'string';
}

/** One side of an {@link EraRouter}: the transport a ServerSession of that era connects to. */
class EraSide implements Transport {
  events: TransportEvents | undefined;
  /**
   * The ids of this side's requests to the client: the modern side's begin with `modern.` (after
   * the connection's own prefix, if any), the legacy side's are the connection's, so that two
   * requests in flight on the one connection, one per era, never share an id (each engine counts
   * from 0).
   */
  readonly requestIdPrefix: string | undefined;
  constructor(
    private readonly router: EraRouter,
    era: 'modern' | 'legacy',
  ) {
    const inner = router.inner.requestIdPrefix;
    this.requestIdPrefix = era === 'modern' ? `${inner ?? ''}modern.` : inner;
  }
  async start(events: TransportEvents): Promise<void> {
    this.events = events;
  }
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (isRequestId(message.id)) {
      // an answer ends its request: its route is released; a request of this side is where
      // the client's response to it goes
      if (!('method' in message)) this.router.released(message.id, this);
      else this.router.asked(message.id, this);
    }
    return this.router.inner.send(message, options);
  }
  close(): Promise<void> {
    return this.router.inner.close();
  }
}

/** Default bound of an {@link EraRouter}'s routing table (requests in flight on one connection). */
export const DEFAULT_MAX_ROUTES = 4096;

/**
 * Splits one connection (stdio, memory) between a modern and a legacy ServerSession. Connect
 * each session to its side (`modern`, `legacy`), then call {@link EraRouter.start}.
 *
 * Every message goes to one side, with one exception that draws no answer: a
 * `notifications/cancelled` notification goes to the side whose request currently uses that id
 * (the latest request with the id), and to both sides only when no route names the id (see
 * below); a client response goes to the side that sent the request it answers; other
 * notifications, and responses to no request in flight, go to the legacy side once it was
 * initialized, else to the modern side. A request's route is released when the request ends
 * in any way: answered (result or error, sent by its side), cancelled (the cancel is forwarded),
 * or the connection closed. The table holds at most `maxRoutes` routes (default 4096): past that
 * the oldest is dropped, and a cancel whose id has no route goes to both sides (each engine
 * ignores an id it does not hold, and JSON-RPC ids are unique among a connection's requests in
 * flight, draft basic/index "Requests").
 */
export class EraRouter {
  readonly modern: Transport;
  readonly legacy: Transport;
  #legacyStarted = false;
  /** Request id → the side serving the request that currently uses it; insertion order = age. */
  readonly #routes = new Map<RequestId, EraSide>();
  /** Id of a server request in flight → the side that sent it (bounded like the routes). */
  readonly #asked = new Map<RequestId, EraSide>();
  readonly #maxRoutes: number;

  constructor(
    readonly inner: Transport,
    options: { maxRoutes?: number } = {},
  ) {
    this.modern = new EraSide(this, 'modern');
    this.legacy = new EraSide(this, 'legacy');
    this.#maxRoutes = Math.max(1, options.maxRoutes ?? DEFAULT_MAX_ROUTES);
  }

  /** Requests in flight with a route (for diagnostics and tests). */
  get routes(): number {
    return this.#routes.size;
  }

  /** Starts the connection; resolves once it is ready. */
  start(): Promise<void> {
    const modern = this.modern as EraSide;
    const legacy = this.legacy as EraSide;
    return this.inner.start({
      onMessage: (m: JSONRPCMessage, info?: MessageInfo) => {
        const kind = kindOf(m);
        // a cancellation is a notification: a request named `notifications/cancelled` is a
        // request like any other (one side answers it, -32601)
        if (kind === 'notification' && m.method === 'notifications/cancelled') return this.#cancel(m, info);
        // (an error's null or absent id is answered by no side: only request ids are kept, by asked)
        const side = ((kind === 'result' || kind === 'error') && this.#answered(m.id as RequestId)) || this.#route(m);
        if (kind === 'request') this.#remember(m.id as RequestId, side);
        side.events?.onMessage(m, info);
      },
      onClose: (e) => {
        this.#routes.clear();
        this.#asked.clear();
        modern.events?.onClose(e);
        legacy.events?.onClose(e);
      },
      // called as a method of its events object (a peer's events find their peer through it)
      onError: (e) => (modern.events?.onError ? modern.events.onError(e) : legacy.events?.onError?.(e)),
    });
  }

  /** Called by a side when it answers `id`: drops the route when it is that side's. */
  released(id: RequestId, side: EraSide): void {
    if (this.#routes.get(id) === side) this.#routes.delete(id);
  }

  /** Called by a side when it sends a request `id` to the client: its response goes to that side. */
  asked(id: RequestId, side: EraSide): void {
    this.#asked.delete(id);
    if (this.#asked.size >= this.#maxRoutes) this.#asked.delete(this.#asked.keys().next().value as RequestId);
    this.#asked.set(id, side);
  }

  /** The side whose request a client response answers (its entry ends here), if one is known. */
  #answered(id: RequestId): EraSide | undefined {
    const side = this.#asked.get(id);
    if (side) this.#asked.delete(id);
    return side;
  }

  #remember(id: RequestId, side: EraSide): void {
    // re-inserted, so the latest request with an id is the youngest route
    this.#routes.delete(id);
    if (this.#routes.size >= this.#maxRoutes) this.#routes.delete(this.#routes.keys().next().value as RequestId);
    this.#routes.set(id, side);
  }

  /** Forwards a cancel to the side holding the request (its route ends here), else to both. */
  #cancel(m: JSONRPCMessage, info: MessageInfo | undefined): void {
    const id = parseCancelled(m.params)?.requestId;
    // (no route is kept under an undefined id: requests always have one)
    const side = this.#routes.get(id as RequestId);
    if (side) {
      this.#routes.delete(id as RequestId);
      return side.events?.onMessage(m, info);
    }
    if (id === undefined) return this.#route(m).events?.onMessage(m, info);
    (this.modern as EraSide).events?.onMessage(m, info);
    if (this.#legacyStarted) (this.legacy as EraSide).events?.onMessage(m, info);
  }

  #route(m: JSONRPCMessage): EraSide {
    const modern = this.modern as EraSide;
    const legacy = this.legacy as EraSide;
    // the modern marker first, as on HTTP: an `initialize` carrying the modern `_meta` is a
    // modern request (answered by the modern side) and starts no legacy connection
    if (isModernRequest(m)) return modern;
    if (m.method === 'initialize') {
      this.#legacyStarted = true;
      return legacy;
    }
    return this.#legacyStarted ? legacy : modern;
  }
}

/** The node:http endpoint of {@link createDualEraHttpHandler}, with its WHATWG form. */
export interface DualEraHttpHandler {
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

/**
 * One endpoint for both eras over Streamable HTTP: `modern` (../transport/http/stateless/server.ts) and
 * `legacy` (../transport/http/session/server.ts, sessions). A POST's head is checked first by both
 * handlers' guards (../transport/http/io/guard.ts: Host, Origin, Accept, Content-Type,
 * Content-Length): refused before its body when both refuse it. Its body is then read once
 * (within the guards' `maxBodyBytes`, 413, and `bodyTimeoutMs`, 408) and routed per the module
 * rules; GET and DELETE go to the legacy handler when they carry `Mcp-Session-Id`; without it
 * they (and any other method) are refused here: 403 for a foreign Host or Origin, else 405 saying
 * that a GET or DELETE needs the id of a session begun by initialize (`Allow: POST`), or for another method
 * that neither era serves it (`Allow: GET, POST, DELETE`). Bodies that are not JSON (or nest deeper than 512 levels) go to the modern handler (400 -32700, its message as the session endpoint's). The
 * protocol version and session headers are the chosen handler's to check: which era they
 * belong to is the body's to say. CORS (`cors` of the modern handler's options) applies to
 * every answer, the preflight included.
 */
// size: the dual-era routing of each HTTP method in one handler
export function createDualEraHttpHandler(handlers: {
  modern: StatelessHttpHandler;
  legacy: StreamableHttpHandler;
}): DualEraHttpHandler {
  const { modern, legacy } = handlers;
  const pick = (post: boolean, sessionHeader: string | null | undefined, message: unknown) => {
    if (!post) return sessionHeader ? legacy : modern;
    if (message === undefined) return modern;
    if (isModernRequest(message)) return modern;
    if ((message as Obj | null)?.method === 'initialize' || sessionHeader) return legacy;
    return modern;
  };
  /**
   * The head checks of both handlers, before the body (which decides the era) is read: refused
   * when both refuse (then with the modern handler's refusal); otherwise the guard whose limits
   * the body is read within (the larger limits when both take the head).
   */
  const checkHead = (
    method: string,
    headers: Readonly<Record<string, string | undefined>>,
    localPort: number | undefined,
  ): HttpRefusal | RequestGuard => {
    const m = modern.guard.check(method, headers, localPort);
    const l = legacy.guard.check(method, headers, localPort);
    if (m && l) return m;
    if (m) return legacy.guard;
    if (l) return modern.guard;
    return modern.guard.maxBodyBytes >= legacy.guard.maxBodyBytes &&
      modern.guard.bodyTimeoutMs >= legacy.guard.bodyTimeoutMs
      ? modern.guard
      : legacy.guard;
  };
  /**
   * A request other than POST without `Mcp-Session-Id` (no handler serves it): the modern guard's
   * refusal (403 for a foreign Host or Origin, else 405), its 405 saying what this endpoint
   * serves, where the modern handler's alone says "POST only": GET and DELETE need a
   * 2025-11-25 session's id (`Allow: POST` for them as sent), other methods are served by
   * neither era (`Allow: GET, POST, DELETE`).
   */
  const sessionlessRefusal = (
    method: string,
    headers: Readonly<Record<string, string | undefined>>,
    localPort: number | undefined,
  ): HttpRefusal | undefined => {
    const r = modern.guard.check(method, headers, localPort);
    if (r?.status !== 405) return r;
    const m = method.toUpperCase();
    const use = m === 'GET' ? 'opens the stream of' : m === 'DELETE' ? 'ends' : undefined;
    return {
      ...r,
      message: use
        ? `Method not allowed: ${m} without Mcp-Session-Id (a ${m} here ${use} a session begun by initialize and needs its Mcp-Session-Id; stateless requests are POSTs)`
        : `Method not allowed: ${m} (this endpoint takes POST, and GET and DELETE with the Mcp-Session-Id of a session begun by initialize)`,
      headers: { ...r.headers, Allow: use ? 'POST' : 'GET, POST, DELETE' },
    };
  };
  const cors = modern.guard.cors;
  /**
   * The token check, before the body is read (a handler's `authorize`; the modern one's when
   * both have one). Its verdict goes with the request to the chosen handler (../transport/http/io/types.ts
   * AUTHORIZED), which takes it instead of checking again when its `authorize` is the same
   * function: one check per request (a DPoP proof is accepted once).
   */
  const authorize = modern.authorize ?? legacy.authorize;
  const tokenCheck = async (
    method: string,
    headers: Readonly<Record<string, string | undefined>>,
    url: string | undefined,
    carrier: WithAuthorized,
  ): Promise<HttpRefusal | undefined> => {
    if (!authorize) return undefined;
    const verdict = await authorize({ method, headers, url });
    if ('refusal' in verdict) return verdict.refusal;
    carrier[AUTHORIZED] = { authorize, auth: verdict.auth };
    return undefined;
  };
  const handler = (async (req: IncomingMessage, res: ServerResponse) => {
    if (afterClosingResponse(req) || corsNode(cors, req, res)) return;
    let message: unknown;
    const post = (req.method ?? '').toUpperCase() === 'POST';
    if (post) {
      const headers = requestHeaders(req);
      const head = checkHead(req.method!, headers, req.socket?.localPort);
      if (!(head instanceof RequestGuard)) return refuseNode(res, head);
      const denied = await tokenCheck('POST', headers, req.url, req as IncomingMessage & WithAuthorized);
      if (denied) return refuseNode(res, denied);
      let bytes: Uint8Array | BodyFailure;
      try {
        bytes = await readNodeBody(req, head.maxBodyBytes, head.bodyTimeoutMs);
      } catch {
        return void res.destroy(); // the client went away before its body ended
      }
      if (typeof bytes === 'string') return refuseNode(res, head.bodyRefusal(bytes));
      // both handlers take an already read body from `req.body`; the modern one also takes the
      // parsed message, so the body is decoded and parsed once
      (req as IncomingMessage & { body?: unknown }).body = bytes;
      message = parseJsonBody(bytes);
      if (message !== undefined) (req as IncomingMessage & { [PARSED_MESSAGE]?: unknown })[PARSED_MESSAGE] = message;
    }
    const h = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(h) ? h[0] : h;
    if (!sessionId && !post) {
      const refused = sessionlessRefusal(
        req.method ?? 'GET',
        req.headers as Readonly<Record<string, string | undefined>>,
        req.socket?.localPort,
      );
      if (refused) return refuseNode(res, refused);
    }
    return pick(post, sessionId, message)(req, res);
  }) as DualEraHttpHandler;
  Object.defineProperties(handler, {
    fetch: {
      value: (request: Request): Promise<Response> =>
        withCors(cors, request, async (request) => {
          let body: BodyInit | undefined;
          let message: unknown;
          const verdict: WithAuthorized = {};
          const post = request.method.toUpperCase() === 'POST';
          if (post) {
            const { headers, localPort } = headOfRequest(request);
            const head = checkHead(request.method, headers, localPort);
            if (!(head instanceof RequestGuard)) return refusalResponse(head);
            const denied = await tokenCheck('POST', headers, request.url, verdict);
            if (denied) return refusalResponse(denied);
            const read = await readRequestBody(request, head.maxBodyBytes, head.bodyTimeoutMs);
            if (typeof read === 'string') return refusalResponse(head.bodyRefusal(read));
            body = read as Uint8Array<ArrayBuffer>;
            message = parseJsonBody(read);
          }
          const sessionId = request.headers.get('mcp-session-id');
          if (!sessionId && !post) {
            const { headers, localPort } = headOfRequest(request);
            const refused = sessionlessRefusal(request.method, headers, localPort);
            if (refused) return refusalResponse(refused);
          }
          const target = pick(post, sessionId, message);
          const handed: Request & WithAuthorized = new Request(request.url, {
            method: request.method,
            headers: request.headers,
            body,
            signal: request.signal,
          });
          if (verdict[AUTHORIZED]) handed[AUTHORIZED] = verdict[AUTHORIZED];
          return target.fetch(handed);
        }),
    },
    close: { value: async () => void (await Promise.all([modern.close(), legacy.close()])) },
  });
  return handler;
}
