/**
 * An unknown resource URI per revision: -32002 `Resource not found` with `data.uri` up to
 * 2025-11-25 (server/resources "Error Handling"); -32602 with `data.uri` on stateless
 * revisions (draft server/resources, SEP-2164).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../../generated/2025-11-25/index.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';

function features(): ServerFeatures {
  return new ServerFeatures().resource({ uri: 'test://a', name: 'a', text: 'A' });
}

async function failure(p: Promise<unknown>): Promise<RpcError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RpcError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

test('2025-11-25: unknown resource is -32002 with data.uri', async () => {
  const f = features();
  const [a, b] = createMemoryPair();
  await new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: f.capabilities(),
    handlers: f.handlers(),
  }).connect(b);
  const client = new Client({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  const e = await failure(client.readResource({ uri: 'test://missing' }));
  assert.equal([e.code, e.message, e.data], [-32002, 'Resource not found', { uri: 'test://missing' }]);
  await client.close();
});

test('draft: unknown resource is -32602 with data.uri', async () => {
  const { Client: DraftClient, Server: DraftServer, table } = await import('../../../generated/draft/index.js');
  const f = features();
  const [a, b] = createMemoryPair();
  await new DraftServer({
    serverInfo: { name: 's', version: '1' },
    capabilities: f.capabilities(),
    handlers: f.handlers({ table }),
  }).connect(b);
  const client = new DraftClient({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  const e = await failure(client.readResource({ uri: 'test://missing' }));
  assert.equal([e.code, e.data], [-32602, { uri: 'test://missing' }]);
  assert.is((await client.readResource({ uri: 'test://a' })).contents.length, 1);
  await client.close();
});

test.run();
