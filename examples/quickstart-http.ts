// The Streamable HTTP server of docs/quick-start.md (`src/server.ts` there), compiled by `npm test`
// and run by test/docs/manual-examples.test.ts, which calls it with `mcpgen call --url` as the page does.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, table, type Protocol } from '../generated/2025-11-25/index.js';
import { createStreamableHttpHandler } from '@mcpgen/runtime/http';
import { ServerFeatures } from '@mcpgen/runtime/features';

const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'greet',
  inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
  handler: ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }),
});
// each `initialize` opens a session, served by a Server of its own
const http = createServer(
  createStreamableHttpHandler({
    tables: [table],
    onSession: (transport) =>
      new Server({
        serverInfo: { name: 'greeter', version: '1.0.0' },
        capabilities: features.capabilities(),
        handlers: features.handlers({ table }),
      }).connect(transport),
  }),
);
// a port in use is one line and exit 3, not an unhandled 'error' event's stack
http.on('error', (e) => {
  console.error(`greeter: cannot listen on port ${process.env.PORT ?? 3000}: ${e.message} (set PORT to a free port)`);
  process.exit(3);
});
http.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () =>
  console.log(`listening on http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`),
);
