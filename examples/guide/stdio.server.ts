// The server of docs/guide/stdio.md: one tool over stdio, for the revision named by argv[2].
import * as v2025 from '../../generated/2025-11-25/index.js';
import * as draft from '../../generated/draft/index.js';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { StdioServerTransport } from '@mcpgen/runtime/stdio';

const rev = process.argv[2];
if (rev === '2025-11-25') {
  const features = new ServerFeatures<v2025.Protocol>();
  features.tool({
    name: 'add',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    handler: ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  });
  const server = new v2025.Server({ serverInfo: { name: 'adder', version: '1.0.0' }, capabilities: features.capabilities(), handlers: features.handlers() });
  await server.connect(new StdioServerTransport());
} else if (rev === 'draft') {
  const features = new ServerFeatures<draft.Protocol>();
  features.tool({
    name: 'add',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    handler: ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  });
  // a stateless revision needs its table: results then carry `resultType`
  const server = new draft.Server({ serverInfo: { name: 'adder', version: '1.0.0' }, capabilities: features.capabilities(), handlers: features.handlers({ table: draft.table }) });
  await server.connect(new StdioServerTransport());
} else {
  console.error(`usage: stdio.server.ts 2025-11-25|draft (got ${String(rev)})`);
  process.exit(2);
}
