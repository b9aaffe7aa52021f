/**
 * `text/event-stream` framing (WHATWG HTML § 9.2 "Server-sent events", used by MCP Streamable
 * HTTP, 2025-11-25 basic/transports): an incremental parser that accepts the stream in chunks
 * split anywhere, and an encoder for events and keep-alive comments.
 *
 * Parsing follows the standard's interpretation rules: lines end in CR, LF or CRLF; one leading
 * BOM is dropped; `:` starts a comment; fields are `event`, `data`, `id`, `retry`, anything else
 * is ignored; one space after the colon is dropped; a blank line dispatches the event; an event
 * without any `data` field is not dispatched (its `id` and `retry` still take effect); an
 * unfinished event at the end of the stream is discarded.
 */

/** One dispatched event. */
export interface SseEvent {
  /** The event type: the last `event` field of the block, or `'message'` when there was none. */
  event: string;
  /** The `data` field values of the block joined with LF (`''` for a lone empty `data:` line). */
  data: string;
  /**
   * The last event ID at dispatch time. Per the standard it persists across events until an
   * `id` field changes it; undefined while no `id` field has been seen on the stream.
   */
  id?: string;
  /** The reconnection time in milliseconds, when this block carried a valid `retry` field. */
  retry?: number;
}

/** Options for {@link SseParser}. */
export interface SseParserOptions {
  /**
   * Largest accepted size of one event, in UTF-16 code units of decoded text (the partial line
   * plus the data gathered so far). Default 16 MiB. Exceeding it throws {@link SseSizeError}.
   */
  maxEventSize?: number;
}

/** Thrown by {@link SseParser.push} when one event grows beyond `maxEventSize`. */
export class SseSizeError extends RangeError {
  constructor(limit: number) {
    super(`SSE event exceeds ${limit} characters`);
    this.name = 'SseSizeError';
  }
}

const DEFAULT_MAX_EVENT_SIZE = 16 * 1024 * 1024;

/**
 * Incremental `text/event-stream` parser. Feed it bytes or text with {@link SseParser.push}
 * in any chunking (inside a CRLF pair, inside a UTF-8 sequence); each call returns the events
 * the chunk completed, in order. {@link SseParser.lastEventId} and {@link SseParser.retry} hold
 * the stream state a reconnecting client needs.
 *
 * @example
 * const p = new SseParser();
 * p.push('id: 7\ndata: {"a"');
 * p.push(':1}\n\n'); // → [{ event: 'message', data: '{"a":1}', id: '7' }]
 */
export class SseParser {
  /** For byte chunks; made on the first one (text chunks need none). */
  private decoder: TextDecoder | undefined;
  private readonly maxEventSize: number;
  /** Text of the current unfinished line. */
  private line = '';
  /** The previous chunk ended in CR: an LF at the start of the next one belongs to it. */
  private pendingCR = false;
  private started = false;
  private data: string[] = [];
  private dataSize = 0;
  private eventType = '';
  private blockRetry: number | undefined;
  /** The standard's "last event ID buffer": set by `id` fields, committed by a blank line. */
  private idBuffer: string | undefined;
  private lastId: string | undefined;
  private retryMs: number | undefined;

  constructor(options: SseParserOptions = {}) {
    this.maxEventSize = options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
  }

  /**
   * The last event ID as of the last blank line (what a client sends as `Last-Event-ID`);
   * undefined if none. An `id` field of an unfinished event does not count yet, so a stream
   * cut inside an event resumes before that event.
   */
  get lastEventId(): string | undefined {
    return this.lastId;
  }

  /** The latest valid `retry` value seen on the stream, in milliseconds. */
  get retry(): number | undefined {
    return this.retryMs;
  }

  /**
   * Consumes one chunk; returns the events it completed (possibly none).
   * Bytes are decoded as UTF-8 (invalid sequences become U+FFFD, as the standard requires).
   * @throws SseSizeError when an event exceeds `maxEventSize`.
   */
  push(chunk: Uint8Array | string): SseEvent[] {
    let text =
      typeof chunk === 'string'
        ? chunk
        : (this.decoder ??= new TextDecoder('utf-8', { ignoreBOM: true })).decode(chunk, { stream: true });
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    return this.feed(text);
  }

  /**
   * Ends the stream: flushes a trailing partial UTF-8 sequence and a final line that lacks its
   * line end. An event that was not terminated by a blank line is discarded, per the standard.
   */
  end(): SseEvent[] {
    const rest = this.decoder?.decode() ?? '';
    const out = rest ? this.feed(rest) : [];
    if (this.line.length > 0) {
      const line = this.line;
      this.line = '';
      this.processLine(line, out);
    }
    this.resetBlock();
    return out;
  }

  private feed(text: string): SseEvent[] {
    const out: SseEvent[] = [];
    let start = 0;
    if (this.pendingCR && text.length > 0) {
      this.pendingCR = false;
      if (text.charCodeAt(0) === 0x0a) start = 1;
    }
    const n = text.length;
    // line ends found with indexOf (native scan) rather than a loop over every character
    let lf = text.indexOf('\n', start);
    let cr = text.indexOf('\r', start);
    let i = start;
    while (i < n) {
      if (lf !== -1 && lf < i) lf = text.indexOf('\n', i);
      if (cr !== -1 && cr < i) cr = text.indexOf('\r', i);
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (end === -1) break;
      i = end;
      const c = text.charCodeAt(i);
      const line = this.line.length > 0 ? this.line + text.slice(start, i) : text.slice(start, i);
      this.line = '';
      this.processLine(line, out);
      if (c === 0x0d) {
        if (i + 1 < n) {
          if (text.charCodeAt(i + 1) === 0x0a) i++;
        } else {
          this.pendingCR = true;
        }
      }
      i++;
      start = i;
    }
    if (start < n) {
      this.line += text.slice(start);
      if (this.line.length + this.dataSize > this.maxEventSize) {
        throw new SseSizeError(this.maxEventSize);
      }
    }
    return out;
  }

  private processLine(line: string, out: SseEvent[]): void {
    if (line.length === 0) {
      this.dispatch(out);
      return;
    }
    if (line.charCodeAt(0) === 0x3a) return; // ':' comment
    const colon = line.indexOf(':');
    let field: string;
    let value: string;
    if (colon === -1) {
      field = line;
      value = '';
    } else {
      field = line.slice(0, colon);
      value = line.charCodeAt(colon + 1) === 0x20 ? line.slice(colon + 2) : line.slice(colon + 1);
    }
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data.push(value);
        this.dataSize += value.length + 1;
        if (this.dataSize > this.maxEventSize) throw new SseSizeError(this.maxEventSize);
        break;
      case 'id':
        if (!value.includes('\0')) this.idBuffer = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) {
          this.retryMs = Number(value);
          this.blockRetry = this.retryMs;
        }
        break;
    }
  }

  private dispatch(out: SseEvent[]): void {
    this.lastId = this.idBuffer;
    if (this.data.length > 0) {
      const event: SseEvent = { event: this.eventType || 'message', data: this.data.join('\n') };
      if (this.lastId !== undefined) event.id = this.lastId;
      if (this.blockRetry !== undefined) event.retry = this.blockRetry;
      out.push(event);
    }
    this.resetBlock();
  }

  private resetBlock(): void {
    this.data = [];
    this.dataSize = 0;
    this.eventType = '';
    this.blockRetry = undefined;
  }
}

/**
 * A `TransformStream` form of {@link SseParser}: bytes or text in, {@link SseEvent}s out.
 * The stream errors with {@link SseSizeError} when an event exceeds `maxEventSize`.
 */
export class SseDecoderStream extends TransformStream<Uint8Array | string, SseEvent> {
  /** The parser, for `lastEventId` and `retry` after (or while) reading. */
  readonly parser: SseParser;
  constructor(options: SseParserOptions = {}) {
    const parser = new SseParser(options);
    super({
      transform(chunk, controller) {
        for (const e of parser.push(chunk)) controller.enqueue(e);
      },
      flush(controller) {
        for (const e of parser.end()) controller.enqueue(e);
      },
    });
    this.parser = parser;
  }
}

/** Input of {@link encodeEvent}. */
export interface SseEventInit {
  /** Event ID; must not contain CR, LF or NUL. */
  id?: string;
  /** Event type; must not contain CR or LF. Omitted means `message`. */
  event?: string;
  /** Payload; CR, LF and CRLF inside it become separate `data` lines. `''` gives `data: `. */
  data: string;
  /** Reconnection time in milliseconds (non-negative integer). */
  retry?: number;
}

/**
 * Encodes one event, terminated by a blank line, e.g.
 * `encodeEvent({ id: '4', data: 'a\nb' })` → `'id: 4\ndata: a\ndata: b\n\n'`.
 * A priming event is `encodeEvent({ id, data: '' })` → `'id: …\ndata: \n\n'`.
 * @throws TypeError when `id` or `event` contain a line break (or `id` a NUL), or `retry` is not
 * a non-negative integer.
 */
export function encodeEvent(init: SseEventInit): string {
  let out = '';
  if (init.event !== undefined) {
    if (init.event.indexOf('\n') !== -1 || init.event.indexOf('\r') !== -1)
      throw new TypeError('SSE event type must not contain CR or LF');
    out += `event: ${init.event}\n`;
  }
  if (init.id !== undefined) {
    checkEventId(init.id);
    out += `id: ${init.id}\n`;
  }
  if (init.retry !== undefined) {
    if (!Number.isSafeInteger(init.retry) || init.retry < 0) {
      throw new TypeError('SSE retry must be a non-negative integer (milliseconds)');
    }
    out += `retry: ${init.retry}\n`;
  }
  // JSON text (the usual payload) holds no line breaks: one data line, no split
  if (init.data.indexOf('\n') === -1 && init.data.indexOf('\r') === -1) return `${out}data: ${init.data}\n\n`;
  for (const line of init.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/**
 * Encodes one event carrying a JSON text as `JSON.stringify` writes it, which holds no CR or LF
 * (so one `data` line, and the text is not scanned for line breaks), with an event ID when
 * `id` is given: `encodeJsonEvent('4', '{"a":1}')` → `'id: 4\ndata: {"a":1}\n\n'`. Same output
 * as {@link encodeEvent} for such text.
 * @throws TypeError when `id` contains a line break or a NUL.
 */
export function encodeJsonEvent(id: string | undefined, json: string): string {
  if (id === undefined) return `data: ${json}\n\n`;
  checkEventId(id);
  return `id: ${id}\ndata: ${json}\n\n`;
}

/** @throws TypeError when event ID `id` contains CR, LF or NUL. */
function checkEventId(id: string): void {
  // (three scans, not a regular expression: an event ID is short, and this runs for every event)
  if (id.indexOf('\n') !== -1 || id.indexOf('\r') !== -1 || id.indexOf('\0') !== -1)
    throw new TypeError('SSE event id must not contain CR, LF or NUL');
}

/**
 * Encodes a comment line followed by a blank line; clients ignore it, so it serves as a
 * keep-alive. Line breaks in `text` start further comment lines. `encodeComment()` → `':\n\n'`.
 */
export function encodeComment(text = ''): string {
  if (text === '') return ':\n\n';
  return `${text
    .split(/\r\n|\r|\n/)
    .map((l) => `: ${l}\n`)
    .join('')}\n`;
}
