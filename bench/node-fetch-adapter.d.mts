import type { IncomingMessage, ServerResponse } from 'node:http';

/** node:http → WHATWG fetch: `fetchHandler` as a node:http listener, the response body streamed (see node-fetch-adapter.mjs). */
export function nodeListener(
  fetchHandler: (request: Request) => Response | Promise<Response>,
): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
