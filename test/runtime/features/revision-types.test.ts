/**
 * ServerFeatures typed by a revision's generated method maps: a tool handler of 2025-11-25
 * returns that revision's CallToolResult, one of draft returns draft's (`resultType` filled in by
 * the features), and prompt messages and resource contents are the revision's shapes. The
 * `@ts-expect-error` lines are checked by `npx tsc -p tsconfig.json --noEmit` (this file is in
 * the project): each must fail to compile, else tsc reports the unused directive. The run-time
 * tests call the typed definitions over the memory pair with each revision's generated Client.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import * as draft from '../../../generated/draft/index.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';

/** The method maps a generated Server is typed over. */
type MapsOf<S extends { protocolMaps?: unknown }> = NonNullable<S['protocolMaps']>;

/** Compile-time checks only: never called. */
export function typeChecks(): void {
  const f2025 = new ServerFeatures<MapsOf<v2025.Server>>();
  f2025.tool({ name: 'ok', handler: () => ({ content: [{ type: 'text', text: 'a' }] }) });
  f2025.tool({ name: 'string', handler: () => 'one text block' });
  // @ts-expect-error a content block type 2025-11-25 does not define
  f2025.tool({ name: 'bad', handler: () => ({ content: [{ type: 'txt', text: 'a' }] }) });
  // @ts-expect-error a text block without its text
  f2025.tool({ name: 'bad2', handler: async () => ({ content: [{ type: 'text' }] }) });
  // @ts-expect-error an image block without data and mimeType
  f2025.tool({ name: 'bad3', handler: () => ({ content: [{ type: 'image' }] }) });
  f2025.prompt({ name: 'p', get: () => [{ role: 'user', content: { type: 'text', text: 'hi' } }] });
  // @ts-expect-error a prompt message with a role the revision does not define
  f2025.prompt({ name: 'p2', get: () => [{ role: 'system', content: { type: 'text', text: 'hi' } }] });
  // @ts-expect-error a prompt message whose content block type is unknown
  f2025.prompt({ name: 'p3', get: () => ({ messages: [{ role: 'user', content: { type: 'txt', text: 'hi' } }] }) });
  f2025.resource({ uri: 'mem://a', name: 'a', read: (uri) => [{ uri, text: 'x' }] });
  // @ts-expect-error resource contents without a uri
  f2025.resource({ uri: 'mem://b', name: 'b', read: () => [{ text: 'x' }] });

  const fDraft = new ServerFeatures<draft.Protocol>();
  // resultType is filled in by the features: a draft handler may leave it out
  fDraft.tool({ name: 'ok', handler: () => ({ content: [{ type: 'text', text: 'a' }] }) });
  fDraft.tool({
    name: 'ok2',
    handler: () => ({ resultType: 'complete', content: [{ type: 'audio', data: 'AA==', mimeType: 'audio/wav' }] }),
  });
  // @ts-expect-error a content block type draft does not define
  fDraft.tool({ name: 'bad', handler: () => ({ content: [{ type: 'txt', text: 'a' }] }) });
  // @ts-expect-error content that is not an array of blocks
  fDraft.tool({ name: 'bad2', handler: () => ({ content: { type: 'text', text: 'a' } }) });

  // untyped features keep the loose shapes
  const loose = new ServerFeatures();
  loose.tool({ name: 'any', handler: () => ({ content: [{ type: 'txt', text: 'a' }] }) });
}

test('2025-11-25: typed tool, prompt and resource definitions answer over the memory pair', async () => {
  const f = new ServerFeatures<v2025.Protocol>();
  f.tool({
    name: 'echo',
    handler: (args: { text?: string }) => ({ content: [{ type: 'text', text: `echo ${args.text}` }] }),
  });
  f.prompt({ name: 'greet', get: () => [{ role: 'assistant', content: { type: 'text', text: 'hello' } }] });
  f.resource({ uri: 'mem://r', name: 'r', read: (uri) => [{ uri, mimeType: 'text/plain', text: 'body' }] });
  const [a, b] = createMemoryPair();
  const server = new v2025.Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: f.capabilities(),
    handlers: f.handlers(),
  });
  await server.connect(b);
  const client = new v2025.Client({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  const called = await client.callTool({ name: 'echo', arguments: { text: 'x' } });
  assert.equal(called.content, [{ type: 'text', text: 'echo x' }]);
  const prompt = await client.getPrompt({ name: 'greet' });
  assert.equal(prompt.messages, [{ role: 'assistant', content: { type: 'text', text: 'hello' } }]);
  const read = await client.readResource({ uri: 'mem://r' });
  assert.equal(read.contents, [{ uri: 'mem://r', mimeType: 'text/plain', text: 'body' }]);
  await client.close();
});

test('draft: a typed tool without resultType is answered with resultType "complete"', async () => {
  const f = new ServerFeatures<draft.Protocol>();
  f.tool({ name: 'echo', handler: () => ({ content: [{ type: 'text', text: 'draft' }] }) });
  const [a, b] = createMemoryPair();
  const server = new draft.Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: f.capabilities(),
    handlers: f.handlers({ table: draft.table }),
  });
  await server.connect(b);
  const client = new draft.Client({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  const called = await client.callTool({ name: 'echo', arguments: {} });
  assert.is(called.resultType, 'complete');
  assert.equal(called.content, [{ type: 'text', text: 'draft' }]);
  await client.close();
});

test.run();
