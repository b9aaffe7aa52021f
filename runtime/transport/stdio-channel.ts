/**
 * The line-framed duplex under both stdio transports (./stdio.ts): decoding, answering what is
 * not a message, coalesced writes with backpressure, the bounds on a misbehaving peer.
 */
import type { Readable, Writable } from 'node:stream';
import {
  DEFAULT_MAX_LINE_BYTES,
  escapeLineSeparators,
  type FrameError,
  frameJson,
  NdjsonDecoder,
} from '../codec/ndjson.js';
import { classify, exactIds, type InvalidMessage, kindOf, parseErrorResponse } from '../jsonrpc/message.js';
import { ConnectionClosedError } from '../jsonrpc/errors.js';
import { SENT } from '../jsonrpc/sent.js';
import type { JSONRPCMessage, TransportEvents } from '../jsonrpc/transport.js';

/** ./stdio-too-long.ts, imported once per process on the first over-long line (a failed import is tried again on the next). */
let tooLongModule: Promise<typeof import('./stdio-too-long.js')> | undefined;
function loadTooLong(): Promise<typeof import('./stdio-too-long.js')> {
  return (tooLongModule ??= import('./stdio-too-long.js').catch((e: unknown) => {
    tooLongModule = undefined;
    throw e;
  }));
}

/** Options both sides share. */
export interface StdioCommonOptions {
  /** Maximum line size in bytes (default 16 MiB). A longer line is dropped, reported and answered (see the module docs). */
  maxLineBytes?: number;
  /** Answer an unparseable line with `-32700` (default: true on the server, false on the client). */
  answerParseErrors?: boolean;
  /**
   * Consecutive lines that are not JSON-RPC messages (not JSON, not UTF-8, too long, or JSON
   * that is not a message) after which the connection is closed with
   * {@link NotJsonRpcError} (default: 1000 on the client, unbounded on the server). A valid
   * message resets the count. The lines of the chunk being read after the limit are dropped.
   */
  maxInvalidLines?: number;
  /**
   * Bytes of outbound frames queued and not yet taken by the peer (our buffer plus the
   * stream's) over which the connection is closed with {@link WriteQueueFullError}: a peer that
   * never reads cannot make us buffer without bound (default 64 MiB).
   */
  maxQueuedBytes?: number;
}

/** Default {@link StdioCommonOptions.maxInvalidLines} of the client transport. */
export const DEFAULT_CLIENT_MAX_INVALID_LINES = 1000;
/** Default {@link StdioCommonOptions.maxQueuedBytes}: 64 MiB. */
export const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/** The peer sent `count` lines in a row that are not JSON-RPC messages; `first` is the first one's error. */
export class NotJsonRpcError extends Error {
  constructor(
    peer: 'server' | 'client',
    readonly count: number,
    readonly first: Error,
  ) {
    super(
      `the ${peer}'s output is not JSON-RPC: ${count} lines in a row are not JSON-RPC messages (first: ${first.message})`,
    );
    this.name = 'NotJsonRpcError';
  }
}

/** More than `limit` bytes of outbound frames were waiting for the peer to read them. */
export class WriteQueueFullError extends Error {
  constructor(readonly limit: number) {
    super(`the peer does not read its input: more than ${limit} bytes queued for it`);
    this.name = 'WriteQueueFullError';
  }
}

/** Queued characters at which a turn's batch is written without waiting for the turn to end. */
const FLUSH_AT = 2048;
/**
 * Invalid lines (each costs a parse exception and an error report) after which reading pauses
 * until the next turn of the event loop, so that timers (request timeouts) run between chunks
 * however fast the peer writes: one read callback can otherwise deliver 32 chunks of 64 KiB.
 */
const YIELD_AFTER_INVALID = 2000;

/**
 * One line-framed duplex over a readable and a writable: decoding, answering invalid input,
 * writing with backpressure. Shared by both sides.
 *
 * Writes are coalesced: frames sent in the same turn of the event loop (the synchronous code
 * and the microtasks after it) go out as one `write` on the next `process.nextTick`, in send
 * order. Under load this turns one pipe write per message into one per batch; a lone message
 * leaves in the same turn it was sent. A batch leaves early once {@link FLUSH_AT} characters are
 * queued, so that the peer starts on the first messages while the rest are still being made
 * (both processes work at once instead of taking turns).
 */
export class LineChannel {
  private readonly decoder: NdjsonDecoder;
  private events: TransportEvents | undefined;
  private drain: Promise<void> | undefined;
  private drained: ((err?: Error) => void) | undefined;
  private writable = true;
  private truncated: FrameError | undefined;
  /** Encoded frames not yet handed to the stream. */
  private queued = '';
  private flushScheduled = false;
  /** Lines in a row that were not JSON-RPC messages, and the first one's error. */
  private invalidRun = 0;
  private firstInvalid: Error | undefined;
  /** A message arrived at some point. */
  private spoke = false;
  /** Invalid lines since reading last yielded to the event loop. */
  private invalidSinceYield = 0;
  private detached = false;
  private failed: Error | undefined;
  private readonly maxInvalid: number;
  private readonly maxQueued: number;
  private readonly maxLine: number;
  /** Over-long lines' answers and the lines that came after them, in line order (none: undefined). */
  private tooLongAnswers: Promise<void> | undefined;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly answerParseErrors: boolean,
    options: StdioCommonOptions,
    private readonly peer: 'server' | 'client',
    /** The connection failed (too many invalid lines, write queue full): the owner closes it. */
    private readonly onFail: (error: Error) => void,
  ) {
    this.maxInvalid = options.maxInvalidLines ?? Infinity;
    this.maxQueued = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    this.maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.decoder = new NdjsonDecoder(
      {
        // while an over-long line's answer is on its way, later lines wait for it (answers keep the lines' order)
        value: (v, text) => (this.tooLongAnswers ? this.later(() => this.onValue(v, text)) : this.onValue(v, text)),
        error: (e) => {
          this.report(e);
          if (!this.invalid(e)) return;
          if (e.kind === 'line-too-long') this.tooLong(e);
          else if (this.answerParseErrors) this.write(parseErrorResponse(e.message)).catch(() => undefined);
        },
      },
      { maxLineBytes: options.maxLineBytes },
    );
    // From the start (a child's stdin can fail before it is attached): a write error on the
    // output never escapes as an 'error' event. A closed pipe (EPIPE, ECONNRESET, destroyed) only
    // makes later sends reject; the close itself is reported by whoever owns the streams.
    this.output.on('error', (e: Error & { code?: string }) => {
      this.writable = false;
      if (!CLOSED_PIPE.has(e.code ?? '')) this.report(e);
    });
  }

  /**
   * A line over the limit, dropped unread, is answered by ./stdio-too-long.ts (loaded on the
   * first one; answers go out in the order of the lines).
   */
  private tooLong(e: FrameError): void {
    // (the module failing to load, or `events` throwing, is reported by `later`)
    this.later(() =>
      loadTooLong().then((m) =>
        m.answerTooLong(e, this.maxLine, this.answerParseErrors, this.events, (msg) => this.write(msg)),
      ),
    );
  }

  /** Runs `step` after the steps queued before it (over-long lines' answers and the lines after them). */
  private later(step: () => unknown): void {
    // a step that throws is reported and never stops the steps after it
    const run = (this.tooLongAnswers ?? Promise.resolve())
      .then(step)
      .catch((x: unknown) => this.report(x))
      .then(() => {
        if (this.tooLongAnswers === run) this.tooLongAnswers = undefined;
      });
    this.tooLongAnswers = run;
  }

  /**
   * Resolves once the lines read so far are delivered: every queued step (over-long lines'
   * answers and the lines after them) has run. Undefined when none is queued.
   */
  settled(): Promise<void> | undefined {
    if (!this.tooLongAnswers) return undefined;
    return (async () => {
      while (this.tooLongAnswers) await this.tooLongAnswers;
    })();
  }

  /** Only lines that are not JSON-RPC messages arrived (at least one, and no message). */
  get garbageOnly(): boolean {
    return !this.spoke && this.firstInvalid !== undefined;
  }

  /** The error the connection failed with (see {@link fail}), if any. */
  get failure(): Error | undefined {
    return this.failed;
  }

  /** Counts one line that is not a message; false once the limit is reached (the connection then fails). */
  private invalid(e: Error): boolean {
    this.invalidSinceYield++;
    if (this.invalidRun++ === 0) this.firstInvalid = e;
    if (this.invalidRun < this.maxInvalid) return true;
    this.fail(new NotJsonRpcError(this.peer, this.invalidRun, this.firstInvalid as Error));
    return false;
  }

  /** Stops reading and writing for good and tells the owner, once. */
  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = error;
    this.decoder.stop();
    this.input.off('data', this.onData);
    this.input.pause();
    this.writable = false;
    this.queued = '';
    this.drained?.(error);
    this.onFail(error);
  }

  /** The `truncated` error seen at end of input, if any. */
  get endError(): FrameError | undefined {
    return this.truncated;
  }

  attach(events: TransportEvents, onEnd: () => void): void {
    this.events = events;
    this.input.on('data', this.onData);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.truncated = this.decoder.end();
      // the lines read before the end are delivered (and answered) first: an over-long line's
      // answer and the lines queued behind it would otherwise be lost when the owner closes
      const pending = this.settled();
      if (pending) void pending.then(onEnd);
      else onEnd();
    };
    this.input.once('end', end);
    this.input.once('close', end);
    this.input.on('error', (e: Error) => this.report(e));
  }

  /** Stops reading; frames already sent are written out first, later sends reject. */
  detach(): void {
    this.detached = true;
    this.input.off('data', this.onData);
    this.input.pause();
    this.flush();
    this.writable = false;
  }

  /** Tells `onError` of `e` (a non-Error as an Error of its text); a throw of `onError` is dropped. */
  report(e: unknown): void {
    try {
      this.events?.onError?.(e instanceof Error ? e : new Error(String(e)));
    } catch {
      // a throwing error callback must not break reading
    }
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.decoder.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    if (this.invalidSinceYield > YIELD_AFTER_INVALID && !this.failed) {
      this.invalidSinceYield = 0;
      this.input.pause();
      setImmediate(this.resume);
    }
  };

  private readonly resume = (): void => {
    if (!this.detached && !this.failed) this.input.resume();
  };

  private onValue(v: unknown, text: string): void {
    exactIds(v, text);
    this.invalidRun = 0;
    this.spoke = true;
    if (Array.isArray(v) && this.events?.onBatch) {
      try {
        this.events.onBatch(v);
      } catch (e) {
        this.report(e);
      }
      return;
    }
    const kind = kindOf(v);
    if (kind !== null) {
      try {
        const events = this.events;
        if (events?.onMessageOfKind) events.onMessageOfKind(v as JSONRPCMessage, kind);
        else events?.onMessage(v as JSONRPCMessage);
      } catch (e) {
        this.report(e);
      }
      return;
    }
    // (kindOf found no kind: classify's verdict is 'invalid', and says why)
    const c = classify(v) as InvalidMessage;
    const e = new Error(`invalid message: ${c.reason}`);
    this.report(e);
    if (this.invalid(e) && c.reply) this.write(c.reply).catch(() => undefined);
  }

  /**
   * Queues one frame. Returns {@link SENT} (resolved), or a promise that resolves after `drain`
   * when the stream's buffer (with what is queued) is at or over its high-water mark. Rejects with ConnectionClosedError once the output
   * is closed, or with what `JSON.stringify` throws.
   */
  write(message: unknown): Promise<void> {
    if (!this.writable || this.output.destroyed || this.output.writableEnded) {
      return Promise.reject(new ConnectionClosedError(this.failed));
    }
    // the frame of ../codec/ndjson.ts `encodeFrame`, whose U+2028/U+2029 escaping `flush` does
    // once for the whole batch
    let json: string;
    try {
      json = frameJson(message);
    } catch (e) {
      return Promise.reject(e);
    }
    this.queued += `${json}\n`;
    if (this.queued.length >= FLUSH_AT) this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(this.flushTick);
    }
    // String length never exceeds the UTF-8 byte length: when this says full, the write will too.
    const held = this.output.writableLength + this.queued.length;
    if (this.drain || held >= this.output.writableHighWaterMark) {
      if (held > this.maxQueued) {
        const error = new WriteQueueFullError(this.maxQueued);
        this.fail(error);
        return Promise.reject(new ConnectionClosedError(error));
      }
      return this.waitDrain();
    }
    return SENT;
  }

  private readonly flushTick = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  /** Hands the queued frames to the stream as one write. */
  flush(): void {
    const data = this.queued;
    if (data === '') return;
    this.queued = '';
    if (!this.writable || this.output.destroyed || this.output.writableEnded) {
      this.drained?.(new Error('output closed'));
      return;
    }
    if (this.output.write(escapeLineSeparators(data))) {
      if (this.drain && !this.output.writableNeedDrain) this.drained!();
    } else this.waitDrain();
  }

  /**
   * The one pending drain: resolves on `drain`, rejects with ConnectionClosedError on `close` or
   * `error`. A flush waits on it with nobody listening, so it is marked handled here; senders
   * that got it from {@link write} still see the rejection.
   */
  private waitDrain(): Promise<void> {
    if (this.drain) return this.drain;
    this.drain = new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        this.output.off('drain', ok);
        this.output.off('close', closed);
        this.output.off('error', done);
        this.drain = undefined;
        this.drained = undefined;
        if (err) reject(new ConnectionClosedError(err));
        else resolve();
      };
      const ok = () => done();
      const closed = () => done(new Error('output closed'));
      this.drained = done;
      this.output.on('drain', ok);
      this.output.once('close', closed);
      this.output.once('error', done);
    });
    this.drain.catch(() => undefined);
    return this.drain;
  }
}

/** Write error codes of a pipe whose reader is gone. */
const CLOSED_PIPE = new Set(['EPIPE', 'ECONNRESET', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);
