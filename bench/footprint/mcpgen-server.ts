// A minimal stdio server with one tool whose arguments are checked against its inputSchema.
// The three import specifiers are the only lines to change for a build from the installed
// packages (the generated revision in the user's tree, the runtime by its package name).
import { Server, serverTable } from '../../generated/2025-11-25/index.js';
import { ServerFeatures } from '../../runtime/features/server-features.js';
import { StdioServerTransport } from '../../runtime/transport/stdio.js';

const features = new ServerFeatures();
features.tool<{ a: number; b: number }>({
  name: 'add',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  handler: ({ a, b }) => String(a + b),
});
const server = new Server({ serverInfo: { name: 'footprint', version: '0.0.0' }, capabilities: features.capabilities(), handlers: features.handlers({ table: serverTable }) as never });
await server.connect(new StdioServerTransport());
