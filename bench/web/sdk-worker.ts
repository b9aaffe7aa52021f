// Bundle-size probe: a worker serving one tool with the official SDK v2 (createMcpHandler).
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

const handler = createMcpHandler(() => {
  const s = new McpServer({ name: 'worker', version: '1' }, { capabilities: { tools: {} } });
  s.registerTool(
    'add',
    { description: 'a + b', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  return s;
});
export default { fetch: (request: Request) => handler.fetch(request) };
