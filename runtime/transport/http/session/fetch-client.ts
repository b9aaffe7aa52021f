/**
 * Streamable HTTP, client side (2025-11-25 basic/transports, "Streamable HTTP"), over `fetch`
 * and Web Streams (../io/request.ts): the form for browsers, workers, Bun and Deno, with no
 * `node:` import. On Node, ./node-client.ts is the same transport over `node:http` by default.
 *
 * Every message is one POST with `Accept: application/json, text/event-stream` and
 * `Content-Type: application/json`; `Mcp-Session-Id` once the server assigned one and
 * `MCP-Protocol-Version` once {@link HttpClientTransport.setProtocolVersion} was called go on
 * every request (POST, GET, DELETE). Replies: 202 (nothing), one JSON body, or an SSE stream
 * read in the background. After `notifications/initialized` is accepted the standalone GET
 * stream opens (405: the server offers none) and is reopened whenever it ends. SSE streams
 * that end or break before their responses arrived are resumed with GET and `Last-Event-ID`,
 * waiting the server's `retry` (else a capped exponential backoff) between attempts; a reply
 * stream lost before it delivered any event ID cannot be resumed, and its request fails —
 * unless the server advertised request replay: then the request is POSTed again, identical
 * (./client-post.ts, ./session-replay.ts).
 *
 * Session expiry (case 006; 2025-11-25 basic/transports, "Session Management": a 404 means the
 * session is gone for new requests): a 404 to a request that carried the session id drops the
 * session (id and protocol version), fails that send with {@link SessionExpiredError} (the
 * request was not processed; it is not resent, a tool call may not be idempotent), and calls
 * `onSessionExpired`, where the lifecycle layer starts a new session (a fresh `initialize`, sent
 * without a session id). Requests the server already took go on: a reply stream being read is
 * read to its responses; one that ends without them, or was waiting to be resumed, fails with
 * ConnectionClosedError (the request may have run; `cause`: the SessionExpiredError). A 400
 * never does this.
 */
import { fetchRequester, type Requester } from '../io/request.js';
import type { JSONRPCMessage, SendOptions, Transport, TransportEvents } from '../../../jsonrpc/transport.js';
import { ClientCore } from './client-close.js';
import type { HttpClientTransportOptions } from './client-state.js';

export { HttpStatusError } from '../io/request.js';
export type { RetryOptions } from '../io/delivery.js';
export {
  SessionExpiredError,
  type HttpClientTransportOptions,
  type ReconnectOptions,
} from './client-state.js';

/**
 * The client {@link Transport} for Streamable HTTP.
 *
 * Its parts: the state it holds (./client-state.ts), SSE streams, the standalone GET stream and
 * resumption (./client-streams.ts), the POST of a message and its answer (./client-post.ts),
 * ending the session and close (./client-close.ts).
 */
export class HttpClientTransport implements Transport {
  /** Set by the lifecycle layer to re-initialize after a session expired (see module docs). */
  onSessionExpired: ((info: { sessionId: string }) => void | Promise<void>) | undefined;
  private readonly core: ClientCore;

  /**
   * @param requester how requests go out (library authors: another I/O layer). Default: over
   * `options.fetch`, else the global `fetch`.
   * @throws TypeError for a URL that does not parse.
   */
  constructor(options: HttpClientTransportOptions, requester?: Requester) {
    const url = new URL(options.url);
    this.core = new ClientCore(
      requester ?? fetchRequester(url, options.fetch ?? ((input, init) => globalThis.fetch(input, init))),
      options,
      this,
    );
    this.onSessionExpired = options.onSessionExpired;
  }

  /** The session id the server assigned, while the session lives. */
  get sessionId(): string | undefined {
    return this.core.session;
  }

  /** The `MCP-Protocol-Version` sent on requests; undefined before negotiation. */
  get protocolVersion(): string | undefined {
    return this.core.version;
  }

  /** Sets the negotiated version; sent as `MCP-Protocol-Version` from the next request on. */
  setProtocolVersion(version: string | undefined): void {
    this.core.version = version;
  }

  async start(events: TransportEvents): Promise<void> {
    if (this.core.events) throw new Error('HttpClientTransport already started');
    this.core.events = events;
  }

  /**
   * POSTs one message. Resolves once the server accepted it (202, a JSON reply delivered, or
   * an SSE reply stream opened — its events arrive later through `onMessage`).
   * @throws SessionExpiredError on 404 to a request that carried the session id (the request
   * was not processed).
   * @throws HttpStatusError on other HTTP errors, unless the body is a JSON-RPC error for this
   * request's id (then that error is delivered as the response), and on a reply to a request
   * that is not JSON-RPC: a Content-Type other than JSON or SSE, or JSON that does not parse
   * (`body`: the first 1 KiB of its text, `contentType`: the header).
   * @throws RpcError -32000 "connection closed before the response" when a 2xx reply to a
   * request has an empty body (the server closed it while shutting down).
   * @throws ConnectionClosedError, in place of any of the above, for a request sent again by
   * request replay (see ./client-post.ts): an earlier POST of it may have run it, so a re-send's
   * 404 (the session is still dropped), 400 (the server no longer keeps its stream), 409/410 or a
   * JSON-RPC error for its id on a non-2xx answer all mean "may have run"; `cause` is that error.
   * A request whose reply stream gave an event ID and whose resumption is refused (400, 404, 405,
   * 409, or its session dropped meanwhile) fails with ConnectionClosedError too (through
   * `onRequestError`).
   */
  send(message: JSONRPCMessage, options?: SendOptions): Promise<void> {
    return this.core.send(message, options);
  }

  /**
   * Ends the session on the server (DELETE; 405 and 404 are fine) and forgets it; requests
   * still waiting on its streams fail with {@link SessionExpiredError}. Gives up after 5 s.
   * @throws HttpStatusError for another error status; ConnectionClosedError (-32000, the
   * network error as `cause`) when the connection is lost before the reply (the DELETE may have
   * run); RequestNotProcessedError when it could not be sent (no connection).
   */
  terminateSession(): Promise<void> {
    return this.core.terminateSession();
  }

  /**
   * Ends a live session (DELETE; errors ignored), stops all streams, fires `onClose`. While the
   * standalone GET stream is open, the session is ended first and that stream read to its end
   * (the server ends it as the session ends, after what it sent there), waiting
   * 2000 ms (`CLOSE_READ_MS`) at most: messages sent outside any request before a response (log
   * messages of a tool) are delivered though they travel on another connection than it.
   */
  close(): Promise<void> {
    return this.core.close();
  }

  /**
   * Whether the standalone GET stream (basic/transports "Listening for Messages from the
   * Server") is open: resolves true once the server answered the GET with an event stream,
   * false when it has none (405), the stream was given up, the option `standaloneStream` is
   * false or the session is not initialized yet (no stream was started). Messages the server
   * sends outside any request (log messages, list_changed) arrive on that stream. On Node the
   * stream keeps no process alive (node:http form); this wait does, until it settles.
   */
  standaloneOpened(): Promise<boolean> {
    const outcome = this.core.standaloneOutcome;
    if (!outcome) return Promise.resolve(false);
    const alive = setInterval(() => undefined, 1 << 30);
    return outcome.finally(() => clearInterval(alive));
  }
}
