// docs/guide/progress.md: a long request reports progress; the caller receives it while waiting.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as v2025 from '../../generated/2025-11-25/index.js';
import * as draft from '../../generated/draft/index.js';
import type { Progress } from '@mcpgen/runtime/engine';
import { ServerFeatures } from '@mcpgen/runtime/features';
import { StatelessHttpClientTransport, createStatelessHttpHandler } from '@mcpgen/runtime/http/stateless';
import { createMemoryPair } from '@mcpgen/runtime/memory';

const features = new ServerFeatures<v2025.Protocol>();
features.tool({
  name: 'index',
  inputSchema: { type: 'object', properties: { files: { type: 'integer', minimum: 1 } }, required: ['files'] },
  handler: async ({ files }, ctx) => {
    for (let done = 1; done <= files; done++) {
      await new Promise((resolve) => setTimeout(resolve, 10)); // the work
      await ctx.sendProgress(done, files, `indexed ${done} of ${files}`); // nothing is sent when the caller asked for none
    }
    return { content: [{ type: 'text', text: `${files} files indexed` }] };
  },
});

const server = new v2025.Server({
  serverInfo: { name: 'indexer', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers(),
});
const client = new v2025.Client({ clientInfo: { name: 'app', version: '1.0.0' } });
const [clientSide, serverSide] = createMemoryPair();
await server.connect(serverSide);
await client.connect(clientSide);

const seen: Progress[] = [];
const result = await client.callTool(
  { name: 'index', arguments: { files: 3 } },
  { onProgress: (p) => seen.push(p), timeout: 5_000, resetTimeoutOnProgress: true },
);
console.log(
  seen.map((p) => `${p.progress}/${p.total}`),
  result.content,
); // [ '1/3', '2/3', '3/3' ] [ { type: 'text', text: '3 files indexed' } ]

assert.deepEqual(seen, [
  { progress: 1, total: 3, message: 'indexed 1 of 3' },
  { progress: 2, total: 3, message: 'indexed 2 of 3' },
  { progress: 3, total: 3, message: 'indexed 3 of 3' },
]);
assert.deepEqual(result.content, [{ type: 'text', text: '3 files indexed' }]);
// without onProgress the request carries no progressToken, and sendProgress sends nothing
assert.deepEqual((await client.callTool({ name: 'index', arguments: { files: 2 } })).content, [
  { type: 'text', text: '2 files indexed' },
]);
await client.close();

// draft over stateless HTTP: progress arrives on the request's own SSE response
const modernFeatures = new ServerFeatures<draft.Protocol>();
modernFeatures.tool({
  name: 'index',
  inputSchema: { type: 'object', properties: { files: { type: 'integer', minimum: 1 } }, required: ['files'] },
  handler: async ({ files }, ctx) => {
    for (let done = 1; done <= files; done++) await ctx.sendProgress(done, files);
    return { content: [{ type: 'text', text: `${files} files indexed` }] };
  },
});
const handler = createStatelessHttpHandler({ tables: [draft.table] });
const modernServer = new draft.Server({
  serverInfo: { name: 'indexer', version: '1.0.0' },
  capabilities: modernFeatures.capabilities(),
  handlers: modernFeatures.handlers({ table: draft.table }),
});
await modernServer.connect(handler.transport);
const http = createServer(handler);
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const modern = new draft.Client({ clientInfo: { name: 'app', version: '1.0.0' } });
await modern.connect(
  new StatelessHttpClientTransport({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` }),
);
const steps: number[] = [];
const modernResult = await modern.callTool(
  { name: 'index', arguments: { files: 4 } },
  { onProgress: (p) => steps.push(p.progress) },
);
assert.deepEqual(steps, [1, 2, 3, 4]);
assert.deepEqual(modernResult.content, [{ type: 'text', text: '4 files indexed' }]);

await modern.close();
await handler.close();
await modernServer.close();
http.closeAllConnections();
await new Promise<void>((resolve) => http.close(() => resolve()));
console.log('ok progress');
