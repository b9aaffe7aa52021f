// The draft server of docs/guide/stdio.md: the same tool, over stdio, stateless.
import { Server, table, type Protocol } from '../../generated/draft/index.js';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { StdioServerTransport } from '@mcpgen/runtime/stdio';

const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'add',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  handler: ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
});
// a stateless revision needs its table: results then carry `resultType`
const server = new Server({
  serverInfo: { name: 'adder', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers({ table }),
});
await server.connect(new StdioServerTransport());
