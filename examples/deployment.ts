// The example of docs/deployment.md, compiled by `npm test` (test/docs/manual-examples.test.ts checks the page shows it).
// one of several processes behind a load balancer: each runs this with the same Redis URL
import { createServer } from 'node:http';
import { ServerFeatures } from '@mcpgen/runtime';
import { createStreamableHttpHandler } from '@mcpgen/runtime/http';
// a subpath of its own: only deployments that use Redis load ioredis
import { connectRedisStores } from '@mcpgen/runtime/stores/redis';
import { type Protocol, Server, table } from '../generated/2025-11-25/index.js';

const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'whoami',
  description: 'Says which process answered',
  handler: async () => ({ content: [{ type: 'text', text: `process ${process.pid}` }] }),
});
const stores = await connectRedisStores(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
  sessionIdleMs: 1_800_000,
  maxSessions: 10_000,
});
const handler = createStreamableHttpHandler({
  tables: [table],
  onSession: async (transport, info) => {
    const session = new Server({
      serverInfo: { name: 'app', version: '1.0.0' },
      capabilities: features.capabilities(),
      handlers: features.handlers({ table }),
    });
    await session.connect(transport);
    if (info.restored) session.adoptHandshake(info.restored); // initialized by another process
  },
  shared: { sessions: stores.sessions, bus: stores.bus },
  eventStore: () => stores.events,
});
const http = createServer(handler).listen(Number(process.env.PORT ?? 3001), '127.0.0.1');
// on shutdown: the HTTP server first, then the stores
process.once('SIGTERM', () => http.close(() => void stores.close()));
