/**
 * The runtime entry for browsers, workers, Bun and Deno (`exports` conditions `browser` /
 * `worker`): the HTTP transports over `fetch` and Web Streams, the endpoints as
 * `(request: Request) => Promise<Response>` (each handler's `.fetch`), and everything that runs
 * on any of them (./portable.ts, the list ./index.ts shares). No `node:` import: stdio, the `node:http` client path, and the deprecated
 * HTTP+SSE transport stay in ./index.ts. Also the subpath `@mcpgen/runtime/web`; `@mcpgen/runtime`
 * itself under the `browser`, `worker`, `workerd` and `deno` conditions.
 *
 * @module
 */

// ---- client transports over fetch ---------------------------------------------------------
export { HttpClientTransport, HttpStatusError, SessionExpiredError } from './transport/http/session/fetch-client.js';
export type {
  HttpClientTransportOptions,
  ReconnectOptions,
  RetryOptions,
} from './transport/http/session/fetch-client.js';
export { StatelessHttpClientTransport } from './transport/http/stateless/fetch-client.js';
export type { StatelessClientIo, StatelessHttpClientOptions } from './transport/http/stateless/fetch-client.js';
export type { Cancel, HttpReply, HttpRequestInit, Requester } from './transport/http/io/request.js';

export type { StreamableHttpHandler, StreamableHttpOptions } from './transport/http/session/server.js';

// ---- servers as fetch handlers, and everything else that runs anywhere ----------------------
export * from './portable.js';
