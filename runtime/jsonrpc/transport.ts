/**
 * The transport contract every transport (in-memory, stdio, Streamable HTTP) implements.
 * A transport moves whole JSON-RPC messages; framing lives in the codecs.
 */
import type { JSONRPCMessage } from './message.js';

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
}

/** Options for {@link Transport.send}. */
export interface SendOptions {
  /** The inbound request this message answers or belongs to (HTTP routes it to that stream). */
  relatedRequestId?: string | number;
}

/** What a transport calls back into (the peer engine). */
export interface TransportEvents {
  /** One inbound message. Malformed input never reaches here: the transport answers it. */
  onMessage(message: JSONRPCMessage, info?: MessageInfo): void;
  /** The connection ended (error set when it ended abnormally, e.g. a truncated frame). */
  onClose(error?: Error): void;
  /** A non-fatal problem (a line that was not JSON, a write that failed). */
  onError?(error: Error): void;
  /**
   * A request this side sent can no longer be answered through the transport (HTTP: its
   * session expired, or its response stream ended and could not be resumed). The engine
   * rejects the pending request with `error`. A transport given events without this method
   * delivers a JSON-RPC error response for `requestId` through `onMessage` instead.
   */
  onRequestError?(requestId: string | number, error: Error): void;
}

export interface Transport {
  /** Begins delivering inbound messages to `events`. Resolves once the transport is ready. */
  start(events: TransportEvents): Promise<void>;
  /** Sends one message. Rejects if the transport is closed. */
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void>;
  /** Closes the transport; `onClose` fires once. Idempotent. */
  close(): Promise<void>;
  /** HTTP: the session id, once known. */
  readonly sessionId?: string;
}
