// The floor of the HTTP benchmark: a node:http server that parses each POSTed JSON-RPC request
// and answers with an echo of its arguments (no MCP beyond the handshake, no sessions, no
// validation): one JSON body, or with `--sse` one SSE event (`data: <json>`, no id, no priming)
// on a `text/event-stream` response. `initialize` gets a minimal InitializeResult, the stateless
// era's `server/discover` (2026-07-28) a minimal DiscoverResult, and
// notifications 202, so that MCP clients can talk to it; GET (no standalone stream) and DELETE
// 405. Prints its URL on stdout once listening.
import { createServer } from 'node:http';

const sse = process.argv.includes('--sse');
const http = createServer((req, res) => {
  if (req.method !== 'POST') return res.writeHead(405, { Allow: 'POST' }).end();
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const m = JSON.parse(body);
    if (m.id === undefined) return res.writeHead(202).end();
    const result =
      m.method === 'initialize'
        ? {
            protocolVersion: m.params.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: 'bare', version: '0' },
          }
        : m.method === 'server/discover'
          ? {
              resultType: 'complete',
              supportedVersions: ['2026-07-28'],
              capabilities: { tools: {} },
              cacheScope: 'public',
              ttlMs: 0,
            }
          : { content: [{ type: 'text', text: m.params?.arguments?.text }] };
    const out = JSON.stringify({ jsonrpc: '2.0', id: m.id, result });
    if (sse)
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' }).end(`data: ${out}\n\n`);
    else res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(out) }).end(out);
  });
});
http.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${http.address().port}/mcp`));
