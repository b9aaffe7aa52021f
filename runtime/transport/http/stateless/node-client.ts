/**
 * Streamable HTTP, client side, stateless revisions, on Node: the transport of
 * ./fetch-client.ts over `node:http` / `node:https` (../io/node-request.ts), legacy mode
 * included, unless a `fetch` is given in the options.
 */
import { nodeRequester } from '../io/node-request.js';
import { HttpClientTransport, type HttpClientTransportOptions } from '../session/node-client.js';
import { StatelessHttpClientTransport as FetchStatelessClient } from './fetch-client.js';

/** Options of {@link StatelessHttpClientTransport} (those of the 2025 transport apply in legacy mode). */
export type StatelessHttpClientOptions = HttpClientTransportOptions;

/** The stateless client transport on Node (see ./fetch-client.ts for its behaviour). */
export class StatelessHttpClientTransport extends FetchStatelessClient {
  /** @throws TypeError for a URL that does not parse or a scheme other than http: or https:. */
  constructor(options: StatelessHttpClientOptions) {
    super(options, {
      requester: options.fetch ? undefined : nodeRequester(new URL(options.url), options.agent),
      legacy: (o) => new HttpClientTransport(o),
    });
  }
}
