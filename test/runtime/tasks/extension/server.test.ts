/**
 * The tasks extension (SEP-2663) on a generated draft Server, at the wire: negotiation and
 * gating (-32021), the flat CreateTaskResult, tasks/get DetailedTask per status, tool errors vs
 * JSON-RPC errors, tasks/update (partial answers, ignored and invalid ones), tasks/cancel acks,
 * unknown and expired tasks (-32602), removed methods (-32601), inline fallbacks.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode, RpcError } from '../../../../runtime/jsonrpc/errors.js';
import { inputRequest } from '../../../../runtime/stateless/mrtr.js';
import { TASKS_EXTENSION, TasksExtension } from '../../../../runtime/tasks/extension.js';
import { checkRequestHeaders } from '../../../../runtime/transport/http/stateless/headers.js';
import { Server, table } from '../../../../generated/draft/index.js';
import { createMemoryPair } from '../../../../runtime/transport/memory.js';
import type { ProtocolTable } from '../../../../runtime/protocol/table.js';
import { rawClient, start, tick, WITHOUT_TASKS } from './support.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
const askName = inputRequest.elicit({
  message: 'Name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
});
const askOk = inputRequest.elicit({
  message: 'OK?',
  requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
});

/** A gate the work of `job` waits on, and a record of what it saw. */
function fixtures() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const seen = { calls: 0, aborted: false, taskIds: [] as Array<string | undefined>, notes: [] as boolean[] };
  const setup = (
    f: import('../../../../runtime/features/server-features.js').ServerFeatures,
    tasks: TasksExtension,
  ) => {
    f.tool({ name: 'plain', handler: (_a, ctx) => tasks.run(ctx, () => 'plain ran inline') as never });
    f.tool({
      name: 'job',
      handler: (_a, ctx) => {
        seen.calls++;
        return tasks.run(ctx, async (task) => {
          seen.taskIds.push(task.taskId);
          task.signal.addEventListener('abort', () => (seen.aborted = true));
          await gate;
          return text('job done');
        }) as never;
      },
    });
    f.tool({
      name: 'note',
      handler: (_a, ctx) =>
        tasks.run(ctx, async (task) => {
          seen.notes.push(await task.setStatusMessage('halfway'));
          await gate;
          return text('noted');
        }) as never,
    });
    f.tool({ name: 'must', handler: (_a, ctx) => (seen.calls++, tasks.run(ctx, () => 'must done') as never) });
    f.tool({
      name: 'tool_error',
      handler: (_a, ctx) => tasks.run(ctx, () => ({ ...text('quota exceeded'), isError: true })) as never,
    });
    f.tool({
      name: 'rpc_error',
      handler: (_a, ctx) =>
        tasks.run(ctx, () => {
          throw new RpcError(ErrorCode.InternalError, 'backend unreachable', { retry: false });
        }) as never,
    });
    f.tool({
      name: 'throws',
      handler: (_a, ctx) =>
        tasks.run(ctx, () => {
          throw new Error('disk full');
        }) as never,
    });
    f.tool({
      name: 'ask',
      handler: (_a, ctx) =>
        tasks.run(ctx, async (task) => {
          const r = await task.input({ who: askName, sure: askOk });
          const again = await task.input({ who: askName }).catch((e: Error) => e.constructor.name);
          const who = (r.who as { content: { name: string } }).content.name;
          return text(
            `${who} ok=${String((r.sure as { content: { ok: boolean } }).content.ok)} reuse=${String(again)}`,
          );
        }) as never,
    });
  };
  const tools = {
    note: 'optional',
    job: 'optional',
    must: 'required',
    tool_error: 'optional',
    rpc_error: 'optional',
    throws: 'optional',
    ask: 'optional',
  } as const;
  return { setup, tools, seen, release };
}

test('server/discover: extensions["io.modelcontextprotocol/tasks"] = {}, no tasks capability', async () => {
  const { setup, tools } = fixtures();
  const s = await start(setup, { tools });
  const caps = (await s.call('server/discover')).capabilities as Record<string, unknown>;
  assert.equal(caps.extensions, { [TASKS_EXTENSION]: {} });
  assert.is('tasks' in caps, false);
  assert.equal(caps.tools, { listChanged: true });
  await s.close();
});

test('tools/call with the extension: a flat CreateTaskResult, found by tasks/get at once, then completed with the result inlined', async () => {
  const { setup, tools, seen, release } = fixtures();
  const s = await start(setup, { tools });
  const created = await s.call('tools/call', { name: 'job', arguments: {} });
  assert.is(created.resultType, 'task');
  assert.match(String(created.taskId), UUID);
  assert.is(created.status, 'working');
  assert.match(String(created.createdAt), ISO);
  assert.is(created.lastUpdatedAt, created.createdAt);
  assert.is(created.ttlMs, 3_600_000);
  assert.is(created.pollIntervalMs, 1000);
  for (const k of [
    'task',
    'result',
    'error',
    'inputRequests',
    'requestState',
    'ttl',
    'pollInterval',
    'content',
    '_meta',
  ])
    assert.is(k in created, false, k);
  const working = await s.call('tasks/get', { taskId: created.taskId });
  assert.equal(working, {
    resultType: 'complete',
    taskId: created.taskId,
    status: 'working',
    createdAt: created.createdAt,
    lastUpdatedAt: created.createdAt,
    ttlMs: 3_600_000,
    pollIntervalMs: 1000,
  });
  assert.equal(seen.taskIds, [created.taskId]);
  release();
  const done = await s.until(String(created.taskId));
  assert.is(done.status, 'completed');
  assert.is(done.resultType, 'complete');
  assert.equal(done.result, { resultType: 'complete', content: [{ type: 'text', text: 'job done' }] });
  assert.is('error' in done, false);
  await s.close();
});

test('without the extension: an optional tool answers inline, a required one is -32021 before its handler runs', async () => {
  const { setup, tools, seen, release } = fixtures();
  release();
  const s = await start(setup, { tools });
  const sync = await s.call('tools/call', { name: 'job', arguments: {} }, WITHOUT_TASKS);
  assert.equal(sync, { resultType: 'complete', content: [{ type: 'text', text: 'job done' }] });
  assert.equal(seen.taskIds, [undefined]);
  const before = seen.calls;
  const r = await s.send('tools/call', { name: 'must', arguments: {} }, WITHOUT_TASKS);
  assert.is(r.error?.code, -32021);
  assert.equal(r.error?.data, { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
  assert.is(seen.calls, before);
  const task = await s.call('tools/call', { name: 'must', arguments: {} });
  assert.is(task.resultType, 'task');
  // a legacy `task` param neither errors nor makes a task of an unlisted tool
  assert.equal(await s.call('tools/call', { name: 'plain', arguments: {}, task: { ttl: 60000 } }), {
    resultType: 'complete',
    content: [{ type: 'text', text: 'plain ran inline' }],
  });
  await s.close();
});

test('tasks/get, tasks/update and tasks/cancel: -32021 without the extension, -32602 for unknown ids and bad params, tasks/result and tasks/list -32601', async () => {
  const { setup, tools } = fixtures();
  const s = await start(setup, { tools });
  for (const [method, params] of [
    ['tasks/get', { taskId: 'x' }],
    ['tasks/update', { taskId: 'x', inputResponses: {} }],
    ['tasks/cancel', { taskId: 'x' }],
  ] as const) {
    const gated = await s.send(method, params, WITHOUT_TASKS);
    assert.is(gated.error?.code, ErrorCode.MissingRequiredClientCapability, method);
    assert.equal(gated.error?.data, { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    const unknown = await s.send(method, params);
    assert.is(unknown.error?.code, ErrorCode.InvalidParams, method);
    assert.is(unknown.error?.message, 'Failed to retrieve task: Task not found');
    assert.is((await s.send(method, {})).error?.code, ErrorCode.InvalidParams, `${method} without taskId`);
  }
  const created = await s.call('tools/call', { name: 'job', arguments: {} });
  const bad = await s.send('tasks/update', { taskId: created.taskId, inputResponses: [] });
  assert.is(bad.error?.code, ErrorCode.InvalidParams);
  assert.is(
    (await s.send('tasks/update', { taskId: created.taskId, inputResponses: { a: 1 } })).error?.code,
    ErrorCode.InvalidParams,
  );
  assert.is((await s.send('tasks/result', { taskId: created.taskId })).error?.code, ErrorCode.MethodNotFound);
  assert.is((await s.send('tasks/list', {})).error?.code, ErrorCode.MethodNotFound);
  await s.close();
});

test('outcomes: isError → completed with the result; RpcError → failed with the error and no result; other throws → completed isError', async () => {
  const { setup, tools } = fixtures();
  const s = await start(setup, { tools });
  const id = async (name: string) => String((await s.call('tools/call', { name, arguments: {} })).taskId);
  const toolError = await s.until(await id('tool_error'));
  assert.is(toolError.status, 'completed');
  assert.equal(toolError.result, {
    resultType: 'complete',
    content: [{ type: 'text', text: 'quota exceeded' }],
    isError: true,
  });
  const failed = await s.until(await id('rpc_error'));
  assert.is(failed.status, 'failed');
  assert.equal(failed.error, { code: -32603, message: 'backend unreachable', data: { retry: false } });
  assert.is(failed.statusMessage, 'backend unreachable');
  assert.is('result' in failed, false);
  const thrown = await s.until(await id('throws'));
  assert.is(thrown.status, 'completed');
  assert.equal(thrown.result, {
    resultType: 'complete',
    content: [{ type: 'text', text: 'disk full' }],
    isError: true,
  });
  await s.close();
});

test('tasks/cancel: an empty ack, cancelled before the ack, the work aborted and its outcome discarded; a terminal task acks without change', async () => {
  const { setup, tools, seen, release } = fixtures();
  const s = await start(setup, { tools });
  const created = await s.call('tools/call', { name: 'job', arguments: {} });
  await tick();
  const ack = await s.call('tasks/cancel', { taskId: created.taskId });
  assert.equal(ack, { resultType: 'complete' });
  assert.is(seen.aborted, true);
  const cancelled = await s.call('tasks/get', { taskId: created.taskId });
  assert.is(cancelled.status, 'cancelled');
  assert.is(cancelled.statusMessage, 'The task was cancelled by request.');
  release();
  await tick(20);
  const later = await s.call('tasks/get', { taskId: created.taskId });
  assert.equal(later, cancelled);
  assert.equal(await s.call('tasks/cancel', { taskId: created.taskId }), { resultType: 'complete' });
  assert.equal(await s.call('tasks/get', { taskId: created.taskId }), cancelled);
  await s.close();
});

test('input through a task: both keys listed, a partial answer keeps input_required with the rest, unknown keys ignored, invalid answers -32602, reused keys refused', async () => {
  const { setup, tools } = fixtures();
  const s = await start(setup, { tools });
  const taskId = String((await s.call('tools/call', { name: 'ask', arguments: {} })).taskId);
  const parked = await s.until(taskId, (t) => t.status === 'input_required');
  assert.equal(parked.inputRequests, { who: askName, sure: askOk });
  assert.equal(
    await s.call('tasks/update', {
      taskId,
      inputResponses: { who: { action: 'accept', content: { name: 'Ada' } }, never_asked: { action: 'accept' } },
    }),
    { resultType: 'complete' },
  );
  const partial = await s.call('tasks/get', { taskId });
  assert.is(partial.status, 'input_required');
  assert.equal(partial.inputRequests, { sure: askOk });
  const invalid = await s.send('tasks/update', { taskId, inputResponses: { sure: { action: 'maybe' } } });
  assert.is(invalid.error?.code, ErrorCode.InvalidParams);
  assert.equal((await s.call('tasks/get', { taskId })).inputRequests, { sure: askOk });
  await s.call('tasks/update', { taskId, inputResponses: { sure: { action: 'accept', content: { ok: true } } } });
  const after = await s.call('tasks/get', { taskId });
  assert.ok(after.status === 'working' || after.status === 'completed', String(after.status));
  assert.is('inputRequests' in after, false);
  const done = await s.until(taskId);
  assert.equal(done.result, {
    resultType: 'complete',
    content: [{ type: 'text', text: 'Ada ok=true reuse=TypeError' }],
  });
  await s.close();
});

test('input needing a capability the request did not declare: the task fails with -32021', async () => {
  const { setup, tools } = fixtures();
  const s = await start(setup, { tools });
  const caps = { extensions: { [TASKS_EXTENSION]: {} } };
  const created = await s.call('tools/call', { name: 'ask', arguments: {} }, caps);
  const t = await s.until(String(created.taskId));
  assert.is(t.status, 'failed');
  assert.is((t.error as { code: number }).code, -32021);
  assert.equal((t.error as { data: unknown }).data, { requiredCapabilities: { elicitation: {} } });
  await s.close();
});

test('ttlMs: the task expires (-32602 "Task has expired") and its work is aborted', async () => {
  const { setup, tools, seen } = fixtures();
  const s = await start(setup, { tools, ttlMs: 60, pollIntervalMs: 25 });
  const created = await s.call('tools/call', { name: 'job', arguments: {} });
  assert.is(created.ttlMs, 60);
  assert.is(created.pollIntervalMs, 25);
  await tick(120);
  const r = await s.send('tasks/get', { taskId: created.taskId });
  assert.is(r.error?.code, ErrorCode.InvalidParams);
  assert.is(r.error?.message, 'Failed to retrieve task: Task has expired');
  assert.is(seen.aborted, true);
  await s.close();
});

test('maxActiveTasks: past the limit the work runs inline; inline work has no taskId and cannot ask through a task', async () => {
  const { setup, tools, seen, release } = fixtures();
  const s = await start(setup, { tools, maxActiveTasks: 1 });
  const first = await s.call('tools/call', { name: 'job', arguments: {} });
  assert.is(first.resultType, 'task');
  const second = s.call('tools/call', { name: 'job', arguments: {} });
  await tick(10);
  release();
  assert.equal(await second, { resultType: 'complete', content: [{ type: 'text', text: 'job done' }] });
  assert.equal(seen.taskIds, [first.taskId, undefined]);
  const inline = await s.call('tools/call', { name: 'ask', arguments: {} }, WITHOUT_TASKS);
  assert.is(inline.isError, true);
  assert.match(String((inline.content as Array<{ text: string }>)[0].text), /task\.input outside a task/);
  await s.close();
});

test('statusMessage: set by the work while it runs, cleared on completion; inline work cannot set one', async () => {
  const { setup, tools, seen, release } = fixtures();
  const s = await start(setup, { tools });
  const taskId = String((await s.call('tools/call', { name: 'note', arguments: {} })).taskId);
  const noted = await s.until(taskId, (t) => t.statusMessage === 'halfway');
  assert.is(noted.status, 'working');
  assert.is(noted.statusMessage, 'halfway');
  assert.ok(String(noted.lastUpdatedAt) >= String(noted.createdAt));
  release();
  const done = await s.until(taskId);
  assert.is(done.status, 'completed');
  assert.is('statusMessage' in done, false);
  assert.equal(await s.call('tools/call', { name: 'note', arguments: {} }, WITHOUT_TASKS), {
    resultType: 'complete',
    content: [{ type: 'text', text: 'noted' }],
  });
  assert.equal(seen.notes, [true, false]);
  await s.close();
});

test('extensionMethods: a stateless server answers tasks/get only when the method is declared as an extension method', async () => {
  for (const extensionMethods of [undefined, ['tasks/get']]) {
    const server = new Server({
      serverInfo: { name: 's', version: '1' },
      handlers: { 'tasks/get': () => ({ resultType: 'complete', taskId: 't', status: 'working' }) } as never,
      extensionMethods,
    });
    const [a, b] = createMemoryPair();
    await server.connect(b);
    const r = await (await rawClient(a)).send('tasks/get', { taskId: 't' });
    if (extensionMethods) assert.equal(r.result, { resultType: 'complete', taskId: 't', status: 'working' });
    else assert.is(r.error?.code, ErrorCode.MethodNotFound);
    await server.close();
  }
});

test('options: ttlMs and pollIntervalMs must be positive integers of ms (ttlMs may be null)', () => {
  const t = table as ProtocolTable;
  for (const bad of [0, -1, 1.5, Number.NaN])
    assert.throws(() => new TasksExtension({ table: t, ttlMs: bad }), RangeError);
  assert.throws(() => new TasksExtension({ table: t, pollIntervalMs: 0 }), RangeError);
  new TasksExtension({ table: t, ttlMs: null }).close();
  assert.equal(new TasksExtension({ table: t }).capabilities({ extensions: { 'io.example/other': { a: 1 } } }), {
    extensions: { 'io.example/other': { a: 1 }, [TASKS_EXTENSION]: {} },
  });
});

test('Streamable HTTP: Mcp-Name of tasks/get, tasks/update and tasks/cancel mirrors params.taskId (-32020 otherwise)', () => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
    const msg = { jsonrpc: '2.0', id: 1, method, params: { taskId: 't-1', _meta: meta } };
    const h = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
    assert.is(checkRequestHeaders(msg, { ...h, 'mcp-name': 't-1' }), undefined);
    assert.is(checkRequestHeaders(msg, { ...h, 'mcp-name': 't-2' })?.code, ErrorCode.HeaderMismatch);
    assert.is(checkRequestHeaders(msg, h)?.code, ErrorCode.HeaderMismatch);
  }
});

test.run();
