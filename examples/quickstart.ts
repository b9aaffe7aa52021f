// The first example of docs/generated-code.md, compiled by `npm test` and run by test/docs/manual-examples.test.ts.
import { Client, Server } from '../generated/2025-11-25/index.js';
import { createMemoryPair } from '@mcpgen/runtime';

const server = new Server({
  serverInfo: { name: 'demo', version: '1.0.0' },
  capabilities: { tools: {} },
  handlers: {
    'tools/list': () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }),
    'tools/call': (params) => ({ content: [{ type: 'text', text: JSON.stringify(params.arguments) }] }),
  },
});
const client = new Client({ clientInfo: { name: 'demo-client', version: '1.0.0' } });
const [a, b] = createMemoryPair(); // or StdioClientTransport / HttpClientTransport
await server.connect(b);
await client.connect(a); // initialize handshake and version negotiation
const result = await client.callTool({ name: 'echo', arguments: { x: 1 } }, { timeout: 5_000 });
console.log(JSON.stringify(result));
await client.close();
