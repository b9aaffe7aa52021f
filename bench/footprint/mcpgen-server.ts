// A minimal stdio server with one tool whose arguments are checked against its inputSchema.
import { Server, ServerFeatures, StdioServerTransport, table } from './mcpgen.js';

const features = new ServerFeatures();
features.tool<{ a: number; b: number }>({
  name: 'add',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  handler: ({ a, b }) => String(a + b),
});
const server = new Server({ serverInfo: { name: 'footprint', version: '0.0.0' }, capabilities: features.capabilities(), handlers: features.handlers({ table }) as never });
await server.connect(new StdioServerTransport());
