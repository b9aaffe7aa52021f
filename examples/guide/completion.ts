// Guide: completion (docs/guide/completion.md). Argument completion for a prompt and for a
// resource template, over the memory pair, on 2025-11-25 and on draft.
import assert from 'node:assert/strict';
import { Client, Server, table, type Protocol } from '../../generated/2025-11-25/index.js';
import * as draft from '../../generated/draft/index.js';
import { ServerFeatures, createMemoryPair, RpcError } from '@mcpgen/runtime';

const languages = ['go', 'javascript', 'julia', 'python', 'rust', 'typescript'];

const features = new ServerFeatures<Protocol>();
features.prompt({
  name: 'review',
  description: 'Asks for a code review',
  arguments: [
    { name: 'language', required: true, complete: (value) => languages.filter((l) => l.startsWith(value)) },
    // `context` holds the arguments the client has already filled in
    {
      name: 'style',
      complete: (value, context) =>
        (context.language === 'go' ? ['gofmt'] : ['prettier', 'eslint']).filter((s) => s.startsWith(value)),
    },
  ],
  get: ({ language, style }) => [
    { role: 'user', content: { type: 'text', text: `Review this ${language} code (${style ?? 'any style'})` } },
  ],
});
features.resourceTemplate({
  name: 'repo-file',
  uriTemplate: 'repo://{owner}/{repo}/{+path}',
  read: (uri, { owner, repo, path }) => [{ uri, text: `${owner}/${repo}: ${path}` }],
  complete: {
    owner: (value) => ['modelcontextprotocol', 'microsoft'].filter((o) => o.startsWith(value)),
    // more matches than fit: return `total` and `hasMore` yourself (at most 100 values are sent)
    repo: (value) => {
      const all = Array.from({ length: 250 }, (_, i) => `repo-${i}`).filter((r) => r.startsWith(value));
      return { values: all.slice(0, 10), total: all.length, hasMore: all.length > 10 };
    },
  },
});

const server = new Server({
  serverInfo: { name: 'completion-demo', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers({ table }),
});
const client = new Client({ clientInfo: { name: 'app', version: '1.0.0' } });
const [clientEnd, serverEnd] = createMemoryPair();
await server.connect(serverEnd);
const info = await client.connect(clientEnd);
assert.deepEqual(info.capabilities.completions, {}); // declared because a completer is registered

const language = await client.complete({
  ref: { type: 'ref/prompt', name: 'review' },
  argument: { name: 'language', value: 'j' },
});
assert.deepEqual(language.completion, { values: ['javascript', 'julia'], total: 2 });

const style = await client.complete({
  ref: { type: 'ref/prompt', name: 'review' },
  argument: { name: 'style', value: '' },
  context: { arguments: { language: 'go' } },
});
assert.deepEqual(style.completion.values, ['gofmt']);

const owner = await client.complete({
  ref: { type: 'ref/resource', uri: 'repo://{owner}/{repo}/{+path}' },
  argument: { name: 'owner', value: 'm' },
});
assert.deepEqual(owner.completion.values, ['modelcontextprotocol', 'microsoft']);

const repo = await client.complete({
  ref: { type: 'ref/resource', uri: 'repo://{owner}/{repo}/{+path}' },
  argument: { name: 'repo', value: 'repo-1' },
});
assert.deepEqual(repo.completion, {
  values: ['repo-1', 'repo-10', 'repo-11', 'repo-12', 'repo-13', 'repo-14', 'repo-15', 'repo-16', 'repo-17', 'repo-18'],
  total: 111,
  hasMore: true,
});

// an argument without a completer: no suggestions, not an error
const path = await client.complete({
  ref: { type: 'ref/resource', uri: 'repo://{owner}/{repo}/{+path}' },
  argument: { name: 'path', value: 'src/' },
});
assert.deepEqual(path.completion, { values: [] });

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 0,
    (e: unknown) => (e instanceof RpcError ? e.code : -1),
  );
assert.equal(
  await codeOf(client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'x', value: '' } })),
  -32602,
); // unknown prompt
assert.equal(
  await codeOf(
    client.complete({
      ref: { type: 'ref/resource', uri: 'repo://{owner}/{repo}/{+path}' },
      argument: { name: 'branch', value: '' },
    }),
  ),
  -32602,
); // not a variable
assert.equal(
  await codeOf(
    client.complete({ ref: { type: 'ref/resource', uri: 'nope://{x}' }, argument: { name: 'x', value: '' } }),
  ),
  -32002,
); // unknown resource
await client.close();

// draft (stateless): the same features, the same call; the result carries resultType
const modern = new ServerFeatures<draft.Protocol>();
modern.prompt({
  name: 'review',
  arguments: [{ name: 'language', complete: (value) => languages.filter((l) => l.startsWith(value)) }],
  get: ({ language }) => [{ role: 'user', content: { type: 'text', text: `Review ${language}` } }],
});
const draftServer = new draft.Server({
  serverInfo: { name: 'completion-demo', version: '1.0.0' },
  capabilities: modern.capabilities(),
  handlers: modern.handlers({ table: draft.table }),
});
const draftClient = new draft.Client({ clientInfo: { name: 'app', version: '1.0.0' } });
const [c2, s2] = createMemoryPair();
await draftServer.connect(s2);
await draftClient.connect(c2);
const modernResult = await draftClient.complete({
  ref: { type: 'ref/prompt', name: 'review' },
  argument: { name: 'language', value: 'ty' },
});
assert.deepEqual(modernResult.completion.values, ['typescript']);
assert.equal(modernResult.resultType, 'complete');
await draftClient.close();
await draftServer.close();
await server.close();

console.log('ok completion');
