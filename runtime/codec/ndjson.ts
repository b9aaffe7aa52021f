/**
 * Newline-delimited JSON: the stdio framing (2025-11-25 `basic/transports.mdx`, stdio:
 * "Messages are delimited by newlines, and MUST NOT contain embedded newlines"; "JSON-RPC
 * messages MUST be UTF-8 encoded").
 *
 * The decoder works on bytes: it scans for `0x0A` only, keeps the bytes of an unfinished line
 * across chunks and decodes UTF-8 per complete line, so chunk borders (inside a multi-byte
 * character, between `\r` and `\n`) never change the result. A `\r` before the `\n` is JSON
 * whitespace and needs no stripping. Blank and whitespace-only lines are skipped.
 */
import { isUtf8 } from 'node:buffer';
import { serializeMessage } from '../jsonrpc/message.js';
import { UnserializableMessageError } from '../jsonrpc/errors.js';
import { parsePeerJson } from './json-depth.js';

/** 16 MiB: the default maximum line size in bytes (the `\n` not counted). */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Bytes kept from each end of a line over the limit, as {@link FrameError.head} and
 * {@link FrameError.tail}: enough for the members a JSON-RPC message starts or ends with
 * (`jsonrpc`, `id`, `method`), and all the memory an over-long line costs beyond one chunk.
 */
export const PEEK_BYTES = 4096;

/** Why a line (or the end of the stream) could not be decoded. */
export type FrameErrorKind = 'invalid-json' | 'invalid-utf8' | 'line-too-long' | 'truncated';

/**
 * A framing or parse failure of one line. `invalid-json`, `invalid-utf8` and `line-too-long`
 * concern one line and decoding goes on at the next; `truncated` means the stream ended inside
 * a line (`bytes` unterminated bytes were dropped, never parsed).
 */
export class FrameError extends Error {
  readonly kind: FrameErrorKind;
  /** Bytes of the offending line (`\n` excluded). */
  readonly bytes: number;
  /**
   * `line-too-long`: the line's first and last up to {@link PEEK_BYTES} bytes, decoded as UTF-8
   * (a character cut at the edge becomes U+FFFD), for reading the message's id without the rest
   * (`peekMessage` in ../jsonrpc/peek.ts). Empty for the other kinds.
   */
  readonly head: string;
  readonly tail: string;
  constructor(kind: FrameErrorKind, message: string, bytes: number, cause?: unknown, head = '', tail = '') {
    super(message);
    this.name = 'FrameError';
    this.kind = kind;
    this.bytes = bytes;
    this.head = head;
    this.tail = tail;
    if (cause !== undefined) this.cause = cause;
  }
}

/** Where decoded values and per-line failures go. Called synchronously from `push`. */
export interface NdjsonSink {
  /**
   * One parsed JSON value (any JSON: checking that it is a message is the caller's job), with
   * the line's text it was parsed from (for `exactIds` in ../jsonrpc/message.ts).
   */
  value(value: unknown, text: string): void;
  /** One line that failed; decoding continues with the next line. */
  error(error: FrameError): void;
}

/** Options of the newline-delimited JSON decoder (the stdio framing, 2025-11-25 basic/transports). Sizes in bytes. */
export interface NdjsonDecoderOptions {
  /** Maximum line size in bytes, `\n` excluded (default {@link DEFAULT_MAX_LINE_BYTES}). */
  maxLineBytes?: number;
}

const LF = 0x0a;

function isBlank(buf: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = buf[i];
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  }
  return true;
}

/** True for `""` and lines of spaces, tabs and CRs only (what {@link isBlank} says of the bytes). */
function isBlankText(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/**
 * Incremental decoder. Feed it chunks with {@link NdjsonDecoder.push} and call
 * {@link NdjsonDecoder.end} at end of stream. Never throws for any input bytes; a throwing sink
 * propagates. The decoder keeps views on pushed chunks (no copy): do not reuse a chunk's memory
 * after pushing it (stream chunks are never reused). Memory is bounded by `maxLineBytes` plus one chunk: once a line passes the limit
 * its bytes are discarded up to the next `\n` (only its first and last {@link PEEK_BYTES} are
 * kept), and one `line-too-long` error is reported for it when that `\n` arrives, with the
 * line's byte count, head and tail.
 */
export class NdjsonDecoder {
  private readonly max: number;
  private readonly sink: NdjsonSink;
  /** Bytes of the unfinished line, in arrival order. */
  private parts: Buffer[] = [];
  private partBytes = 0;
  /** The current line passed the limit: drop bytes until the next `\n`. */
  private discarding = false;
  /** Of the line being discarded: its bytes so far, its first bytes (decoded) and its last bytes. */
  private dropped = 0;
  private droppedHead: Buffer | undefined;
  private droppedTail: Buffer | undefined;
  /** {@link stop} was called: the rest of the input is dropped. */
  private stopped = false;

  constructor(sink: NdjsonSink, options: NdjsonDecoderOptions = {}) {
    this.sink = sink;
    this.max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    if (!(this.max > 0)) throw new RangeError('maxLineBytes must be positive');
  }

  /** Bytes held for the unfinished line. */
  get buffered(): number {
    return this.partBytes;
  }

  /**
   * Stops decoding for good: the lines left in the chunk being pushed and every later push are
   * dropped (a sink calls it to give up on a peer, e.g. after too many invalid lines).
   */
  stop(): void {
    this.stopped = true;
    this.reset();
  }

  /** Decodes every complete line in `chunk` (plus the held prefix); holds the rest. */
  push(chunk: Uint8Array): void {
    if (this.stopped) return;
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const len = buf.length;
    let start = 0;
    // The line begun in earlier chunks (held, or being discarded) ends at the first newline.
    while (start < len && (this.partBytes !== 0 || this.discarding)) {
      const nl = buf.indexOf(LF, start);
      if (nl === -1) return this.hold(buf, start, len);
      if (this.discarding) {
        this.discarding = false;
        this.drop(buf.subarray(start, nl));
        const head = this.droppedHead!.toString('utf8');
        const tail = this.droppedTail!.toString('utf8');
        this.droppedHead = this.droppedTail = undefined;
        this.tooLong(this.dropped, head, tail);
      } else {
        const total = this.partBytes + (nl - start);
        if (total > this.max) {
          this.parts.push(buf.subarray(start, nl));
          const head = firstBytes(this.parts).toString('utf8');
          const tail = lastBytes(this.parts).toString('utf8');
          this.reset();
          this.tooLong(total, head, tail);
        } else {
          this.parts.push(buf.subarray(start, nl));
          const whole = Buffer.concat(this.parts, total);
          this.reset();
          this.line(whole, 0, total);
        }
      }
      start = nl + 1;
      if (this.stopped) return;
    }
    if (start >= len) return;
    const last = buf.lastIndexOf(LF);
    if (last < start) return this.hold(buf, start, len);
    // The complete lines [start, last): decoded as one string when that is valid UTF-8, else line by line.
    const text = buf.toString('utf8', start, last);
    if (text.indexOf('\uFFFD') === -1) this.textLines(text);
    else {
      for (
        let from = start, nl = buf.indexOf(LF, from);
        from <= last && !this.stopped;
        from = nl + 1, nl = buf.indexOf(LF, from)
      )
        this.line(buf, from, nl);
    }
    if (last + 1 < len && !this.stopped) this.hold(buf, last + 1, len);
  }

  /**
   * The `\n`-separated lines of `text` (valid UTF-8, decoded), each as {@link line} would
   * (`split` makes them in one native pass: cheaper than a scan and a slice per line).
   */
  private textLines(text: string): void {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length && !this.stopped; i++) this.textLine(lines[i]);
  }

  private textLine(line: string): void {
    // A UTF-16 unit is at most 3 UTF-8 bytes: count the bytes only when that could pass the limit.
    if (line.length * 3 > this.max) {
      const bytes = Buffer.byteLength(line, 'utf8');
      if (bytes > this.max) return this.tooLong(bytes, line.slice(0, PEEK_BYTES), line.slice(-PEEK_BYTES));
    }
    if (isBlankText(line)) return;
    let value: unknown;
    try {
      value = parsePeerJson(line);
    } catch (e) {
      const bytes = Buffer.byteLength(line, 'utf8');
      this.sink.error(new FrameError('invalid-json', `line is not JSON: ${(e as Error).message}`, bytes, e));
      return;
    }
    this.sink.value(value, line);
  }

  /**
   * Ends the stream. Returns a `truncated` error when bytes of an unfinished line remain (they
   * are dropped, never parsed; whitespace-only leftovers do not count), else undefined.
   */
  end(): FrameError | undefined {
    const held = this.partBytes;
    const blank = held === 0 || this.parts.every((p) => isBlank(p, 0, p.length));
    const wasDiscarding = this.discarding;
    this.reset();
    this.discarding = false;
    this.droppedHead = this.droppedTail = undefined;
    if (wasDiscarding) return new FrameError('truncated', 'stream ended inside an over-long line', this.dropped);
    if (blank) return undefined;
    return new FrameError('truncated', `stream ended inside a frame (${held} bytes without a newline)`, held);
  }

  private hold(buf: Buffer, start: number, end: number): void {
    const n = end - start;
    if (this.discarding) return this.drop(buf.subarray(start, end));
    if (this.partBytes + n > this.max) {
      this.parts.push(buf.subarray(start, end));
      this.dropped = this.partBytes + n;
      this.droppedHead = firstBytes(this.parts);
      this.droppedTail = lastBytes(this.parts);
      this.reset();
      this.discarding = true;
      return;
    }
    this.parts.push(buf.subarray(start, end));
    this.partBytes += n;
  }

  private reset(): void {
    if (this.partBytes !== 0 || this.parts.length !== 0) {
      this.parts = [];
      this.partBytes = 0;
    }
  }

  /** More bytes of the line being discarded: counted, and kept while its head is short, and as its tail. */
  private drop(more: Buffer): void {
    this.dropped += more.length;
    const head = this.droppedHead!;
    if (head.length < PEEK_BYTES) this.droppedHead = firstBytes([head, more]);
    this.droppedTail = lastBytes([this.droppedTail!, more]);
  }

  private tooLong(bytes: number, head: string, tail: string): void {
    this.sink.error(
      new FrameError(
        'line-too-long',
        `line of ${bytes} bytes exceeds the limit of ${this.max} bytes`,
        bytes,
        undefined,
        head,
        tail,
      ),
    );
  }

  /** One complete line `buf[start, end)` (no `\n`). */
  private line(buf: Buffer, start: number, end: number): void {
    const n = end - start;
    if (n > this.max) {
      this.tooLong(
        n,
        buf.toString('utf8', start, Math.min(end, start + PEEK_BYTES)),
        buf.toString('utf8', Math.max(start, end - PEEK_BYTES), end),
      );
      return;
    }
    if (n === 0 || ((buf[start] === 0x20 || buf[start] === 0x09 || buf[start] === 0x0d) && isBlank(buf, start, end))) {
      return;
    }
    const text = buf.toString('utf8', start, end);
    // toString replaces invalid sequences with U+FFFD; only then is a byte-level check needed.
    if (text.indexOf('\uFFFD') !== -1 && !isUtf8(buf.subarray(start, end))) {
      this.sink.error(new FrameError('invalid-utf8', 'line is not valid UTF-8', n));
      return;
    }
    let value: unknown;
    try {
      value = parsePeerJson(text);
    } catch (e) {
      this.sink.error(new FrameError('invalid-json', `line is not JSON: ${(e as Error).message}`, n, e));
      return;
    }
    this.sink.value(value, text);
  }
}

/** A copy of the first {@link PEEK_BYTES} bytes of `parts` (copied: the chunks are released). */
function firstBytes(parts: readonly Buffer[]): Buffer {
  let n = 0;
  for (const p of parts) n += p.length;
  return Buffer.concat(parts, Math.min(n, PEEK_BYTES));
}

/** A copy of the last {@link PEEK_BYTES} bytes of `parts` (and of at most one part more). */
function lastBytes(parts: readonly Buffer[]): Buffer {
  let i = parts.length;
  let n = 0;
  while (i > 0 && n < PEEK_BYTES) n += parts[--i].length;
  return Buffer.concat(parts.slice(i), n).subarray(Math.max(0, n - PEEK_BYTES));
}

const LS = /[\u2028\u2029]/g;

/**
 * `text` (JSON) with U+2028 and U+2029 written as `\u2028` / `\u2029` (JSON holds them only
 * inside strings, where that is the same value), so that readers that split on Unicode line
 * separators still see one line per frame; `text` itself when it holds neither.
 */
export function escapeLineSeparators(text: string): string {
  // indexOf allocates nothing, and on a one-byte string (most JSON) it answers at once
  if (text.indexOf('\u2028') === -1 && text.indexOf('\u2029') === -1) return text;
  return text.replace(LS, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}

/**
 * The JSON text of one message, for a frame: `serializeMessage` in ../jsonrpc/message.ts (a
 * bigint, an exact id, written as its integer). Throws UnserializableMessageError (a cycle, a
 * value JSON cannot express).
 */
export function frameJson(message: unknown): string {
  const json = serializeMessage(message);
  if (json === undefined) throw new UnserializableMessageError('message is not JSON-serializable');
  return json;
}

/**
 * Encodes one message as one frame: {@link frameJson} + `"\n"`. JSON text never holds a raw LF
 * or CR (both are escaped inside strings), so the frame has exactly one `0x0A`, at the end, and
 * no `0x0D`; U+2028 and U+2029 are escaped ({@link escapeLineSeparators}).
 * Throws UnserializableMessageError (a cycle, a value JSON cannot express).
 */
export function encodeFrame(message: unknown): string {
  return `${escapeLineSeparators(frameJson(message))}\n`;
}

/** Decodes a complete byte sequence at once (for tests and tools): values and errors in order. */
export function decodeAll(
  bytes: Uint8Array,
  options?: NdjsonDecoderOptions,
): Array<{ value: unknown } | { error: FrameError }> {
  const out: Array<{ value: unknown } | { error: FrameError }> = [];
  const d = new NdjsonDecoder(
    { value: (value) => out.push({ value }), error: (error) => out.push({ error }) },
    options,
  );
  d.push(bytes);
  const e = d.end();
  if (e) out.push({ error: e });
  return out;
}
