/**
 * A client transport for a URL that may serve either Streamable HTTP or the deprecated
 * HTTP+SSE transport of 2024-11-05 (2025-11-25 basic/transports, "Backwards Compatibility",
 * the client procedure): the first message (`initialize`) is POSTed as Streamable HTTP; when
 * that fails with 400, 404 or 405 the same URL is opened with GET, and when its first SSE event
 * is `endpoint` the old transport carries the first message and everything after it. Otherwise
 * the POST's error stands.
 */
import { HttpClientTransport, HttpStatusError, type HttpClientTransportOptions } from '../session/node-client.js';
import { LegacySseClientTransport } from './legacy-sse.js';
import type { JSONRPCMessage, SendOptions, Transport, TransportEvents } from '../../../jsonrpc/transport.js';

const FALLBACK_STATUSES = new Set([400, 404, 405]);

/** Options: those of {@link HttpClientTransport} (`headers` given as an object reach both). */
export type FallbackHttpClientOptions = HttpClientTransportOptions;

/**
 * A client {@link Transport} that speaks Streamable HTTP, or the deprecated HTTP+SSE transport
 * when the server answers the first POST with 400, 404 or 405 and a GET of the same URL opens
 * an SSE stream whose first event is `endpoint` (2025-11-25 basic/transports, Backwards
 * Compatibility). Errors of `send` are those of the transport in use (`HttpStatusError`, …).
 */
export class FallbackHttpClientTransport implements Transport {
  private readonly modern: HttpClientTransport;
  private legacy: LegacySseClientTransport | undefined;
  private events: TransportEvents | undefined;
  /** Which transport carries the connection: undecided until the first send settled. */
  kind: 'streamable' | 'legacy' | undefined;

  constructor(private readonly opts: FallbackHttpClientOptions) {
    this.modern = new HttpClientTransport(opts);
  }

  get sessionId(): string | undefined {
    return this.legacy ? this.legacy.sessionId : this.modern.sessionId;
  }

  /** Streamable HTTP's session-expiry hook (the old transport has no such signal). */
  get onSessionExpired(): HttpClientTransport['onSessionExpired'] {
    return this.modern.onSessionExpired;
  }
  set onSessionExpired(hook: HttpClientTransport['onSessionExpired']) {
    this.modern.onSessionExpired = hook;
  }

  /** Streamable HTTP: {@link HttpClientTransport.standaloneOpened}; the old transport: false (its one SSE stream carries everything). */
  standaloneOpened(): Promise<boolean> {
    return this.legacy ? Promise.resolve(false) : this.modern.standaloneOpened();
  }

  setProtocolVersion(version: string | undefined): void {
    if (!this.legacy) this.modern.setProtocolVersion(version);
  }

  async start(events: TransportEvents): Promise<void> {
    if (this.events) throw new Error('FallbackHttpClientTransport already started');
    this.events = events;
    // The modern transport's events are muted once the old transport took over.
    await this.modern.start({
      onMessage: (m, info) => !this.legacy && events.onMessage(m, info),
      onClose: (e) => !this.legacy && events.onClose(e),
      onError: (e) => !this.legacy && events.onError?.(e),
      onRequestError: events.onRequestError && ((id, e) => !this.legacy && events.onRequestError!(id, e)),
    });
  }

  async send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    if (this.legacy) return this.legacy.send(message, options);
    if (this.kind) return this.modern.send(message, options);
    try {
      await this.modern.send(message, options);
      this.kind = 'streamable';
    } catch (e) {
      if (!(e instanceof HttpStatusError) || !FALLBACK_STATUSES.has(e.status)) throw e;
      const legacy = new LegacySseClientTransport({
        url: this.opts.url,
        fetch: this.opts.fetch,
        headers: typeof this.opts.headers === 'object' ? this.opts.headers : undefined,
        maxEventSize: this.opts.maxEventSize,
      });
      try {
        await legacy.start(this.events!);
      } catch {
        throw e;
      }
      this.legacy = legacy;
      this.kind = 'legacy';
      await this.modern.close().catch(() => undefined);
      await legacy.send(message, options);
    }
  }

  async close(): Promise<void> {
    if (this.legacy) return this.legacy.close();
    return this.modern.close();
  }
}

/**
 * A transport for `url` that falls back to the old HTTP+SSE transport when the server only
 * speaks that one (see module docs). `transport.kind` tells which one was chosen.
 * @example
 * const client = new Client({ clientInfo });
 * await client.connect(connectHttp('http://localhost:3000/sse'));
 */
export function connectHttp(
  url: string | URL,
  options: Omit<FallbackHttpClientOptions, 'url'> = {},
): FallbackHttpClientTransport {
  return new FallbackHttpClientTransport({ ...options, url });
}
