// The "Typed tools" examples of docs/generated-code.md, compiled by `npm test` and run by test/docs/manual-examples.test.ts.
import * as z from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client, Server, type Protocol } from '../generated/2025-11-25/index.js';
import { ServerFeatures } from '../runtime/features/server-features.js';
import { createMemoryPair } from '../runtime/index.js';

// --- mcpgen ---
const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'forecast',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
    required: ['city'],
  },
  outputSchema: z.object({ city: z.string(), celsius: z.array(z.number()) }),
  // args: { city: string; days?: number; [k: string]: unknown }, from the JSON Schema literal
  handler: ({ city, days = 1 }) => ({
    content: [{ type: 'text', text: `${city}: ${days} day(s)` }], // a ContentBlock of 2025-11-25
    structuredContent: { city, celsius: Array.from({ length: days }, () => 21) }, // checked against the zod schema's type
  }),
});
features.resourceTemplate({
  name: 'notes',
  uriTemplate: 'notes://{user}/{id}{?rev}',
  read: (uri, { user, id, rev }) => [{ uri, text: `${user}/${id}@${rev ?? 'latest'}` }], // rev?: string
});

// --- the official SDK, for comparison ---
const sdk = new McpServer({ name: 'demo', version: '1.0.0' });
sdk.registerTool(
  'forecast',
  {
    inputSchema: { city: z.string(), days: z.number().int().min(1).optional() },
    outputSchema: { city: z.string(), celsius: z.array(z.number()) },
  },
  ({ city, days = 1 }) => ({
    content: [{ type: 'text', text: `${city}: ${days} day(s)` }],
    structuredContent: { city, celsius: Array.from({ length: days }, () => 21) },
  }),
);
// --- end ---

const server = new Server({
  serverInfo: { name: 'demo', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers(),
});
const client = new Client({ clientInfo: { name: 'demo-client', version: '1.0.0' } });
const [a, b] = createMemoryPair();
await server.connect(b);
await client.connect(a);
const called = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo', days: 2 } });
const read = await client.readResource({ uri: 'notes://ann/7?rev=3' });
console.log(JSON.stringify({ structured: called.structuredContent, text: read.contents[0] }));
await client.close();
void sdk;
