// size: the message kinds and the exact reading and writing of ids beyond 2^53 (read, kept, written back) belong together; 14 lines over
/**
 * JSON-RPC 2.0 message kinds as MCP restricts them (2025-11-25 `basic/index.mdx`, Messages):
 * requests carry a string or integer id (never `null`), notifications carry no id and never get
 * a response, responses echo the request id exactly, `params` is an object when present.
 *
 * Ids are compared by type and value: `"1"` and `1` are different ids, `0` and `""` are valid.
 */
import { ErrorCode, type ErrorObject, UnserializableMessageError } from './errors.js';

/** Any JSON-RPC 2.0 message as parsed from the wire (request, notification, response, error). */
export type JSONRPCMessage = Record<string, unknown> & { jsonrpc: '2.0' };

/**
 * A request id: a string or an integer (`RequestId` in the schema). An integer beyond
 * ±(2^53 − 1) that a peer wrote is a `bigint` (exact: see {@link exactIds}); every other
 * integer is a `number`.
 */
export type RequestId = string | number | bigint;
/** A progress token: a string or an integer (`ProgressToken` in the schema); big integers as in {@link RequestId}. */
export type ProgressToken = string | number | bigint;
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
/** A response: a result or an error (JSON-RPC 2.0 section 5; 2025-11-25 basic/index, Responses). */
export type JSONRPCResponse = JSONRPCResultResponse | JSONRPCErrorResponse;
/** Any single JSON-RPC message: request, notification or response. */
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

/** True for a JSON object: an object that is neither null nor an array (a message, its params, a result). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * True for a string or an integer (a finite number without fraction, or a `bigint`). `0` and
 * `""` are ids. The one definition of a valid id: the engine and every transport check with it.
 */
export function isRequestId(v: unknown): v is RequestId {
  // (Number.isInteger is false for anything but a number)
  return typeof v === 'string' || Number.isInteger(v) || typeof v === 'bigint';
}

/**
 * Longest number token read back exactly by {@link exactIds}, characters. A longer one (only an
 * absurd spelling of an integer beyond 2^53 can be) is an unreadable id.
 */
const MAX_EXACT_TOKEN = 1024;

/**
 * Makes the integer ids of a freshly parsed message exact. `JSON.parse` rounds an integer
 * beyond ±(2^53 − 1) to the nearest double (`9007199254740993` → `…992`), while JSON-RPC 2.0
 * requires a response to carry the request's id unchanged. When the message's `id`, its
 * `params.requestId` (`notifications/cancelled`) or its `params._meta.progressToken` is such a
 * number, the token is read again from `text` (the JSON the message was parsed from) and its
 * exact value taken as a `bigint`, which {@link serializeMessage} writes back as the same
 * integer: the `id` is replaced by it; the two params fields keep the parsed number (the
 * params validators know no bigint) and the exact value is kept beside it, read with
 * {@link exactField}. A token that is not an integer as written (`9007199254740993.5`, which
 * the double rounds to an integer) or longer than 1024 characters becomes `NaN`: an
 * unreadable id, refused like `1.5`. Any other value is left as it is, and nothing is
 * allocated for it (the check is a `typeof` and `Number.isSafeInteger` per field). Mutates
 * `message`.
 */
export function exactIds(message: unknown, text: string): void {
  exactIdsIn(message, text, NO_PATH);
}

/**
 * {@link exactIds} for a message inside a larger JSON `text` (an envelope, as the Redis bus
 * carries one): `at` names the members that lead from the top of `text` to `message`
 * (`['payload']`, `['payload', 'message']`). Mutates `message`.
 */
export function exactIdsIn(message: unknown, text: string, at: readonly string[]): void {
  if (typeof message !== 'object' || message === null) return;
  const m = message as Record<string, unknown>;
  const id = m.id;
  if (typeof id === 'number' && !Number.isSafeInteger(id) && Number.isInteger(id)) m.id = exactAt(text, at, ID_PATH);
  const params = m.params;
  if (typeof params !== 'object' || params === null) return;
  const p = params as Record<string, unknown>;
  const requestId = p.requestId;
  if (typeof requestId === 'number' && !Number.isSafeInteger(requestId) && Number.isInteger(requestId))
    keepExact(p, 'requestId', exactAt(text, at, REQUEST_ID_PATH));
  const meta = p._meta;
  if (typeof meta !== 'object' || meta === null) return;
  const token = (meta as Record<string, unknown>).progressToken;
  if (typeof token === 'number' && !Number.isSafeInteger(token) && Number.isInteger(token)) {
    keepExact(meta as Record<string, unknown>, 'progressToken', exactAt(text, at, TOKEN_PATH));
  }
}

/** Where {@link exactIds} keeps exact values beside the parsed ones: not enumerable, so neither validators nor copies see it. */
const EXACT: unique symbol = Symbol('mcpgen.exact');
type WithExact = Record<string, unknown> & { [EXACT]?: Record<string, bigint | number> };

function keepExact(o: Record<string, unknown>, field: string, value: bigint | number): void {
  const w = o as WithExact;
  if (!w[EXACT]) Object.defineProperty(w, EXACT, { value: {}, enumerable: false });
  w[EXACT]![field] = value;
}

/**
 * `o[field]`, or the exact value {@link exactIds} kept for it (a `bigint`, or `NaN` for a
 * token that is no integer as written). Use it to read a peer's `requestId` or
 * `progressToken`.
 */
export function exactField(o: Record<string, unknown>, field: string): unknown {
  const v = o[field];
  if (typeof v !== 'number' || Number.isSafeInteger(v)) return v;
  const kept = (o as WithExact)[EXACT];
  return kept !== undefined && Object.hasOwn(kept, field) ? kept[field] : v;
}

const NO_PATH: readonly string[] = [];
const ID_PATH = ['id'];
const REQUEST_ID_PATH = ['params', 'requestId'];
const TOKEN_PATH = ['params', '_meta', 'progressToken'];

/** The exact integer of the number at `base` then `path` in the JSON `text`, or NaN (see {@link exactIds}). */
function exactAt(text: string, base: readonly string[], path: readonly string[]): bigint | number {
  const at = valueAt(text, base.length === 0 ? path : [...base, ...path]);
  if (at < 0) return Number.NaN;
  NUMBER.lastIndex = at;
  const m = NUMBER.exec(text);
  if (!m || m[0].length > MAX_EXACT_TOKEN) return Number.NaN;
  const [, sign, int, frac = '', exp] = m;
  let digits = int + frac;
  let shift = (exp === undefined ? 0 : Number(exp)) - frac.length;
  if (shift < 0) {
    // digits dropped by a negative shift must all be zeros, or the value has a fraction
    const cut = Math.max(0, digits.length + shift);
    if (/[^0]/.test(digits.slice(cut))) return Number.NaN;
    digits = digits.slice(0, cut) || '0';
    shift = 0;
  }
  // the parsed double was finite, so the value has at most 309 digits
  if (digits.length + shift > 400) return Number.NaN;
  return BigInt(sign + digits + '0'.repeat(shift));
}

const NUMBER = /(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?/y;

/**
 * Where the value at `path` (member names, from the top-level object) begins in the JSON
 * `text`, or -1. With repeated names the last one counts, as in `JSON.parse`. `text` is
 * known to be valid JSON.
 */
function valueAt(text: string, path: readonly string[]): number {
  let i = 0;
  for (const name of path) {
    i = skipSpace(text, i);
    if (text.charCodeAt(i) !== 0x7b /* { */) return -1;
    i++;
    let found = -1;
    for (;;) {
      i = skipSpace(text, i);
      if (text.charCodeAt(i) === 0x7d /* } */) break;
      const keyEnd = stringEnd(text, i);
      const raw = text.slice(i + 1, keyEnd - 1);
      const key = raw.indexOf('\\') === -1 ? raw : (JSON.parse(text.slice(i, keyEnd)) as string);
      i = skipSpace(text, keyEnd) + 1; // past ':'
      i = skipSpace(text, i);
      if (key === name) found = i;
      i = skipSpace(text, valueEnd(text, i));
      if (text.charCodeAt(i) === 0x2c /* , */) i++;
      else break;
    }
    if (found < 0) return -1;
    i = found;
  }
  return i;
}

/** The index of the first non-space character of `text` at or after `i`. */
export function skipSpace(text: string, i: number): number {
  for (let c = text.charCodeAt(i); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++i));
  return i;
}

/** The index after the string that starts at `i` (a `"`). */
export function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5c /* \ */) j++;
    else if (c === 0x22 /* " */) return j + 1;
  }
  return text.length;
}

/** The index after the JSON value that starts at `i`. */
export function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return stringEnd(text, i);
  if (c !== 0x7b && c !== 0x5b) {
    let j = i;
    for (
      let d = text.charCodeAt(j);
      j < text.length && d !== 0x2c && d !== 0x7d && d !== 0x5d && d !== 0x20 && d !== 0x09 && d !== 0x0a && d !== 0x0d;
      d = text.charCodeAt(++j)
    );
    return j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const d = text.charCodeAt(j);
    if (d === 0x22) j = stringEnd(text, j) - 1;
    else if (d === 0x7b || d === 0x5b) depth++;
    else if ((d === 0x7d || d === 0x5d) && --depth === 0) return j + 1;
  }
  return text.length;
}

/** Marks a bigint inside the JSON text {@link serializeMessage} builds (random per process: no message can hold it). */
const BIGINT_MARK = `~mcpgen-bigint-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}~`;
const BIGINT_MARKED = new RegExp(`"${BIGINT_MARK}(-?[0-9]+)"`, 'g');
const markBigint = (_key: string, v: unknown): unknown => (typeof v === 'bigint' ? BIGINT_MARK + v.toString() : v);

/**
 * `JSON.stringify(message)`, where a `bigint` (an exact id, see {@link exactIds}) is written as
 * the JSON integer it is. The common message (no bigint) costs one `JSON.stringify`; only one
 * that holds a bigint is serialized a second time. Throws UnserializableMessageError (its
 * `cause` what `JSON.stringify` threw: a cycle, a throwing `toJSON`); returns undefined for what
 * `JSON.stringify` returns undefined for.
 */
export function serializeMessage(message: unknown): string {
  try {
    return JSON.stringify(message);
  } catch (e) {
    if (!(e instanceof TypeError) || !/BigInt/i.test(e.message)) throw unserializable(e);
    try {
      return JSON.stringify(message, markBigint).replace(BIGINT_MARKED, '$1');
    } catch (again) {
      throw unserializable(again);
    }
  }
}

/** {@link serializeMessage}'s replacer that also writes the exact values {@link exactIds} kept beside rounded numbers. */
function markExact(this: unknown, key: string, v: unknown): unknown {
  if (typeof v === 'bigint') return BIGINT_MARK + v.toString();
  if (typeof v === 'number' && !Number.isSafeInteger(v) && typeof this === 'object' && this !== null) {
    const exact = exactField(this as Record<string, unknown>, key);
    if (typeof exact === 'bigint') return BIGINT_MARK + exact.toString();
  }
  return v;
}

/**
 * {@link serializeMessage} for a value that carries parsed peer messages onward (an envelope
 * another process reads, e.g. the Redis bus): every integer beyond ±(2^53 − 1) is written with
 * its exact digits, a `bigint` as in {@link serializeMessage} and a `requestId` or
 * `progressToken` that {@link exactIds} kept beside its rounded number with the kept value.
 * Costs a replacer call per value. Throws UnserializableMessageError as {@link serializeMessage}.
 */
export function serializeExact(value: unknown): string {
  try {
    return JSON.stringify(value, markExact).replace(BIGINT_MARKED, '$1');
  } catch (e) {
    throw unserializable(e);
  }
}

const unserializable = (e: unknown): UnserializableMessageError =>
  new UnserializableMessageError(
    `message cannot be serialised as JSON: ${e instanceof Error ? e.message : String(e)}`,
    {
      cause: e,
    },
  );

/** An id as text for messages and logs (a bigint with its digits; never throws). */
export function idText(id: unknown): string {
  return typeof id === 'bigint' ? id.toString() : String(JSON.stringify(id));
}

function paramsOk(m: Record<string, unknown>): boolean {
  return m.params === undefined || isObject(m.params);
}

function errorObjectOk(e: unknown): e is ErrorObject {
  return isObject(e) && Number.isInteger(e.code) && typeof e.message === 'string';
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
 *   integer) gets `-32600` with that id, or `-32602` when all that is wrong is by-position
 *   `params` (an array: a valid JSON-RPC request, but MCP params are by name); an unreadable id
 *   (`null`, `1.5`, `true`, an object) gets `-32600` with no id. It is never treated as a
 *   notification (case 002).
 * - something with a `method` and no `id` is a notification: when malformed it is dropped, never
 *   answered (case 004).
 * - something with `result` or `error` is a response: when malformed it is dropped (answering
 *   would be read by the peer as a response to one of its own requests).
 * - anything else (a batch array, a scalar, an object with none of these) gets `-32600` with no
 *   id, as the HTTP transports answer it. An object with an `id` and no method, result or error
 *   also gets it (it is neither a request nor a response; an answer carrying its id could be
 *   read by the peer as the answer to a request of its own with that id, ids of the two
 *   directions being apart), and a readable id is reported as `responseId`, as for a malformed
 *   response. Batches are not part of MCP since 2025-06-18.
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
    // the first fault in the order JSON-RPC 2.0 §4 lists a request's members (jsonrpc, method,
    // params, id), as the HTTP endpoints and the Python and Go engines report it
    let reason: string;
    if (v.jsonrpc !== '2.0') reason = 'jsonrpc must be "2.0"';
    else if (typeof v.method !== 'string') reason = 'method must be a string';
    else if (!paramsOk(v) && !Array.isArray(v.params)) reason = 'params must be an object';
    else if (readableId === undefined) reason = 'id must be a string or an integer';
    else if (v.result !== undefined || v.error !== undefined) reason = 'a request must not carry result or error';
    // all that is left: a valid JSON-RPC 2.0 request (by-position params), whose params MCP
    // requires by name: invalid params (§5.1 -32602), as the Python and Go engines answer it
    else
      return {
        kind: 'invalid',
        reason: 'params must be an object',
        reply: errorResponse(readableId, ErrorCode.InvalidParams, 'Invalid params: params must be an object'),
      };
    return invalid(reason, readableId);
  }
  const out: InvalidMessage =
    v.result !== undefined || v.error !== undefined
      ? {
          kind: 'invalid',
          // (what the engine's "Malformed response: <reason>" says: Python's words for the first)
          reason:
            v.result !== undefined && v.error !== undefined
              ? 'a response has either result or error'
              : 'jsonrpc, id, result or error is not valid',
        }
      : invalid(v.jsonrpc !== '2.0' ? 'jsonrpc must be "2.0"' : 'message has no method, result or error');
  if (readableId !== undefined) out.responseId = readableId;
  return out;
}

function invalid(reason: string, id?: RequestId): InvalidMessage {
  return { kind: 'invalid', reason, reply: errorResponse(id, ErrorCode.InvalidRequest, `Invalid Request: ${reason}`) };
}

/**
 * The id an error answering `m` carries (JSON-RPC 2.0 §5): the id of something that has a
 * `method` and an `id` that is a string or an integer, even when the rest is invalid (a method
 * that is not a string, another `jsonrpc` version, params that are not an object); `undefined`
 * otherwise (not an object, an array, a response, an id that is `null`, a fraction, a boolean or
 * an object), and the error then has no `id` member (the error-id rule, {@link parseErrorResponse}).
 * @example answerId({ jsonrpc: '2.0', id: 5, method: 5 }) // 5
 */
export function answerId(m: unknown): RequestId | undefined {
  return isObject(m) && m.method !== undefined && isRequestId(m.id) ? m.id : undefined;
}

/** A result response echoing `id` exactly. */
export function resultResponse(id: RequestId, result: Record<string, unknown>): JSONRPCResultResponse {
  return { jsonrpc: '2.0', id, result };
}

/**
 * An error response. With `id` undefined the response has no `id` member (MCP schema form for
 * an unreadable id).
 */
export function errorResponse(
  id: RequestId | undefined,
  code: number,
  message: string,
  data?: unknown,
): JSONRPCErrorResponse {
  const error: ErrorObject = data === undefined ? { code, message } : { code, message, data };
  return id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error };
}

/**
 * `-32700 Parse error` with no `id`: the answer to a frame that is not JSON. The error-id rule of
 * every transport: an error answering a request whose id is unknown or unreadable carries no
 * `id` member, the form the MCP schema gives it (2025-11-25 `JSONRPCErrorResponse.id?:
 * RequestId`, never null); JSON-RPC 2.0 §5's `"id": null` is not a valid MCP message (the
 * official TypeScript SDK's schema refuses it). A received error with `id: null` is read as one with no id.
 * docs/findings.md records the choice. Shape: `{ jsonrpc: '2.0', error: { code: -32700, message } }`.
 */
export function parseErrorResponse(detail?: string): JSONRPCErrorResponse {
  return errorResponse(undefined, ErrorCode.ParseError, detail ? `Parse error: ${detail}` : 'Parse error');
}

/**
 * Allocates request ids: integers counting up from `start` (default 0). Ids are unique for the
 * life of the allocator, as the spec requires within a session.
 */
export function createIdAllocator(start = 0): () => number {
  let next = start;
  return () => next++;
}
