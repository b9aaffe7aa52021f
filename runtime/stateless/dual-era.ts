/**
 * Dual-era serving (draft basic/versioning, "Backward Compatibility with Initialization-Based
 * Versions"): one endpoint or one stdio process answering legacy clients (`initialize`, 2025-11-25
 * and earlier) and modern clients (per-request `_meta`, 2026-07-28) at once.
 *
 * The era is decided per message:
 * - modern: a request whose `params._meta` carries `io.modelcontextprotocol/protocolVersion`,
 *   or `server/discover`;
 * - legacy: `initialize`, any message after a legacy `initialize` on stdio that is not modern,
 *   and over HTTP any request carrying `Mcp-Session-Id` without modern `_meta`;
 * - otherwise modern (so the modern error, -32602 for missing `_meta`, answers it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROTOCOL_VERSION_META } from '../transport/http/stateless/headers.js';
import type { StreamableHttpHandler } from '../transport/http/session/server.js';
import { PARSED_MESSAGE, parseJsonBody, readNodeBody, type StatelessHttpHandler } from '../transport/http/stateless/server.js';
import type { JSONRPCMessage, MessageInfo, SendOptions, Transport, TransportEvents } from '../jsonrpc/transport.js';

type Obj = Record<string, unknown>;
type Id = string | number;
/** Largest POST body the dual-era endpoint reads, bytes (4 MiB, as the two handlers default to). */
const MAX_BODY = 4 * 1024 * 1024;

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
  readonly inbound = new Set<string>();
  constructor(private readonly router: EraRouter) {}
  async start(events: TransportEvents): Promise<void> {
    this.events = events;
  }
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (!('method' in message) && message.id !== undefined) this.inbound.delete(idKey(message.id as Id));
    return this.router.inner.send(message, options);
  }
  close(): Promise<void> {
    return this.router.inner.close();
  }
}

const idKey = (id: Id): string => `${typeof id}:${id}`;

/**
 * Splits one connection (stdio, memory) between a modern and a legacy ServerSession. Connect
 * each session to its side (`modern`, `legacy`), then call {@link EraRouter.start}.
 * `notifications/cancelled` goes to the side that holds the request; other notifications and
 * client responses go to the legacy side once it was initialized, else to the modern side.
 */
export class EraRouter {
  readonly modern: Transport;
  readonly legacy: Transport;
  #legacyStarted = false;
  constructor(readonly inner: Transport) {
    this.modern = new EraSide(this);
    this.legacy = new EraSide(this);
  }

  /** Starts the connection; resolves once it is ready. */
  start(): Promise<void> {
    const modern = this.modern as EraSide;
    const legacy = this.legacy as EraSide;
    return this.inner.start({
      onMessage: (m: JSONRPCMessage, info?: MessageInfo) => {
        const side = this.#route(m);
        if (m.method !== undefined && m.id !== undefined) side.inbound.add(idKey(m.id as Id));
        side.events?.onMessage(m, info);
      },
      onClose: (e) => {
        modern.events?.onClose(e);
        legacy.events?.onClose(e);
      },
      onError: (e) => (modern.events?.onError ?? legacy.events?.onError)?.(e),
    });
  }

  #route(m: JSONRPCMessage): EraSide {
    const modern = this.modern as EraSide;
    const legacy = this.legacy as EraSide;
    if (m.method === 'initialize') {
      this.#legacyStarted = true;
      return legacy;
    }
    if (m.method === 'notifications/cancelled') {
      const id = (m.params as Obj | undefined)?.requestId as Id | undefined;
      if (id !== undefined && modern.inbound.has(idKey(id))) return modern;
      if (id !== undefined && legacy.inbound.has(idKey(id))) return legacy;
    }
    if (isModernRequest(m)) return modern;
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
 * `legacy` (../transport/http/session/server.ts, sessions). POST bodies are read once and routed per the
 * module rules; GET and DELETE go to the legacy handler when they carry `Mcp-Session-Id`, else
 * to the modern one (405). Bodies that are not JSON go to the modern handler (400 -32700).
 */
export function createDualEraHttpHandler(handlers: { modern: StatelessHttpHandler; legacy: StreamableHttpHandler }): DualEraHttpHandler {
  const { modern, legacy } = handlers;
  const pick = (method: string, sessionHeader: string | null | undefined, message: unknown) => {
    if (method.toUpperCase() !== 'POST') return sessionHeader ? legacy : modern;
    if (message === undefined) return modern;
    if (isModernRequest(message)) return modern;
    if ((message as Obj | null)?.method === 'initialize' || sessionHeader) return legacy;
    return modern;
  };
  const handler = (async (req: IncomingMessage, res: ServerResponse) => {
    let message: unknown;
    if ((req.method ?? '').toUpperCase() === 'POST') {
      let bytes: Uint8Array | 'too-large';
      try {
        bytes = await readNodeBody(req, res, MAX_BODY);
      } catch {
        return void res.destroy(); // the client went away before its body ended
      }
      if (bytes === 'too-large') {
        res.writeHead(413, { 'Content-Type': 'application/json', Connection: 'close' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: `Payload Too Large: body exceeds ${MAX_BODY} bytes` } }));
        return;
      }
      // both handlers take an already read body from `req.body`; the modern one also takes the
      // parsed message, so the body is decoded and parsed once
      (req as IncomingMessage & { body?: unknown }).body = bytes;
      message = parseJsonBody(bytes);
      if (message !== undefined) (req as IncomingMessage & { [PARSED_MESSAGE]?: unknown })[PARSED_MESSAGE] = message;
    }
    const h = req.headers['mcp-session-id'];
    return pick(req.method ?? 'GET', Array.isArray(h) ? h[0] : h, message)(req, res);
  }) as DualEraHttpHandler;
  Object.defineProperties(handler, {
    fetch: {
      value: async (request: Request): Promise<Response> => {
        const body = request.method.toUpperCase() === 'POST' ? await request.text() : undefined;
        let message: unknown;
        try {
          message = body === undefined ? undefined : JSON.parse(body);
        } catch {
          message = undefined;
        }
        const target = pick(request.method, request.headers.get('mcp-session-id'), message);
        return target.fetch(new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal }));
      },
    },
    close: { value: async () => void (await Promise.all([modern.close(), legacy.close()])) },
  });
  return handler;
}
