/**
 * A tools/call result is checked against the revision's result schema once: by the features'
 * check (which names the tool when it fails) for ServerFeatures handlers, flagged
 * RESULTS_CHECKED, and by the engine for any other handler. Counted with the real generated
 * validator of 2025-11-25 behind a counter, over the memory pair with the generated Client.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';
import { ServerSession } from '../../../runtime/session/server.js';
import { RESULTS_CHECKED, type RequestHandler } from '../../../runtime/engine/peer.js';
import type { ProtocolTable, Validator } from '../../../runtime/protocol/table.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';

/** 2025-11-25's server table whose tools/call result validator counts its calls. */
function countingTable(): { table: ProtocolTable; calls: () => number } {
  const base = v2025.serverTable as unknown as ProtocolTable;
  const entry = base.requests.clientToServer['tools/call'];
  const real = entry.result!;
  let calls = 0;
  const counting: Validator = (data: unknown) => {
    calls++;
    const ok = real(data);
    counting.errors = real.errors;
    return ok;
  };
  const table: ProtocolTable = {
    ...base,
    requests: {
      ...base.requests,
      clientToServer: { ...base.requests.clientToServer, 'tools/call': { ...entry, result: counting } },
    },
  };
  return { table, calls: () => calls };
}

async function connect(table: ProtocolTable, handlers: Record<string, RequestHandler>) {
  const [a, b] = createMemoryPair();
  const server = new ServerSession(table, {
    serverInfo: { name: 's', version: '1' },
    capabilities: { tools: {} },
    handlers,
    logger: {},
  });
  await server.connect(b);
  const client = new v2025.Client({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  return client;
}

test('a ServerFeatures tool result: checked once, by the features (the engine trusts the flag)', async () => {
  const { table, calls } = countingTable();
  const f = new ServerFeatures<v2025.Protocol>({ logger: {} });
  f.tool({ name: 'echo', handler: () => 'hi' });
  f.tool({ name: 'bad', handler: () => ({ content: [{ type: 'txt', text: 'a' }] }) as never });
  const handlers = f.handlers() as Record<string, RequestHandler>;
  assert.is((handlers['tools/call'] as { [RESULTS_CHECKED]?: boolean })[RESULTS_CHECKED], true);
  const client = await connect(table, handlers);
  assert.equal((await client.callTool({ name: 'echo', arguments: {} })).content, [{ type: 'text', text: 'hi' }]);
  assert.is(calls(), 1);
  const e = await client.callTool({ name: 'bad', arguments: {} }).then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, RpcError);
  assert.match((e as RpcError).message, /^Tool bad returned a result that is not a valid CallToolResult/);
  assert.is(calls(), 2);
  await client.close();
});

test('an unflagged handler: its result is checked by the engine, once; an invalid one is -32603', async () => {
  const { table, calls } = countingTable();
  let answer: unknown = { content: [{ type: 'text', text: 'ok' }] };
  const client = await connect(table, { 'tools/list': () => ({ tools: [] }), 'tools/call': async () => answer });
  assert.equal((await client.callTool({ name: 'x', arguments: {} })).content, [{ type: 'text', text: 'ok' }]);
  assert.is(calls(), 1);
  answer = { content: [{ type: 'txt', text: 'a' }] };
  const e = await client.callTool({ name: 'x', arguments: {} }).then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, RpcError);
  assert.is((e as RpcError).code, -32603);
  assert.is((e as RpcError).message, 'Internal error: tool x returned a result that is not a valid tools/call result');
  assert.is(calls(), 2);
  await client.close();
});

test.run();
