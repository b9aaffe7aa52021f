// node:http → WHATWG fetch: serves a `fetch`-style handler (Request → Response) as a node:http
// listener, streaming the response body as it comes. Shared by the bench servers that put a
// fetch handler behind node:http (bench/stateless-server.ts, bench/sdk2-http-server.mjs);
// plain JavaScript so that servers run with plain node can import it. Types:
// node-fetch-adapter.d.mts.

/**
 * @param {(request: Request) => Response | Promise<Response>} fetchHandler
 * @returns {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>}
 */
export function nodeListener(fetchHandler) {
  return async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const response = await fetchHandler(
      new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    if (!response.body) return void res.end();
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
    res.end();
  };
}
