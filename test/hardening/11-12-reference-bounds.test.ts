/**
 * Issue 11, finding 12 (last part): what a peer may ask a reference tool to do is bounded.
 * `slow_compute` of both eras takes `seconds` from 0 to 60 (its inputSchema's `maximum`); a
 * longer run is refused at once with an `isError` result, never started, and a value that
 * bypasses the schema is refused by the handler itself (-32602).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../generated/2025-11-25/index.js';
import { Server as DraftServer, table as draftTable } from '../../generated/draft/index.js';
import { createReferenceServer, referenceDefinition, type ServerClass } from '../../reference/server.js';
import { MAX_SLOW_COMPUTE_SECONDS, slowComputeSeconds } from '../../reference/tasks.js';
import { RpcError } from '../../runtime/jsonrpc/errors.js';
import { createMemoryPair } from '../../runtime/transport/memory.js';
import { rawClient, WITHOUT_TASKS } from '../runtime/tasks/extension/support.js';

type Obj = Record<string, unknown>;
const within = <T>(p: Promise<T>, what: string): Promise<T> =>
  Promise.race([
    p,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: no answer within 10 s (the call ran)`)), 10_000),
    ),
  ]);
const secondsSchema = (tools: Array<{ name: string; inputSchema: unknown }>): Obj =>
  (tools.find((t) => t.name === 'slow_compute')!.inputSchema as { properties: Obj }).properties.seconds as Obj;

test('2025-11-25 slow_compute: seconds at most 60 in its inputSchema; 3600 is refused at once', async () => {
  const [a, b] = createMemoryPair();
  await referenceDefinition(Server as unknown as ServerClass)
    .createSession()
    .connect(b);
  const client = new Client({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  try {
    assert.is(secondsSchema((await client.listTools({})).tools).maximum, 60);
    for (const seconds of [3600, 61, -1]) {
      const r = await within(client.callTool({ name: 'slow_compute', arguments: { seconds } }), `seconds ${seconds}`);
      assert.is(r.isError, true, `seconds ${seconds}`);
    }
    const ok = await within(client.callTool({ name: 'slow_compute', arguments: { seconds: 0 } }), 'seconds 0');
    assert.is(ok.isError, undefined);
  } finally {
    await client.close();
  }
});

test('draft slow_compute: seconds at most 60 in its inputSchema; 1e9 is refused, not run (nor cut to a 1 ms timer)', async () => {
  const { server } = createReferenceServer(DraftServer as never, { table: draftTable });
  const [a, b] = createMemoryPair();
  await server.connect(b);
  const s = await rawClient(a);
  try {
    assert.is(secondsSchema((await s.call('tools/list')).tools as never).maximum, 60);
    for (const seconds of [1e9, 61]) {
      const r = await within(
        s.call('tools/call', { name: 'slow_compute', arguments: { seconds } }, WITHOUT_TASKS),
        `seconds ${seconds}`,
      );
      assert.is(r.isError, true, `seconds ${seconds}: ${JSON.stringify(r)}`);
    }
  } finally {
    await server.close();
  }
});

test('the handlers bound seconds themselves: -32602 outside 0..60, whatever reached them', () => {
  assert.is(MAX_SLOW_COMPUTE_SECONDS, 60);
  assert.is(slowComputeSeconds(60), 60);
  assert.is(slowComputeSeconds(0.5), 0.5);
  for (const bad of [60.001, -0.1, Number.NaN, Infinity, '5', null]) {
    try {
      slowComputeSeconds(bad);
      assert.unreachable(String(bad));
    } catch (e) {
      assert.instance(e, RpcError);
      assert.is((e as RpcError).code, -32602);
    }
  }
});

test.run();
