/**
 * Cursor iteration over a paginated list method (2025-11-25 server/utilities/pagination): sends
 * the request, yields each page's result, and follows `nextCursor` until a page has none. The
 * cursor is opaque: it is passed back exactly as received. A server that answers an invalid
 * cursor with -32602 makes the iteration reject with that RpcError.
 */
import type { ClientParams, ClientSession } from '../session/client.js';
import type { RequestOptions } from '../engine/peer.js';
import type { ProtocolMaps } from '../protocol/table.js';

/**
 * Yields every page of `method` (e.g. `tools/list`) of a connected client, starting from
 * `params.cursor` if given. Stops after `maxPages` pages (default 10,000) to bound a server
 * that never ends its list.
 * @throws TypeError (on the first page) for a `maxPages` that is not an integer of at least 1.
 * @throws Error at a `nextCursor` seen before in this iteration (a server repeating one would loop to `maxPages`).
 */
export async function* paginate<P extends ProtocolMaps, M extends keyof P['clientRequests'] & string>(
  client: ClientSession<P>,
  method: M,
  params?: ClientParams<P['clientRequests'][M]['params']>,
  options: RequestOptions & { maxPages?: number } = {},
): AsyncGenerator<P['clientRequests'][M]['result'], void, undefined> {
  const { maxPages = 10_000, ...requestOptions } = options;
  if (!Number.isInteger(maxPages) || maxPages < 1)
    throw new TypeError(`paginate: maxPages must be a positive integer, got ${maxPages}`);
  let cursor = (params as { cursor?: unknown } | undefined)?.cursor;
  const seen = new Set<string>();
  for (let page = 0; page < maxPages; page++) {
    const next = { ...(params ?? {}), ...(cursor === undefined ? {} : { cursor }) } as ClientParams<
      P['clientRequests'][M]['params']
    >;
    const result = await client.request(method, next, requestOptions);
    yield result;
    const nextCursor = (result as { nextCursor?: unknown }).nextCursor;
    if (typeof nextCursor !== 'string') return;
    if (seen.has(nextCursor))
      throw new Error(
        `paginate ${method}: stopped at nextCursor ${JSON.stringify(nextCursor)}, repeated (seen before)`,
      );
    seen.add(nextCursor);
    cursor = nextCursor;
  }
}
