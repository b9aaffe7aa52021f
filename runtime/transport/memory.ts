/**
 * An in-memory transport pair for tests and for wiring a client to a server in one process.
 * Messages are delivered asynchronously (one microtask per message, in send order) and pass
 * through `JSON.stringify`/`JSON.parse` by default, so each side sees what a wire would carry
 * (no shared objects, `undefined` members gone). The transport does not check message shapes:
 * it is the peer's job to answer invalid ones, so tests can send any JSON through it.
 *
 * @module
 */
import type { JSONRPCMessage, MessageInfo, SendOptions, Transport, TransportEvents } from '../jsonrpc/transport.js';
import { exactIds, serializeMessage } from '../jsonrpc/message.js';
import { ConnectionClosedError, UnserializableMessageError } from '../jsonrpc/errors.js';
import { SENT } from '../jsonrpc/sent.js';

/** Options of {@link createMemoryPair}. */
export interface MemoryPairOptions {
  /** Copy messages through JSON text (default true). False passes the same object. */
  serialize?: boolean;
}

type Item = { message: unknown; info?: MessageInfo } | { close: Error | undefined };

/** One end of a {@link createMemoryPair} pair. */
export class MemoryTransport implements Transport {
  /** @internal the other end. */
  other!: MemoryTransport;
  private events: TransportEvents | undefined;
  private readonly inbox: Item[] = [];
  private draining = false;
  private closing = false;
  private closedFired = false;
  private readonly serialize: boolean;

  constructor(options: MemoryPairOptions = {}) {
    this.serialize = options.serialize ?? true;
  }

  /** Starts delivery; messages sent to this end before `start` wait in order. */
  async start(events: TransportEvents): Promise<void> {
    if (this.events) throw new Error('transport already started');
    this.events = events;
    this.schedule();
  }

  /**
   * Queues `message` for the other end: returns {@link SENT}. Rejects with ConnectionClosedError
   * once closed, with a TypeError when JSON cannot express it.
   */
  send(message: JSONRPCMessage, _options?: SendOptions): Promise<void> {
    try {
      this.post(message, undefined);
    } catch (e) {
      return Promise.reject(e);
    }
    return SENT;
  }

  /**
   * Sends any value as if a peer had written it (for tests of invalid messages). The value is
   * serialized like a message; a value JSON cannot express throws a TypeError.
   */
  async sendRaw(value: unknown, info?: MessageInfo): Promise<void> {
    this.post(value, info);
  }

  private post(value: unknown, info: MessageInfo | undefined): void {
    if (this.closing) throw new ConnectionClosedError();
    let copy = value;
    if (this.serialize) {
      const text = serializeMessage(value);
      if (text === undefined) throw new UnserializableMessageError('value is not JSON-serializable');
      copy = JSON.parse(text);
      exactIds(copy, text);
    }
    this.other.enqueue({ message: copy, info });
  }

  /** Closes both ends: each fires `onClose` once, after the messages already queued to it. */
  async close(): Promise<void> {
    this.closeWith(undefined);
  }

  /** Closes both ends with `error` as the reason both see (simulates a broken connection). */
  closeWith(error: Error | undefined): void {
    if (this.closing) return;
    this.closing = true;
    this.enqueue({ close: error });
    this.other.closeWith(error);
  }

  /** @internal */
  enqueue(item: Item): void {
    if (this.closedFired) return;
    this.inbox.push(item);
    this.schedule();
  }

  private schedule(): void {
    if (this.draining || !this.events || this.inbox.length === 0) return;
    this.draining = true;
    queueMicrotask(() => this.deliverOne());
  }

  private deliverOne(): void {
    // (scheduled with an item queued once started; nothing is queued once the close was delivered)
    const item = this.inbox.shift()!;
    const events = this.events!;
    try {
      if ('close' in item) {
        this.closedFired = true;
        this.inbox.length = 0;
        events.onClose(item.close);
      } else {
        events.onMessage(item.message as JSONRPCMessage, item.info);
      }
    } catch (e) {
      events.onError?.(e instanceof Error ? e : new Error(String(e)));
    }
    this.draining = false;
    this.schedule();
  }
}

/**
 * Two connected transports: what `a` sends, `b` receives, and the reverse. Closing either end
 * closes both.
 */
export function createMemoryPair(options?: MemoryPairOptions): [MemoryTransport, MemoryTransport] {
  const a = new MemoryTransport(options);
  const b = new MemoryTransport(options);
  a.other = b;
  b.other = a;
  return [a, b];
}
