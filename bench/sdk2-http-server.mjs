// The session era (2025-11-25) on @modelcontextprotocol/server 2.4.0, for bench/http.ts: an
// McpServer per session on WebStandardStreamableHTTPServerTransport (JSON replies unless --sse)
// behind the node:http → fetch adapter (./node-fetch-adapter.mjs), with an `echo` tool. Prints its URL on stdout once
// listening; SIGTERM/SIGINT exit.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { nodeListener } from './node-fetch-adapter.mjs';

const enableJsonResponse = !process.argv.includes('--sse');
const transports = new Map();

async function transportFor(sid) {
  if (sid) return transports.get(sid);
  const t = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse,
    onsessioninitialized: (id) => void transports.set(id, t),
  });
  t.onclose = () => t.sessionId && transports.delete(t.sessionId);
  const server = new McpServer({ name: 'bench-sdk2-http', version: '2.4.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  await server.connect(t);
  return t;
}

const http = createServer(async (req, res) => {
  const t = await transportFor(req.headers['mcp-session-id']);
  if (!t) return void res.writeHead(404).end();
  await nodeListener((request) => t.handleRequest(request))(req, res);
});
http.keepAliveTimeout = 60_000;
http.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${http.address().port}/mcp`));
process.once('SIGTERM', () => process.exit(0));
process.once('SIGINT', () => process.exit(0));
