/**
 * JSON-RPC 2.0 message kinds as MCP restricts them (2025-11-25 `basic/index.mdx`, Messages):
 * requests carry a string or integer id (never `null`), notifications carry no id and never get
 * a response, responses echo the request id exactly, `params` is an object when present.
 *
 * Ids are compared by type and value: `"1"` and `1` are different ids, `0` and `""` are valid.
 */
import { ErrorCode, type ErrorObject } from './errors.js';

/** Any JSON-RPC 2.0 message as parsed from the wire (request, notification, response, error). */
export type JSONRPCMessage = Record<string, unknown> & { jsonrpc: '2.0' };

/** A request id: a string or an integer (`RequestId` in the schema). */
export type RequestId = string | number;
/** A progress token: a string or an integer (`ProgressToken` in the schema). */
export type ProgressToken = string | number;
/** `params` of a request or notification: always a JSON object in MCP. */
export type Params = Record<string, unknown>;

/** A request: expects exactly one response with the same id. */
export interface JSONRPCRequest extends JSONRPCMessage {
  id: RequestId;
  method: string;
  params?: Params;
}
/** A notification: no id, never answered. */
export interface JSONRPCNotification extends JSONRPCMessage {
  method: string;
  params?: Params;
}
/** A successful response: `result` is a JSON object. */
export interface JSONRPCResultResponse extends JSONRPCMessage {
  id: RequestId;
  result: Record<string, unknown>;
}
/**
 * An error response. `id` is absent when the request id could not be read (MCP schema form);
 * `null` is accepted from peers (JSON-RPC 2.0 form) but never written by this runtime.
 */
export interface JSONRPCErrorResponse extends JSONRPCMessage {
  id?: RequestId | null;
  error: ErrorObject;
}
export type JSONRPCResponse = JSONRPCResultResponse | JSONRPCErrorResponse;
export type AnyJSONRPCMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResponse;

/** The four valid message kinds. */
export type MessageKind = 'request' | 'notification' | 'result' | 'error';

/** The outcome of {@link classify}. */
export type Classified =
  | { kind: 'request'; message: JSONRPCRequest }
  | { kind: 'notification'; message: JSONRPCNotification }
  | { kind: 'result'; message: JSONRPCResultResponse }
  | { kind: 'error'; message: JSONRPCErrorResponse }
  | InvalidMessage;

/**
 * A value that is not a valid MCP message. `reply` is the error response to send, or undefined
 * when nothing may be sent (a malformed notification or response). `responseId` is set for a
 * malformed response whose id is readable, so the pending request can be failed instead of
 * waiting for its timeout.
 */
export interface InvalidMessage {
  kind: 'invalid';
  reason: string;
  reply?: JSONRPCErrorResponse;
  responseId?: RequestId;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True for a string or an integer number (finite, no fraction). `0` and `""` are ids. */
export function isRequestId(v: unknown): v is RequestId {
  return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
}

function paramsOk(m: Record<string, unknown>): boolean {
  return m.params === undefined || isObject(m.params);
}

function errorObjectOk(e: unknown): e is ErrorObject {
  return isObject(e) && typeof e.code === 'number' && Number.isInteger(e.code) && typeof e.message === 'string';
}

/** A well-formed request (`id` is a string or integer, `method` a string, `params` an object). */
export function isRequest(v: unknown): v is JSONRPCRequest {
  return kindOf(v) === 'request';
}
/** A well-formed notification: a `method` and no `id` member at all. */
export function isNotification(v: unknown): v is JSONRPCNotification {
  return kindOf(v) === 'notification';
}
/** A well-formed result response. */
export function isResultResponse(v: unknown): v is JSONRPCResultResponse {
  return kindOf(v) === 'result';
}
/** A well-formed error response (id absent, `null`, or a request id). */
export function isErrorResponse(v: unknown): v is JSONRPCErrorResponse {
  return kindOf(v) === 'error';
}

/**
 * The kind of a valid message, or `null` when the value is not one. Allocation-free; the hot
 * path of every transport and of the peer. Use {@link classify} to learn what to answer.
 */
export function kindOf(v: unknown): MessageKind | null {
  if (!isObject(v) || v.jsonrpc !== '2.0') return null;
  if (typeof v.method === 'string') {
    if (v.result !== undefined || v.error !== undefined || !paramsOk(v)) return null;
    if (!('id' in v)) return 'notification';
    return isRequestId(v.id) ? 'request' : null;
  }
  if (v.method !== undefined) return null;
  if (v.result !== undefined) {
    return v.error === undefined && isObject(v.result) && isRequestId(v.id) ? 'result' : null;
  }
  if (v.error !== undefined) {
    const id = v.id;
    return errorObjectOk(v.error) && (id === undefined || id === null || isRequestId(id)) ? 'error' : null;
  }
  return null;
}

/**
 * Sorts a parsed JSON value into a message kind, or says what to answer when it is not a valid
 * message (JSON-RPC 2.0 §5, MCP `basic/index.mdx`):
 * - something with a `method` and an `id` member is a request: a readable id (string or
 *   integer) gets `-32600` with that id; an unreadable one (`null`, `1.5`, `true`, an object)
 *   gets `-32600` with no id. It is never treated as a notification (case 002).
 * - something with a `method` and no `id` is a notification: when malformed it is dropped, never
 *   answered (case 004).
 * - something with `result` or `error` is a response: when malformed it is dropped (answering
 *   would be read by the peer as a response to one of its own requests).
 * - anything else (a batch array, a scalar, an object with none of these) gets `-32600` with no
 *   id. Batches are not part of MCP since 2025-06-18.
 */
export function classify(v: unknown): Classified {
  const kind = kindOf(v);
  if (kind !== null) return { kind, message: v } as Classified;
  if (!isObject(v)) {
    return invalid(Array.isArray(v) ? 'batch arrays are not supported' : 'message is not a JSON object');
  }
  const hasId = 'id' in v;
  const readableId = hasId && isRequestId(v.id) ? (v.id as RequestId) : undefined;
  if (v.method !== undefined) {
    if (!hasId) return { kind: 'invalid', reason: 'malformed notification' };
    let reason: string;
    if (readableId === undefined) reason = 'request id must be a string or an integer';
    else if (v.jsonrpc !== '2.0') reason = 'jsonrpc must be "2.0"';
    else if (typeof v.method !== 'string') reason = 'method must be a string';
    else if (!paramsOk(v)) reason = 'params must be an object';
    else reason = 'a request must not carry result or error';
    return invalid(reason, readableId);
  }
  if (v.result !== undefined || v.error !== undefined || hasId) {
    const out: InvalidMessage = { kind: 'invalid', reason: 'malformed response' };
    if (readableId !== undefined) out.responseId = readableId;
    return out;
  }
  return invalid('message has no method, result or error');
}

function invalid(reason: string, id?: RequestId): InvalidMessage {
  return { kind: 'invalid', reason, reply: errorResponse(id, ErrorCode.InvalidRequest, `Invalid Request: ${reason}`) };
}

/** A result response echoing `id` exactly. */
export function resultResponse(id: RequestId, result: Record<string, unknown>): JSONRPCResultResponse {
  return { jsonrpc: '2.0', id, result };
}

/**
 * An error response. With `id` undefined the response has no `id` member (MCP schema form for
 * an unreadable id).
 */
export function errorResponse(id: RequestId | undefined, code: number, message: string, data?: unknown): JSONRPCErrorResponse {
  const error: ErrorObject = data === undefined ? { code, message } : { code, message, data };
  return id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

/**
 * `-32700 Parse error` with `id: null`: the answer to a frame that is not JSON (JSON-RPC 2.0 §5:
 * an id that could not be detected because of a parse error MUST be Null). The same shape on
 * every transport: `{ jsonrpc: '2.0', id: null, error: { code: -32700, message } }`.
 */
export function parseErrorResponse(detail?: string): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', id: null, error: { code: ErrorCode.ParseError, message: detail ? `Parse error: ${detail}` : 'Parse error' } };
}

/**
 * Allocates request ids: integers counting up from `start` (default 0). Ids are unique for the
 * life of the allocator, as the spec requires within a session.
 */
export function createIdAllocator(start = 0): () => number {
  let next = start;
  return () => next++;
}
