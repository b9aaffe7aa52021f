/**
 * A tools/call result is checked against the revision's result schema once: by the features'
 * check (which names the tool when it fails) for ServerFeatures handlers, flagged
 * RESULTS_CHECKED, and by the engine for any other handler. Counted with the real generated
 * validators behind a counter (the result schema, and the method's own `complete` that a draft
 * engine checks a complete result against), over the memory pair with the generated Client; and
 * the same of the draft's stateless server (whose lifecycle wraps each handler again), over its
 * HTTP endpoint; and of the reference server (`mcpgen serve`), whose task wiring routes
 * tools/call between the features' handler and the session's task receiver.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import * as draft from '../../../generated/draft/index.js';
import { ServerFeatures } from '../../../runtime/features/server-features.js';
import { ServerSession } from '../../../runtime/session/server.js';
import { RESULTS_CHECKED, type RequestHandler } from '../../../runtime/engine/peer.js';
import type { ProtocolTable, Validator } from '../../../runtime/protocol/table.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import { callWithTask } from '../../../runtime/tasks/requestor.js';
import { type ServerClass, referenceDefinition } from '../../../reference/server.js';
import { statelessServer } from '../stateless/harness.js';

/** A server table (2025-11-25's unless given) whose tools/call result validator counts its calls. */
function countingTable(base: ProtocolTable = v2025.serverTable as unknown as ProtocolTable): {
  table: ProtocolTable;
  calls: () => number;
} {
  const entry = base.requests.clientToServer['tools/call'];
  let calls = 0;
  // the result schema, and the method's own (`complete`: what a draft engine checks a complete result against)
  const count = (real: Validator): Validator => {
    const counting: Validator = (data: unknown) => {
      calls++;
      const ok = real(data);
      counting.errors = real.errors;
      return ok;
    };
    return counting;
  };
  const counted = {
    ...entry,
    result: count(entry.result!),
    ...(entry.complete ? { complete: count(entry.complete) } : {}),
  };
  const table: ProtocolTable = {
    ...base,
    requests: {
      ...base.requests,
      clientToServer: { ...base.requests.clientToServer, 'tools/call': counted },
    },
  };
  return { table, calls: () => calls };
}

async function connect(
  table: ProtocolTable,
  handlers: Record<string, RequestHandler>,
  capabilities: Record<string, unknown> = { tools: {} },
) {
  const [a, b] = createMemoryPair();
  const server = new ServerSession(table, {
    serverInfo: { name: 's', version: '1' },
    capabilities,
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

test('the reference server: a plain tools/call result is checked once, a task-augmented answer still checked', async () => {
  const { table, calls } = countingTable();
  const d = referenceDefinition(v2025.Server as unknown as ServerClass, { logger: {} });
  const handlers = d.options.handlers as Record<string, RequestHandler>;
  assert.is((handlers['tools/call'] as { [RESULTS_CHECKED]?: boolean })[RESULTS_CHECKED], true);
  const client = await connect(table, handlers, d.options.capabilities as Record<string, unknown>);
  const r = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  assert.equal(r.content, [{ type: 'text', text: 'hi' }]);
  assert.is(calls(), 1);
  // through the receiver: its CreateTaskResult (checked by the routing), then the tool's own
  // result when the task ends (checked by the features)
  const h = await callWithTask(
    client,
    'tools/call',
    { name: 'slow_compute', arguments: { seconds: 0 } },
    {
      task: { ttl: 60_000 },
    },
  );
  await h.result();
  assert.is(calls(), 3);
  await client.close();
});

test('stateless: a ServerFeatures tool result is checked once through the stateless lifecycle too', async () => {
  const { table, calls } = countingTable(draft.serverTable as unknown as ProtocolTable);
  const f = new ServerFeatures<draft.Protocol>({ logger: {} });
  f.tool({ name: 'echo', handler: () => 'hi' });
  // neither a CallToolResult (the content type) nor an InputRequiredResult (requestState not a string)
  f.tool({ name: 'bad', handler: () => ({ content: [{ type: 'txt', text: 'a' }], requestState: 5 }) as never });
  const s = await statelessServer(table, f.handlers() as Record<string, RequestHandler>);
  try {
    const ok = await s.call(1, 'echo');
    assert.equal(ok.result?.content, [{ type: 'text', text: 'hi' }]);
    assert.is(ok.result?.resultType, 'complete');
    assert.is(calls(), 1);
    const bad = await s.call(2, 'bad');
    assert.is(bad.error?.code, -32603);
    assert.match(bad.error?.message ?? '', /^Tool bad returned a result that is not a valid CallToolResult/);
    assert.is(calls(), 2);
  } finally {
    await s.close();
  }
});

test('stateless: an unflagged handler is checked by the engine, once; an invalid result is -32603', async () => {
  const { table, calls } = countingTable(draft.serverTable as unknown as ProtocolTable);
  let answer: unknown = { content: [{ type: 'text', text: 'ok' }] };
  const s = await statelessServer(table, { 'tools/list': () => ({ tools: [] }), 'tools/call': () => answer });
  try {
    assert.equal((await s.call(1, 'x')).result?.content, [{ type: 'text', text: 'ok' }]);
    assert.is(calls(), 1);
    answer = { content: [{ type: 'txt', text: 'a' }], requestState: 5 };
    const bad = await s.call(2, 'x');
    assert.is(bad.error?.code, -32603);
    assert.is(calls(), 2);
  } finally {
    await s.close();
  }
});

test.run();
