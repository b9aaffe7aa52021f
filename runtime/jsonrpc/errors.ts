/**
 * JSON-RPC 2.0 error codes (JSON-RPC 2.0 §5.1) and the runtime's local codes, plus the error
 * classes the runtime throws for a failure that travels to the peer as a JSON-RPC error object.
 */
import { innermost } from './innermost.js';

/**
 * JSON-RPC 2.0's own codes (§5.1, "Error object"). They belong to JSON-RPC, not to an MCP
 * revision (every revision's schema.ts repeats them unchanged), so they are constants of this
 * layer rather than facts read from a revision's table.
 */
export const JsonRpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /**
   * The first code of the range JSON-RPC 2.0 §5.1 reserves for implementation-defined server
   * errors (-32000 to -32099): what the HTTP transports answer for a refusal that is not about
   * the message itself (no such session, a limit reached, a store that cannot be reached).
   */
  ServerError: -32000,
} as const;

/** Codes of failures the runtime raises locally (nothing came from the peer). */
export const LocalErrorCode = {
  /** Implementation-defined range: the connection closed before the response came. */
  ConnectionClosed: -32000,
  /** Implementation-defined range: no response within the request timeout. */
  RequestTimeout: -32001,
  /** The caller aborted the request (the code LSP uses for a cancelled request). */
  RequestAborted: -32800,
} as const;

/**
 * {@link JsonRpcErrorCode} and {@link LocalErrorCode}, with the MCP codes some revisions define
 * under their schema.ts names. The MCP codes are revision facts: runtime code that has a table
 * reads them from it (`errorCodeOf(table, 'UNSUPPORTED_PROTOCOL_VERSION')`,
 * runtime/protocol/table.ts), so that a revision's own value is what goes out; the members here
 * are the values of the revisions named, for callers (and checks) without a table.
 */
export const ErrorCode = {
  ...JsonRpcErrorCode,
  /**
   * Resource not found of server/resources "Error Handling" up to 2025-11-25 (a code the spec
   * page gives and no schema.ts exports; the stateless revisions answer InvalidParams instead).
   */
  ResourceNotFound: -32002,
  /** URL_ELICITATION_REQUIRED of 2025-11-25 client/elicitation: the request needs a URL-mode elicitation first. */
  UrlElicitationRequired: -32042,
  /** HEADER_MISMATCH of 2026-07-28 basic/index: a request header does not match the body. */
  HeaderMismatch: -32020,
  /** MISSING_REQUIRED_CLIENT_CAPABILITY of 2026-07-28 basic/index: the server needs a client capability the request lacks. */
  MissingRequiredClientCapability: -32021,
  /** UNSUPPORTED_PROTOCOL_VERSION of 2026-07-28 versioning: the requested protocol version is not supported. */
  UnsupportedProtocolVersion: -32022,
  ...LocalErrorCode,
} as const;

/**
 * A message JSON cannot express (a cycle, a value `JSON.stringify` throws on or drops whole):
 * what `serializeMessage` (./message.ts), and so every transport's `send`, throws or rejects
 * with, before anything is written. `cause`: what `JSON.stringify` threw, if anything. The engine
 * answers a result that fails so with -32603 naming its handler (../engine/peer.ts).
 */
export class UnserializableMessageError extends TypeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UnserializableMessageError';
  }
}

/** A JSON-RPC error object: `{ code, message, data? }`. */
export interface ErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * An error that is sent to (or was received from) the peer as a JSON-RPC error response.
 * `code` is an integer from {@link ErrorCode} or an application code; `data` is optional
 * structured detail. Handlers throw it to choose the error the peer sees; any other thrown
 * value becomes -32603 Internal error with no stack trace.
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.data = data;
  }
  /** The wire form `{ code, message, data? }`. */
  toJSON(): ErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
  static from(e: ErrorObject): RpcError {
    return new RpcError(e.code, e.message, e.data);
  }
}

/**
 * An outbound request refused locally, nothing sent, because the other side did not declare the
 * capability it needs (2025-11-25 basic/lifecycle, "Capability Negotiation": both sides respect
 * the negotiated capabilities). Code -32601; `method` is the request's method, `capability` the
 * missing path (e.g. `['elicitation']`), `receiver` the side that lacks it. The engine raises it
 * for every outbound request (runtime/engine/peer.ts `request`), so handlers can tell this refusal apart
 * (`e instanceof CapabilityNotDeclaredError`) and answer accordingly.
 */
export class CapabilityNotDeclaredError extends RpcError {
  constructor(
    readonly method: string,
    readonly capability: readonly string[],
    readonly receiver: 'client' | 'server' | 'receiver',
    message = `${method}: the ${receiver} did not declare capability ${capability.join('.')}`,
  ) {
    super(ErrorCode.MethodNotFound, message, { method, capability: capability.join('.') });
    this.name = 'CapabilityNotDeclaredError';
  }
}

/**
 * The connection ended while a request was pending (or a request was made after it ended).
 * `cause` holds the transport's reason when the end was abnormal (e.g. a truncated frame, a
 * connection reset). The request may have reached the peer and run: the runtime never sends
 * it again by itself (at most once); only {@link RequestNotProcessedError} says it did not run.
 */
export class ConnectionClosedError extends RpcError {
  constructor(cause?: unknown, message = 'Connection closed') {
    super(ErrorCode.ConnectionClosed, cause instanceof Error ? `${message}: ${cause.message}` : message);
    this.name = 'ConnectionClosedError';
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * The request was not processed by the peer, so sending it again cannot run it twice. Raised
 * by the HTTP client transports, once their own bounded retries (if any) are spent, when
 * - `reason: 'not-sent'`: no byte of it was written (the connection was refused, the host name
 *   did not resolve, the connection could not be made); `cause` is the network error;
 * - `reason: 'refused'`: the server answered 503 Service Unavailable with `Retry-After`, its
 *   refusal before dispatching the request (RFC 9110 §15.6.4, §10.2.3); `status`, `retryAfterMs`
 *   and the server's `body` are kept.
 * Code -32000 (JSON-RPC 2.0 §5.1 server error range), `data: { reason, status?, retryAfterMs? }`.
 */
export class RequestNotProcessedError extends RpcError {
  readonly reason: 'not-sent' | 'refused';
  /** The HTTP status of a refusal (503). */
  readonly status: number | undefined;
  /** The server's `Retry-After`, ms, when it sent one. */
  readonly retryAfterMs: number | undefined;
  /** The refusal's body (parsed JSON when it was JSON), when read. */
  readonly body: unknown;
  /** Attempts made, the first included. */
  readonly attempts: number;
  constructor(options: {
    reason: 'not-sent' | 'refused';
    what: string;
    attempts: number;
    cause?: unknown;
    status?: number;
    retryAfterMs?: number;
    body?: unknown;
  }) {
    const { reason, what, attempts, cause, status, retryAfterMs } = options;
    const why =
      reason === 'refused'
        ? `the server refused it (HTTP ${status}${retryAfterMs === undefined ? '' : `, Retry-After ${Math.ceil(retryAfterMs / 1000)} s`})`
        : `it could not be sent${cause instanceof Error ? ` (${innermost(cause)})` : ''}`;
    super(
      ErrorCode.ConnectionClosed,
      `${what} was not processed: ${why}${attempts > 1 ? ` after ${attempts} attempts` : ''}; it is safe to send again`,
      {
        reason,
        ...(status === undefined ? {} : { status }),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      },
    );
    this.name = 'RequestNotProcessedError';
    this.reason = reason;
    this.status = status;
    this.retryAfterMs = retryAfterMs;
    this.body = options.body;
    this.attempts = attempts;
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * No response arrived within the request timeout (2025-11-25 `basic/lifecycle.mdx`, Timeouts).
 * `timeoutMs` is the limit that fired: the per-request timeout, or `maxTotalTimeout` when
 * progress kept resetting the former.
 */
export class RequestTimeoutError extends RpcError {
  readonly method: string;
  readonly timeoutMs: number;
  constructor(method: string, timeoutMs: number, total = false) {
    super(
      ErrorCode.RequestTimeout,
      `Request ${method} timed out after ${timeoutMs} ms${total ? ' (maximum total timeout)' : ''}`,
      { method, timeoutMs },
    );
    this.name = 'RequestTimeoutError';
    this.method = method;
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's AbortSignal fired before the response came; `cause` is the signal's reason. */
export class RequestAbortedError extends RpcError {
  readonly method: string;
  constructor(method: string, reason?: unknown) {
    super(ErrorCode.RequestAborted, `Request ${method} was aborted${reasonText(reason)}`);
    this.name = 'RequestAbortedError';
    this.method = method;
    if (reason !== undefined) this.cause = reason;
  }
}

/**
 * A response's result does not match the method's result schema. `data.errors` lists
 * `{ path, message }` with `path` a JSON Pointer into the result.
 */
export class InvalidResultError extends RpcError {
  readonly method: string;
  constructor(method: string, errors: ReadonlyArray<{ path: string; message: string }>) {
    const first = errors[0];
    super(
      ErrorCode.InternalError,
      `Invalid result for ${method}${first ? `: ${first.path || '/'} ${first.message}` : ''}`,
      { method, errors },
    );
    this.name = 'InvalidResultError';
    this.method = method;
  }
}

/** The text of an abort reason for messages: `''`, or `': <reason>'`. */
export function reasonText(reason: unknown): string {
  const text = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : '';
  return text ? `: ${text}` : '';
}

/** One validation failure as the runtime reports it: `path` is a JSON Pointer (`''` = root). */
export interface ValidationIssue {
  path: string;
  keyword: string;
  message: string;
}

/**
 * Turns validator errors (ajv's shape) into {@link ValidationIssue}s, at most `limit` (default
 * 20) so that a hostile input cannot make the error response huge.
 */
export function validationIssues(
  errors: ReadonlyArray<{ instancePath: string; keyword: string; message?: string }> | null | undefined,
  limit = 20,
): ValidationIssue[] {
  if (!errors || errors.length === 0) return [{ path: '', keyword: 'unknown', message: 'is invalid' }];
  return errors.slice(0, limit).map((e) => ({
    path: e.instancePath,
    keyword: e.keyword,
    message: e.message ?? `fails ${e.keyword}`,
  }));
}
