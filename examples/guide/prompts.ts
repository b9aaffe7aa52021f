// docs/guide/prompts.md: prompt templates a client lists and fills in.
import assert from 'node:assert/strict';
import { Client, Server, type Protocol } from '../../generated/2025-11-25/index.js';
import { RpcError } from '@mcpgen/runtime';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { createMemoryPair } from '@mcpgen/runtime/memory';

const features = new ServerFeatures<Protocol>();
features.prompt({
  name: 'review',
  title: 'Code review',
  description: 'Ask for a review of a piece of code',
  arguments: [
    { name: 'code', description: 'the code to review', required: true },
    { name: 'language', description: 'its language' },
  ],
  // args: { code: string; language?: string }, from the list above
  get: ({ code, language }) => [
    { role: 'user', content: { type: 'text', text: `Review this ${language ?? 'code'}:\n${code}` } },
  ],
});
features.prompt({
  name: 'translate',
  // arguments from a JSON Schema: each property an argument, checked before get runs
  argsSchema: {
    type: 'object',
    properties: { text: { type: 'string' }, to: { type: 'string', enum: ['fr', 'de'] } },
    required: ['text', 'to'],
  },
  get: ({ text, to }) => ({
    description: `to ${to}`,
    messages: [{ role: 'user', content: { type: 'text', text: `Translate into ${to}: ${text}` } }],
  }),
});

const server = new Server({
  serverInfo: { name: 'prompts', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers(),
});
const client = new Client({ clientInfo: { name: 'app', version: '1.0.0' } });
const [clientSide, serverSide] = createMemoryPair();
await server.connect(serverSide);
await client.connect(clientSide);

const { prompts } = await client.listPrompts({});
console.log(prompts.map((p) => [p.name, p.arguments?.map((a) => a.name)])); // [ [ 'review', [ 'code', 'language' ] ], [ 'translate', [ 'text', 'to' ] ] ]
const review = await client.getPrompt({ name: 'review', arguments: { code: 'x = 1', language: 'Python' } });
console.log(review.messages[0]?.content); // { type: 'text', text: 'Review this Python:\nx = 1' }

assert.deepEqual(
  prompts.map((p) => [p.name, p.arguments?.map((a) => [a.name, a.required ?? false])]),
  [
    [
      'review',
      [
        ['code', true],
        ['language', false],
      ],
    ],
    [
      'translate',
      [
        ['text', true],
        ['to', true],
      ],
    ],
  ],
);
assert.deepEqual(review.messages, [{ role: 'user', content: { type: 'text', text: 'Review this Python:\nx = 1' } }]);
const translated = await client.getPrompt({ name: 'translate', arguments: { text: 'hello', to: 'fr' } });
assert.equal(translated.description, 'to fr');
assert.deepEqual(translated.messages[0]?.content, { type: 'text', text: 'Translate into fr: hello' });

// a missing required argument, an argument the schema refuses, an unknown prompt: -32602
const invalidParams = (e: unknown) => e instanceof RpcError && e.code === -32602;
await assert.rejects(client.getPrompt({ name: 'review', arguments: {} }), invalidParams);
await assert.rejects(client.getPrompt({ name: 'translate', arguments: { text: 'hello', to: 'xx' } }), invalidParams);
await assert.rejects(client.getPrompt({ name: 'summarize' }), invalidParams);

await client.close();
console.log('ok prompts');
