// docs/guide/content.md: images, audio, embedded resources and binary data in tool results, prompts and resources; list changes of prompts and resources.
import assert from 'node:assert/strict';
import { Client, Server, type Protocol } from '../../generated/2025-11-25/index.js';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { createMemoryPair } from '@mcpgen/runtime/memory';

// a 1×1 PNG and a few bytes of WAV, as a server would read them from disk
const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const wav = Buffer.from('524946462400000057415645666d7420', 'hex');

const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'chart',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  handler: ({ city }) => ({
    content: [
      { type: 'text', text: `Temperatures of ${city}` },
      { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
      { type: 'audio', data: wav.toString('base64'), mimeType: 'audio/wav' },
      // a resource the model can read at once, embedded in the result
      {
        type: 'resource',
        resource: { uri: `data://${city}/readings.csv`, mimeType: 'text/csv', text: 'hour,c\n12,21' },
      },
      // a link to a resource the client may read later (resources/read)
      { type: 'resource_link', uri: 'file:///charts/legend.png', name: 'legend', mimeType: 'image/png' },
    ],
  }),
});
// binary content: blob (a Uint8Array here, sent base64)
features.resource({ uri: 'file:///charts/legend.png', name: 'legend', mimeType: 'image/png', blob: png });
features.prompt({
  name: 'describe-chart',
  arguments: [{ name: 'city', required: true }],
  get: ({ city }) => [
    { role: 'user', content: { type: 'text', text: `Describe the chart of ${city}.` } },
    { role: 'user', content: { type: 'image', data: png.toString('base64'), mimeType: 'image/png' } },
    {
      role: 'user',
      content: {
        type: 'resource',
        resource: { uri: `data://${city}/readings.csv`, mimeType: 'text/csv', text: 'hour,c\n12,21' },
      },
    },
  ],
});

const changed: string[] = [];
const server = new Server({
  serverInfo: { name: 'charts', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers(),
});
features.attach(server); // registering or removing sends the list_changed notifications
const client = new Client({
  clientInfo: { name: 'app', version: '1.0.0' },
  notificationHandlers: {
    'notifications/prompts/list_changed': () => void changed.push('prompts'),
    'notifications/resources/list_changed': () => void changed.push('resources'),
  },
});
const [clientSide, serverSide] = createMemoryPair();
await server.connect(serverSide);
await client.connect(clientSide);

const result = await client.callTool({ name: 'chart', arguments: { city: 'Oslo' } });
for (const block of result.content) {
  if (block.type === 'image' || block.type === 'audio')
    console.log(block.type, block.mimeType, Buffer.from(block.data, 'base64').length);
  else if (block.type === 'resource') console.log('resource', block.resource.uri);
  else if (block.type === 'resource_link') console.log('link', block.uri);
}
// image image/png 29 · audio audio/wav 16 · resource data://Oslo/readings.csv · link file:///charts/legend.png

const legend = await client.readResource({ uri: 'file:///charts/legend.png' });
const [contents] = legend.contents;
const bytes = 'blob' in contents ? Buffer.from(contents.blob, 'base64') : undefined;
console.log(contents.mimeType, bytes?.equals(png)); // image/png true

const prompt = await client.getPrompt({ name: 'describe-chart', arguments: { city: 'Oslo' } });
console.log(prompt.messages.map((m) => m.content.type)); // [ 'text', 'image', 'resource' ]

features.prompt({ name: 'summary', get: () => [{ role: 'user', content: { type: 'text', text: 'Summarize.' } }] });
features.resource({ uri: 'file:///charts/index.html', name: 'index', mimeType: 'text/html', text: '<h1>charts</h1>' });
await client.ping(); // the notifications of this tick have arrived once a later answer has
console.log(changed); // [ 'prompts', 'resources' ]

assert.deepEqual(
  result.content.map((b) => b.type),
  ['text', 'image', 'audio', 'resource', 'resource_link'],
);
const image = result.content[1];
assert.ok(image.type === 'image' && Buffer.from(image.data, 'base64').equals(png));
const audio = result.content[2];
assert.ok(audio.type === 'audio' && audio.mimeType === 'audio/wav' && Buffer.from(audio.data, 'base64').equals(wav));
const embedded = result.content[3];
assert.ok(embedded.type === 'resource' && 'text' in embedded.resource && embedded.resource.text === 'hour,c\n12,21');
assert.equal(contents.mimeType, 'image/png');
assert.ok(bytes?.equals(png));
assert.deepEqual(
  prompt.messages.map((m) => m.content.type),
  ['text', 'image', 'resource'],
);
assert.deepEqual([...changed].sort(), ['prompts', 'resources']);
assert.deepEqual(
  (await client.listPrompts({})).prompts.map((p) => p.name),
  ['describe-chart', 'summary'],
);

await client.close();
console.log('ok content');
