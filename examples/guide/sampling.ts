// Guide: sampling (docs/guide/sampling.md). A 2025-11-25 server asks the client's model for a
// completion from inside a tool; one client samples, one refuses, one never declared sampling.
import assert from 'node:assert/strict';
import { CapabilityNotDeclaredError, RpcError, ServerFeatures, createMemoryPair } from '@mcpgen/runtime';
import {
  Client,
  Server,
  table,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type Protocol,
  type SamplingMessage,
} from '../../generated/2025-11-25/index.js';

/** The text of a message's content: one block, or several (2025-11-25 allows an array). */
const textOf = (content: SamplingMessage['content']) =>
  (Array.isArray(content) ? content : [content]).map((block) => (block.type === 'text' ? block.text : '')).join('');

// The server: a tool that asks the client's model to summarize a text.
const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'summarize',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  handler: async ({ text }, ctx) => {
    const request: CreateMessageRequestParams = {
      messages: [{ role: 'user', content: { type: 'text', text: `Summarize in five words: ${text}` } }],
      systemPrompt: 'You are a terse summarizer.',
      modelPreferences: { hints: [{ name: 'claude-3-haiku' }], speedPriority: 0.8 },
      maxTokens: 50,
    };
    try {
      // on behalf of this tools/call: cancelled with it, routed with it over HTTP
      const answer = await ctx.sendRequest<CreateMessageResult>('sampling/createMessage', request);
      return { content: [{ type: 'text', text: `${textOf(answer.content)} [${answer.model}]` }] };
    } catch (e) {
      if (e instanceof CapabilityNotDeclaredError)
        return { content: [{ type: 'text', text: 'this client cannot sample' }], isError: true };
      if (e instanceof RpcError && e.code === -1)
        return { content: [{ type: 'text', text: 'the user declined' }], isError: true };
      throw e;
    }
  },
});
const serverInfo = { name: 'summarizer', version: '1.0.0' };

/** One server per connection, sharing the tool definitions. */
async function connect(client: Client): Promise<Server> {
  const server = new Server({
    serverInfo,
    capabilities: features.capabilities(),
    handlers: features.handlers({ table }),
  });
  const [a, b] = createMemoryPair();
  await server.connect(b);
  await client.connect(a);
  return server;
}

// The client: declares `sampling` and answers sampling/createMessage with its model.
let approve = true;
const seen: CreateMessageRequestParams[] = [];
const client = new Client({
  clientInfo: { name: 'chat-app', version: '1.0.0' },
  capabilities: { sampling: {} },
  handlers: {
    'sampling/createMessage': async (params) => {
      seen.push(params);
      if (!approve) throw new RpcError(-1, 'User rejected sampling request'); // the spec's code for a refusal
      const words = textOf(params.messages[0].content).split(': ')[1].split(' ').slice(0, 5).join(' ');
      return {
        role: 'assistant',
        model: 'local-model-1',
        stopReason: 'endTurn',
        content: { type: 'text', text: words },
      };
    },
  },
});
const server = await connect(client);

const result = await client.callTool({
  name: 'summarize',
  arguments: { text: 'the quick brown fox jumps over the lazy dog' },
});
assert.deepEqual(result.content, [{ type: 'text', text: 'the quick brown fox jumps [local-model-1]' }]);
assert.equal(seen.length, 1);
assert.equal(seen[0].maxTokens, 50);
assert.equal(seen[0].systemPrompt, 'You are a terse summarizer.');

// The server may also sample outside any request, typed by the revision:
const direct = await server.createMessage({
  messages: [{ role: 'user', content: { type: 'text', text: 'Say: hello there' } }],
  maxTokens: 5,
});
assert.equal(direct.role, 'assistant');
assert.deepEqual(direct.content, { type: 'text', text: 'hello there' });

// The user refuses: the client's handler throws, the server sees the RpcError.
approve = false;
const refused = await server
  .createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'x: y' } }], maxTokens: 5 })
  .catch((e: unknown) => e);
assert.ok(refused instanceof RpcError);
assert.equal(refused.code, -1);
assert.equal(refused.message, 'User rejected sampling request');
const declined = await client.callTool({ name: 'summarize', arguments: { text: 'anything' } });
assert.equal(declined.isError, true);
assert.deepEqual(declined.content, [{ type: 'text', text: 'the user declined' }]);

// A client without the `sampling` capability: the request is refused locally, nothing is sent.
const plain = new Client({ clientInfo: { name: 'cli', version: '1.0.0' } });
const plainServer = await connect(plain);
const missing = await plainServer.createMessage({ messages: [], maxTokens: 1 }).catch((e: unknown) => e);
assert.ok(missing instanceof CapabilityNotDeclaredError);
assert.equal(missing.code, -32601);
assert.deepEqual(missing.data, { method: 'sampling/createMessage', capability: 'sampling' });
const noSampling = await plain.callTool({ name: 'summarize', arguments: { text: 'anything' } });
assert.deepEqual(noSampling.content, [{ type: 'text', text: 'this client cannot sample' }]);
assert.equal(seen.length, 4, 'the capability-less client was never asked');

// `tools` in a sampling request needs `sampling.tools`, which this client did not declare:
const withTools = await server
  .createMessage({
    messages: [{ role: 'user', content: { type: 'text', text: 'x: y' } }],
    maxTokens: 5,
    tools: [{ name: 'search', inputSchema: { type: 'object' } }],
  })
  .catch((e: unknown) => e);
assert.ok(withTools instanceof CapabilityNotDeclaredError);
assert.deepEqual(withTools.data, { method: 'sampling/createMessage', capability: 'sampling.tools' });
assert.equal(seen.length, 4);

await client.close();
await plain.close();
console.log('ok sampling');
