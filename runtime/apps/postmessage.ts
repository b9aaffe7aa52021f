/**
 * The postMessage transport of MCP Apps (SEP-1865 "Transport Layer": JSON-RPC 2.0 over
 * `window.postMessage` between a host page and the iframe of a view). Web-standard only.
 *
 * What is read, and what is refused before any handler sees it:
 * - only `message` events whose `source` is the peer window (`source`, default `target`): an
 *   event from any other window or worker is refused;
 * - only events whose `origin` is `origin` (an exact origin such as `https://host.example`, or
 *   `null` for a sandboxed frame without `allow-same-origin`, whose origin is opaque); `*`
 *   accepts any origin from that source (a view that does not know its host's origin: the source
 *   check still holds);
 * - only JSON-RPC 2.0 messages (a request, notification, result or error response, as
 *   ../jsonrpc/message.ts `kindOf` reads them): anything else from the peer (a string, an array,
 *   a `jsonrpc: "1.0"` object, a response with both `result` and `error`) is refused.
 * Each refusal calls `onRefused(reason, event)` and the engine's `onError`, rate-limited by the
 * engine; the message reaches no handler. Messages are sent with `target.postMessage(message,
 * origin)` (`*` for a `null` origin, the only way to address an opaque origin: the target is then
 * the frame's window itself).
 */
import { kindOf } from '../jsonrpc/message.js';
import type { JSONRPCMessage, Transport, TransportEvents } from '../jsonrpc/transport.js';

/** A window (or anything with the same `postMessage`) messages are sent to. */
export interface MessageTarget {
  postMessage(message: unknown, targetOrigin: string): void;
}

/** What a message event carries that the transport reads. */
export interface MessageEventLike {
  readonly data: unknown;
  readonly origin: string;
  readonly source: unknown;
}

/** A listener target of `message` events (a window). */
export interface MessageSource {
  addEventListener(type: 'message', listener: (e: MessageEventLike) => void): void;
  removeEventListener(type: 'message', listener: (e: MessageEventLike) => void): void;
}

/** Options of {@link PostMessageTransport}. */
export interface PostMessageTransportOptions {
  /** The peer window messages are sent to: `window.parent` in a view, the iframe's `contentWindow` in a host. */
  target: MessageTarget;
  /**
   * The peer's origin: messages are sent to it and accepted from it only. `null` for a frame
   * with an opaque origin (sandboxed without `allow-same-origin`); `*` to accept any origin from
   * `source` (and send to any).
   */
  origin: string;
  /** The window whose `message` events are read (default `globalThis`). */
  listenOn?: MessageSource;
  /** The window messages must come from (default `target`). */
  source?: unknown;
  /** Told of each refused event (a foreign window or origin, a message that is not JSON-RPC 2.0). */
  onRefused?: (reason: string, event: MessageEventLike) => void;
}

/** See the module comment. */
export class PostMessageTransport implements Transport {
  readonly #target: MessageTarget;
  readonly #origin: string;
  readonly #listenOn: MessageSource;
  readonly #source: unknown;
  readonly #onRefused: PostMessageTransportOptions['onRefused'];
  #events: TransportEvents | undefined;
  #closed = false;
  /** The `message` listener: a message from the target window, of the origin and JSON-RPC, is received; another refused. */
  readonly #listener = (e: MessageEventLike): void => {
    if (this.#closed || !this.#events) return;
    if (e.source !== this.#source) return this.#refuse('the message comes from another window', e);
    if (this.#origin !== '*' && e.origin !== this.#origin)
      return this.#refuse(`the message comes from origin ${e.origin}, not ${this.#origin}`, e);
    if (kindOf(e.data) === null) return this.#refuse('not a JSON-RPC 2.0 message', e);
    this.#events.onMessage(e.data as JSONRPCMessage);
  };

  constructor(options: PostMessageTransportOptions) {
    this.#target = options.target;
    this.#origin = options.origin;
    this.#listenOn = options.listenOn ?? (globalThis as unknown as MessageSource);
    this.#source = options.source ?? options.target;
    this.#onRefused = options.onRefused;
  }

  async start(events: TransportEvents): Promise<void> {
    if (this.#events) throw new Error('PostMessageTransport already started');
    this.#events = events;
    this.#listenOn.addEventListener('message', this.#listener);
  }

  #refuse(reason: string, e: MessageEventLike): void {
    this.#onRefused?.(reason, e);
    this.#events?.onError?.(new Error(`postMessage refused: ${reason}`));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error('PostMessageTransport is closed');
    this.#target.postMessage(message, this.#origin === 'null' ? '*' : this.#origin);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listenOn.removeEventListener('message', this.#listener);
    this.#events?.onClose();
  }
}
