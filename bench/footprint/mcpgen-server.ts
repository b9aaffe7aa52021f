// A minimal stdio server with one tool whose arguments are checked against its inputSchema.
// Imported as a user's project does: the generated revision from its own tree, the runtime by
// its package name (./bundle.ts resolves that to the built package, or to the workspace sources).
import { Server, serverTable } from '../../generated/2025-11-25/index.js';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { StdioServerTransport } from '@mcpgen/runtime/stdio';

const features = new ServerFeatures();
features.tool<{ a: number; b: number }>({
  name: 'add',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  handler: ({ a, b }) => String(a + b),
});
const server = new Server({
  serverInfo: { name: 'footprint', version: '0.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers({ table: serverTable }) as never,
});
await server.connect(new StdioServerTransport());
