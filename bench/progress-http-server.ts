/**
 * The server of bench/http.ts's progress rows: generated 2025-11-25 Servers (one per session) on
 * createStreamableHttpHandler with SSE replies, on an ephemeral 127.0.0.1 port (URL on stdout),
 * with two tools: `echo` (`text` back) and `progress` (10 `notifications/progress`, 1..10 of 10,
 * on the call's own stream, then `done`; nothing between them but the writes). SIGTERM/SIGINT
 * close the sessions and exit.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, table } from '../generated/2025-11-25/index.js';
import { ServerFeatures } from '../runtime/features/server-features.js';
import { createStreamableHttpHandler } from '../runtime/transport/http/session/server.js';

/** Progress notifications per `progress` call. */
export const EVENTS = 10;

const f = new ServerFeatures();
f.tool({
  name: 'echo',
  description: 'Echoes text',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  handler: (a: { text: string }) => a.text,
});
f.tool({
  name: 'progress',
  description: `Reports progress 1..${EVENTS} of ${EVENTS}, then returns`,
  handler: async (_a, ctx) => {
    for (let i = 1; i <= EVENTS; i++) await ctx.sendProgress(i, EVENTS);
    return 'done';
  },
});
const handler = createStreamableHttpHandler({
  tables: [table],
  replyMode: 'sse',
  onSession: async (transport) => {
    await new Server({
      serverInfo: { name: 'bench-progress', version: '0' },
      capabilities: f.capabilities(),
      handlers: f.handlers({ table }) as never,
    }).connect(transport);
  },
});
const http = createServer((req, res) => void handler(req, res));
http.keepAliveTimeout = 60_000;
http.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`));
const stop = (): void => void handler.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
