// The floor of the HTTP benchmark: a node:http server that parses each POSTed JSON-RPC request
// and answers with a JSON echo of its arguments (no MCP, no sessions, no validation). Prints its
// URL on stdout once listening.
import { createServer } from 'node:http';

const http = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const m = JSON.parse(body);
    const out = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: m.params?.arguments?.text }] } });
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(out) }).end(out);
  });
});
http.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${http.address().port}/mcp`));
