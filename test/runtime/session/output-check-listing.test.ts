/**
 * The client's output check of `tools/call` lists the server's tools once, on demand: a listing
 * that does not end (a `nextCursor` seen before, or 100 pages) is a failed listing, warned
 * through the client's `logger` as one whose `tools/list` fails, and the result comes unchecked.
 * Over a memory pair with a 2025-11-25 server whose `tools/list` pages are given per test.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../../generated/2025-11-25/index.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';

async function run(page: (cursor: string | undefined) => string | undefined) {
  let pages = 0;
  const [a, b] = createMemoryPair();
  const server = new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: { tools: {} },
    handlers: {
      'tools/list': (params) => {
        pages++;
        const next = page(params?.cursor);
        return { tools: [], ...(next === undefined ? {} : { nextCursor: next }) };
      },
      'tools/call': () => ({ content: [], structuredContent: { n: 1 } }),
    },
  });
  await server.connect(b);
  const warnings: Array<[string, unknown]> = [];
  const client = new Client({
    clientInfo: { name: 'c', version: '1' },
    logger: { warn: (message: string, data?: unknown) => warnings.push([message, data]) },
  });
  await client.connect(a);
  const result = await client.callTool({ name: 't' });
  await client.close();
  return { result, warnings, pages };
}

const WARNING = 'tools/list failed: tool results are not checked against their outputSchema';

test('a repeated nextCursor ends the listing with a warning; the result comes unchecked', async () => {
  const { result, warnings, pages } = await run(() => 'p');
  assert.equal(result.structuredContent, { n: 1 });
  assert.is(pages, 2);
  assert.equal(warnings, [[WARNING, { tool: 't', error: 'stopped at nextCursor "p", repeated' }]]);
});

test('a listing that never ends stops at 100 pages with a warning', async () => {
  const { result, warnings, pages } = await run((cursor) => `n${Number(cursor?.slice(1) ?? 0) + 1}`);
  assert.equal(result.structuredContent, { n: 1 });
  assert.is(pages, 100);
  assert.equal(warnings, [[WARNING, { tool: 't', error: 'stopped after 100 pages (the cap)' }]]);
});

test('a listing that ends warns nothing', async () => {
  const { warnings, pages } = await run((cursor) => (cursor === undefined ? 'last' : undefined));
  assert.is(pages, 2);
  assert.equal(warnings, []);
});

test.run();
