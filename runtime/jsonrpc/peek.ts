/**
 * Reading a JSON-RPC message's `id` and kind from the two ends of its JSON text, without the
 * middle: what a transport has of a message over its size limit (../codec/ndjson.ts
 * `FrameError.head` and `.tail`), and the error that reports such a message. Loaded by the stdio
 * transport on the first over-long line only.
 */
import { ErrorCode, RpcError } from './errors.js';
import { skipSpace, stringEnd, valueEnd } from './message.js';
import type { RequestId } from './message.js';

/** Longest id token {@link peekMessage} reads, characters (a longer id is unreadable). */
const MAX_PEEK_ID = 1024;

/** What {@link peekMessage} could tell of a message from the two ends of its JSON text. */
export interface MessagePeek {
  /** The top-level `id`, when it was read and is a string or an integer (beyond 2^53 − 1: a `bigint`). */
  id?: RequestId;
  /** A top-level `method` member was seen: a request (with `id`) or a notification. */
  method: boolean;
  /** A top-level `result` or `error` member was seen: a response. */
  response: boolean;
}

/**
 * Reads the top-level `id`, and whether there are `method` / `result` / `error` members, from
 * the first and last characters of a message's JSON text without the middle (a stdio line over
 * its size limit: ../codec/ndjson.ts `FrameError.head` and `.tail`). `head` is scanned forward
 * member by member while each member ends inside it (so `{"jsonrpc":"2.0","id":7,"method":…`
 * gives 7); `tail` backward from the closing `}` while the members are strings, numbers or
 * literals (so `…},"jsonrpc":"2.0","id":7}`, the order some serializers write, gives 7 too). For
 * valid JSON text both scans are exact: nothing they report can come from inside a nested value
 * or a string. With an `id` at both ends, the tail's counts (the last member, as in
 * `JSON.parse`). Cost: linear in `head.length + tail.length`; never throws.
 */
export function peekMessage(head: string, tail: string): MessagePeek {
  const out: MessagePeek = { method: false, response: false };
  peekHead(head, out);
  peekTail(tail, out);
  return out;
}

function noteMember(out: MessagePeek, key: string): void {
  if (key === 'method') out.method = true;
  else if (key === 'result' || key === 'error') out.response = true;
}

/** The id a JSON token spells (a string, or an integer as written), else undefined. */
function peekId(token: string): RequestId | undefined {
  if (token.length > MAX_PEEK_ID) return undefined;
  if (token.charCodeAt(0) === 0x22) {
    try {
      const s: unknown = JSON.parse(token);
      return typeof s === 'string' ? s : undefined;
    } catch {
      return undefined;
    }
  }
  if (!/^-?(?:0|[1-9][0-9]*)$/.test(token)) return undefined;
  const n = Number(token);
  return Number.isSafeInteger(n) ? n : BigInt(token);
}

function peekKey(raw: string): string | undefined {
  if (raw.indexOf('\\') === -1) return raw.slice(1, -1);
  try {
    return JSON.parse(raw) as string;
  } catch {
    return undefined;
  }
}

function peekHead(text: string, out: MessagePeek): void {
  const n = text.length;
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x7b /* { */) return;
  for (i++; ; i++) {
    i = skipSpace(text, i);
    if (text.charCodeAt(i) !== 0x22) return;
    const keyEnd = stringEnd(text, i);
    if (keyEnd >= n) return;
    const key = peekKey(text.slice(i, keyEnd));
    if (key === undefined) return;
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== 0x3a /* : */) return;
    i = skipSpace(text, i + 1);
    noteMember(out, key);
    const end = valueEnd(text, i);
    // a value that reaches the end of the head may go on past it
    if (end >= n) return;
    if (key === 'id') out.id = peekId(text.slice(i, end));
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== 0x2c /* , */) return;
  }
}

function skipSpaceBack(text: string, i: number): number {
  for (let c = text.charCodeAt(i); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(--i));
  return i;
}

/**
 * Where the string whose closing `"` is at `end` opens: the nearest `"` before it preceded by an
 * even number of backslashes; -1 when that cannot be told inside `text`.
 */
function stringStartBack(text: string, end: number): number {
  for (let j = end - 1; j >= 0; j--) {
    if (text.charCodeAt(j) !== 0x22) continue;
    let k = j - 1;
    while (k >= 0 && text.charCodeAt(k) === 0x5c /* \ */) k--;
    if (k < 0) return -1;
    if ((j - 1 - k) % 2 === 0) return j;
  }
  return -1;
}

function isTokenChar(c: number): boolean {
  return (
    (c >= 0x30 && c <= 0x39) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x41 && c <= 0x5a) ||
    c === 0x2d ||
    c === 0x2b ||
    c === 0x2e
  );
}

function peekTail(text: string, out: MessagePeek): void {
  let i = skipSpaceBack(text, text.length - 1);
  if (text.charCodeAt(i) !== 0x7d /* } */) return;
  for (i--; ; i--) {
    i = skipSpaceBack(text, i);
    if (i < 0) return;
    const c = text.charCodeAt(i);
    let start: number;
    if (c === 0x22) start = stringStartBack(text, i);
    else if (isTokenChar(c)) {
      start = i;
      while (start > 0 && isTokenChar(text.charCodeAt(start - 1))) start--;
      if (start === 0) return;
    } else return; // an object or array value: its insides cannot be skipped backward safely
    if (start < 0) return;
    const value = text.slice(start, i + 1);
    i = skipSpaceBack(text, start - 1);
    if (text.charCodeAt(i) !== 0x3a /* : */) return;
    i = skipSpaceBack(text, i - 1);
    if (text.charCodeAt(i) !== 0x22) return;
    const keyStart = stringStartBack(text, i);
    if (keyStart < 0) return;
    const key = peekKey(text.slice(keyStart, i + 1));
    if (key === undefined) return;
    i = skipSpaceBack(text, keyStart - 1);
    const sep = text.charCodeAt(i);
    if (sep !== 0x2c /* , */ && sep !== 0x7b /* { */) return;
    noteMember(out, key);
    if (key === 'id') {
      const id = peekId(value);
      if (id !== undefined) out.id = id;
    }
    if (sep === 0x7b) return;
  }
}

/**
 * A message over a transport's size limit was dropped unread (stdio: a line over
 * `maxLineBytes`). Code -32000 with "Payload Too Large", as the HTTP transports' 413 refusal;
 * `data` is `{ limit, bytes }` (bytes). The stdio transport answers an over-long request with it
 * and fails the pending request whose response was over the limit with it.
 */
export class MessageTooLargeError extends RpcError {
  readonly limit: number;
  readonly bytes: number;
  constructor(limit: number, bytes: number, what = 'a message') {
    super(
      ErrorCode.ServerError,
      `Payload Too Large: ${what} (${bytes} bytes) exceeds the line limit of ${limit} bytes and was dropped unread`,
      { limit, bytes },
    );
    this.name = 'MessageTooLargeError';
    this.limit = limit;
    this.bytes = bytes;
  }
}
