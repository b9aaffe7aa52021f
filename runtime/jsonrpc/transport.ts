import type { RequestId } from './message.js';

/**
 * The transport contract every transport (in-memory, stdio, Streamable HTTP) implements.
 * A transport moves whole JSON-RPC messages; framing lives in the codecs.
 */
import type { JSONRPCMessage, MessageKind } from './message.js';

/** Any JSON-RPC 2.0 message as parsed from the wire (defined with the message kinds in ./message.ts). */
export type { JSONRPCMessage };

/** Per-message facts a transport knows about inbound messages. */
export interface MessageInfo {
  /** HTTP: the session the message belongs to. */
  sessionId?: string;
  /** HTTP: request headers of the POST that carried the message (lower-case names). */
  headers?: Readonly<Record<string, string | undefined>>;
  /** Aborted when the carrying connection goes away (HTTP response stream closed). */
  signal?: AbortSignal;
  /**
   * HTTP: the protocol version the message was sent under: the `MCP-Protocol-Version` header,
   * else the version negotiated on the session, else `2025-03-26` (2025-11-25 basic/transports,
   * "Protocol Version Header").
   */
  protocolVersion?: string;
  /**
   * HTTP: the verified principal of the request's access token, when the endpoint checks
   * tokens (set by the transport after its `authorize` hook accepted the request; never from
   * the request body).
   */
  auth?: AuthInfo;
  /**
   * The id the other side gave the request, when the transport hands it to the engine under an
   * id of its own (stateless HTTP: ids are unique per POST only); telemetry names this one.
   */
  requestId?: RequestId;
}

/**
 * A verified access token (2025-11-25 basic/authorization, "Token Handling"): who presented it
 * and what it grants. Made by the resource-server checks of ../auth/resource.ts (or any
 * `authorize` hook); handlers read it as `ctx.info.auth` / `ctx.auth`.
 */
export interface AuthInfo {
  /** The access token as presented (never logged by the runtime). */
  token: string;
  /** The principal: `sub` of a JWT, or what an introspection callback names. Owns sessions and tasks. */
  subject?: string;
  /** The OAuth client the token was issued to (`client_id` / `azp`), when named. */
  clientId?: string;
  /** Granted scopes (the token's `scope`, space-separated, split). */
  scopes: string[];
  /** Expiry, seconds since the epoch (`exp`), when known. */
  expiresAt?: number;
  /** The resource (audience) the token was checked against. */
  resource?: string;
  /** Every claim of the token (JWT payload or introspection response). */
  claims: Readonly<Record<string, unknown>>;
}

/** Options for {@link Transport.send}. */
export interface SendOptions {
  /** The inbound request this message answers or belongs to (HTTP routes it to that stream). */
  relatedRequestId?: RequestId;
  /**
   * `false`: the message is sent once — the HTTP client transports make no retry of a refused
   * POST (503 with `Retry-After`, connection refused) and no re-send after a cut; the first
   * failure is the request's. Other transports ignore it. For a request the client makes on its
   * own initiative (e.g. the `tools/list` of the output check), which must not hold up a result.
   */
  retry?: false;
}

/**
 * What a transport calls back into (the peer engine). A transport calls these as methods of the
 * object it was given, or of a copy made with object spread (`events.onMessage(m)`), not as
 * detached functions: the engine's events find their connection through the object.
 */
export interface TransportEvents {
  /** One inbound message. Malformed input never reaches here: the transport answers it. */
  onMessage(message: JSONRPCMessage, info?: MessageInfo): void;
  /**
   * One inbound message the transport sorted itself (stdio does), `kind` being what `kindOf`
   * (./message.ts) returned for it: the engine does not sort it again. A transport that sorted
   * calls this instead of `onMessage` when the events have it; else `onMessage`.
   */
  onMessageOfKind?(message: JSONRPCMessage, kind: MessageKind, info?: MessageInfo): void;
  /** The connection ended (error set when it ended abnormally, e.g. a truncated frame). */
  onClose(error?: Error): void;
  /**
   * The other side will send nothing more, but this side may still write (stdio: the server's
   * stdin ended, the MCP lifecycle's "Shutdown"). The engine answers the requests in flight, fails
   * its own pending requests (no response can arrive) and then closes the transport. A transport
   * given events without this method closes at once (`onClose`).
   */
  onEnd?(error?: Error): void;
  /** A non-fatal problem (a line that was not JSON, a write that failed). */
  onError?(error: Error): void;
  /**
   * A request this side sent can no longer be answered through the transport (HTTP: its
   * session expired, or its response stream ended and could not be resumed). The engine
   * rejects the pending request with `error`. A transport given events without this method
   * delivers a JSON-RPC error response for `requestId` through `onMessage` instead.
   */
  onRequestError?(requestId: RequestId, error: Error): void;
  /**
   * A JSON-RPC batch (a JSON array, as parsed: its entries are not checked) for the engine to
   * answer as its negotiated revision says: entry by entry with one array of responses where the
   * revision has batches (2025-03-26 basic, "Batching"), one -32600 error otherwise. A transport
   * that frames batches itself (stdio) hands them here when the events have this method, and
   * answers them with -32600 when not.
   */
  onBatch?(messages: unknown[], info?: MessageInfo): void;
}

/**
 * What carries JSON-RPC messages between two peers (stdio, HTTP, memory, …): `start(events)`
 * begins delivery to `events`, `send` writes one message (rejecting once the transport is closed),
 * `close` ends the connection (idempotent; `events.onClose` fires once).
 */
export interface Transport {
  /** Begins delivering inbound messages to `events`. Resolves once the transport is ready. */
  start(events: TransportEvents): Promise<void>;
  /** Sends one message. Rejects if the transport is closed. */
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void>;
  /** Sends the responses to one inbound batch as one JSON array (see `onBatch`); absent: they go one by one. */
  sendBatch?(messages: JSONRPCMessage[]): Promise<void>;
  /** Closes the transport; `onClose` fires once. Idempotent. */
  close(): Promise<void>;
  /** HTTP: the session id, once known. */
  readonly sessionId?: string;
  /**
   * `false`: this transport reads no {@link SendOptions} of a response (it has one way out:
   * stdio), so the engine sends responses with none. Absent: each response comes with
   * `{ relatedRequestId: <its id> }` (HTTP routes it to its request's stream).
   */
  readonly routesResponses?: false;
  /**
   * What every id of this side's outbound requests begins with, when ids must be unique beyond
   * this connection object: the engine's ids are then the strings `<prefix>0`, `<prefix>1`, …
   * (else the numbers 0, 1, …). A Streamable HTTP session of a shared deployment names one per
   * process and session object, because a client's response reaches every process serving the
   * session (the notification bus, ../stores/bus.ts): only the one whose request it answers takes it.
   */
  readonly requestIdPrefix?: string;
  /**
   * The lifecycle of the only revisions this transport can carry, when it is bound to one (the
   * stateless HTTP endpoint's transport: `stateless`; a Streamable HTTP session: `handshake`).
   * A server session of a revision of the other lifecycle refuses it in `connect`. Absent: any.
   */
  readonly lifecycle?: 'handshake' | 'stateless';
  /**
   * The engine will send no response for the inbound request `requestId`: the peer cancelled
   * it (`notifications/cancelled`; the cancellation page asks for no response). A transport
   * that holds a channel open for that response ends it (HTTP: the request's POST stream), so
   * that no exchange waits for an answer that will not come. Optional; never called for a
   * request that is answered.
   */
  unanswered?(requestId: RequestId): void | Promise<void>;
}
