/**
 * The servers of bench/stateless.ts, one per process, each with an `echo` tool, on 127.0.0.1
 * (printed on stdout as `port: N http://127.0.0.1:N/mcp`):
 * - `ours`: the generated draft Server on createStatelessHttpHandler (node:http listener);
 * - `ours-fetch`: the same through its WHATWG `fetch` form behind the node:http → fetch adapter
 *   (bench/node-fetch-adapter.mjs);
 * - `ours-sse`: `ours` answering every request with an SSE stream (replyMode `sse`; bench/http.ts);
 * - `sdk`: an @modelcontextprotocol/server@2.4.0 McpServer from createMcpHandler behind the
 *   same adapter (a fresh instance per request, as that entry does);
 * - `bare`: a node:http JSON echo of `params.arguments.text` (no MCP, no checks), the floor of
 *   node + loopback HTTP, as bench/bare-http-echo.mjs is for bench:http.
 * With an IPC channel (as bench/stateless.ts spawns it), any message is answered with the
 * process's `process.cpuUsage()` (user and system µs since start). SIGINT exits (so that
 * `--cpu-prof` writes its profile).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { Server, table } from '../generated/draft/index.js';
import { ServerFeatures } from '../runtime/features/server-features.js';
import { createStatelessHttpHandler } from '../runtime/transport/http/stateless/server.js';
import { nodeListener } from './node-fetch-adapter.mjs';

const kind = process.argv[2] ?? 'ours';
let listener: (req: IncomingMessage, res: ServerResponse) => unknown;
if (kind === 'bare') {
  listener = (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      const m = JSON.parse(body);
      const out = JSON.stringify({
        jsonrpc: '2.0',
        id: m.id,
        result: { content: [{ type: 'text', text: m.params?.arguments?.text }] },
      });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(out) }).end(out);
    });
  };
} else if (kind === 'sdk') {
  const handler = createMcpHandler(() => {
    const s = new McpServer({ name: 'bench-sdk2', version: '2.4.0' }, { capabilities: { tools: {} } });
    s.registerTool(
      'echo',
      { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) },
      async ({ text }) => ({ content: [{ type: 'text', text }] }),
    );
    return s;
  });
  listener = nodeListener(handler.fetch);
} else {
  const f = new ServerFeatures();
  f.tool({
    name: 'echo',
    description: 'Echoes text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: (a: { text: string }) => a.text,
  });
  const handler = createStatelessHttpHandler({
    tables: [table],
    toolSchema: (n) => f.inputSchema(n),
    ...(kind === 'ours-sse' ? { replyMode: 'sse' as const } : {}),
  });
  await new Server({
    serverInfo: { name: 'bench-ours', version: '0' },
    capabilities: f.capabilities(),
    handlers: f.handlers({ table }) as never,
  }).connect(handler.transport);
  listener = kind === 'ours-fetch' ? nodeListener(handler.fetch) : handler;
}
const server = createServer((req, res) => void listener(req, res));
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`port: ${port} http://127.0.0.1:${port}/mcp`);
});
process.on('SIGINT', () => process.exit(0));
// the bench that started this server is gone (also when it crashed): so is the server
process.on('disconnect', () => process.exit(0));
process.on('message', () => process.send?.(process.cpuUsage()));
