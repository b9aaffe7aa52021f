// docs/guide/tools.md: tools with typed arguments and structured output, and their errors.
import assert from 'node:assert/strict';
import { Client, Server, type Protocol } from '../../generated/2025-11-25/index.js';
import { RpcError } from '@mcpgen/runtime';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { createMemoryPair } from '@mcpgen/runtime/memory';

const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'divide',
  title: 'Divide two numbers',
  description: 'a / b, and the remainder when both are integers',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  },
  outputSchema: {
    type: 'object',
    properties: { quotient: { type: 'number' }, remainder: { type: 'number' } },
    required: ['quotient'],
  } as const,
  // args: { a: number; b: number }, inferred from inputSchema
  handler: ({ a, b }) => {
    if (b === 0) return { content: [{ type: 'text', text: 'cannot divide by zero' }], isError: true };
    const quotient = a / b;
    return {
      content: [{ type: 'text', text: String(quotient) }],
      structuredContent: Number.isInteger(a) && Number.isInteger(b) ? { quotient, remainder: a % b } : { quotient },
    };
  },
});

const server = new Server({
  serverInfo: { name: 'calc', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers(),
});
let toolsChanged!: () => void;
const listChanged = new Promise<void>((resolve) => (toolsChanged = resolve));
const client = new Client({
  clientInfo: { name: 'app', version: '1.0.0' },
  notificationHandlers: { 'notifications/tools/list_changed': () => toolsChanged() },
});
const [clientSide, serverSide] = createMemoryPair();
await server.connect(serverSide);
await client.connect(clientSide);

const { tools } = await client.listTools({});
console.log(tools.map((t) => t.name)); // [ 'divide' ]
const result = await client.callTool({ name: 'divide', arguments: { a: 7, b: 2 } });
console.log(result.structuredContent); // { quotient: 3.5, remainder: 1 }

assert.deepEqual(
  tools.map((t) => [t.name, t.title, t.inputSchema.required]),
  [['divide', 'Divide two numbers', ['a', 'b']]],
);
assert.deepEqual(result.structuredContent, { quotient: 3.5, remainder: 1 });
assert.deepEqual(result.content, [{ type: 'text', text: '3.5' }]);

// a tool error is a result the model can read: isError, not a JSON-RPC error
const byZero = await client.callTool({ name: 'divide', arguments: { a: 1, b: 0 } });
assert.equal(byZero.isError, true);
assert.deepEqual(byZero.content, [{ type: 'text', text: 'cannot divide by zero' }]);

// arguments that fail inputSchema: also an isError result, naming the path; the handler is not called
const invalid = await client.callTool({ name: 'divide', arguments: { a: 'seven', b: 2 } });
const text = invalid.content[0]?.type === 'text' ? invalid.content[0].text : '';
console.log(text); // Invalid arguments for tool divide: a: must be number
assert.equal(invalid.isError, true);
assert.equal(text, 'Invalid arguments for tool divide: a: must be number');

// an unknown tool is a protocol error: -32602
await assert.rejects(
  client.callTool({ name: 'multiply', arguments: {} }),
  (e: unknown) => e instanceof RpcError && e.code === -32602 && /Unknown tool/.test(e.message),
);

// registering, replacing or removing a tool sends notifications/tools/list_changed
features.attach(server);
features.tool({
  name: 'negate',
  inputSchema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
  handler: ({ x }) => String(-x),
});
await listChanged; // the client was told; a new tools/list shows the new tool
assert.deepEqual((await client.callTool({ name: 'negate', arguments: { x: 5 } })).content, [
  { type: 'text', text: '-5' },
]);
assert.deepEqual(
  (await client.listTools({})).tools.map((t) => t.name),
  ['divide', 'negate'],
);

await client.close();
console.log('ok tools');
