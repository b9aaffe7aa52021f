/**
 * JSON-RPC 2.0 error codes (JSON-RPC 2.0 §5.1) and the MCP codes, plus the one error class the
 * runtime throws for a failure that travels to the peer as a JSON-RPC error object.
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** 2025-11-25 client/elicitation: the request needs a URL-mode elicitation first. */
  UrlElicitationRequired: -32042,
  /** 2026-07-28 basic/index: a request header does not match the body. */
  HeaderMismatch: -32020,
  /** 2026-07-28 basic/index: the server needs a client capability the request lacks. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28 versioning: the requested protocol version is not supported. */
  UnsupportedProtocolVersion: -32022,
} as const;

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
