// The 2025-11-25 server of docs/guide/stdio.md: one tool, over stdio.
import { Server, type Protocol } from '../../generated/2025-11-25/index.js';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { StdioServerTransport } from '@mcpgen/runtime/stdio';

const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'add',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  handler: ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
});
const server = new Server({
  serverInfo: { name: 'adder', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers(),
});
await server.connect(new StdioServerTransport()); // serves until stdin ends
