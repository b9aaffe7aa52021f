/**
 * Streamable HTTP, client side (2025-11-25 basic/transports, "Streamable HTTP"), on Node: the
 * transport of ./fetch-client.ts over `node:http` / `node:https` with a keep-alive agent
 * (../io/node-request.ts), unless a `fetch` is given in the options.
 */
import type { Agent } from 'node:http';
import { nodeRequester } from '../io/node-request.js';
import {
  HttpClientTransport as FetchHttpClientTransport,
  type HttpClientTransportOptions as FetchOptions,
} from './fetch-client.js';

export { HttpStatusError, SessionExpiredError } from './fetch-client.js';
export type { ReconnectOptions, RetryOptions } from './fetch-client.js';

/** Options of {@link HttpClientTransport}: those of the fetch form, and the Agent. */
export interface HttpClientTransportOptions extends FetchOptions {
  /**
   * The `node:http` (or `node:https`) Agent when no `fetch` is given, for every request
   * (the standalone GET stream holds one of its sockets). Default: a process-wide keep-alive
   * agent, 256 sockets per origin, whose pool the GET stream stays out of (a connection of its
   * own).
   */
  agent?: Agent;
}

/** The client transport for Streamable HTTP on Node (see ./fetch-client.ts for its behaviour). */
export class HttpClientTransport extends FetchHttpClientTransport {
  /**
   * @throws TypeError for a URL that does not parse or a scheme other than http: or https:.
   */
  constructor(options: HttpClientTransportOptions) {
    super(options, options.fetch ? undefined : nodeRequester(new URL(options.url), options.agent));
  }
}
