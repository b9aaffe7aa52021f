// The session era (2025-11-25) on @modelcontextprotocol/server 2.4.0, for bench/http.ts: an
// McpServer per session on WebStandardStreamableHTTPServerTransport (JSON replies unless --sse)
// behind a node:http → fetch adapter, with an `echo` tool. Prints its URL on stdout once
// listening; SIGTERM/SIGINT exit.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import * as z from 'zod';

const enableJsonResponse = !process.argv.includes('--sse');
const transports = new Map();

async function transportFor(sid) {
  if (sid) return transports.get(sid);
  const t = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse, onsessioninitialized: (id) => void transports.set(id, t) });
  t.onclose = () => t.sessionId && transports.delete(t.sessionId);
  const server = new McpServer({ name: 'bench-sdk2-http', version: '2.4.0' });
  server.registerTool('echo', { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  await server.connect(t);
  return t;
}

const http = createServer(async (req, res) => {
  const t = await transportFor(req.headers['mcp-session-id']);
  if (!t) return void res.writeHead(404).end();
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const response = await t.handleRequest(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined }));
  res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
});
http.keepAliveTimeout = 60_000;
http.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${http.address().port}/mcp`));
process.once('SIGTERM', () => process.exit(0));
process.once('SIGINT', () => process.exit(0));
