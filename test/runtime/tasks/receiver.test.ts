import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../../generated/2025-11-25/index.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { attachTaskReceiver, TaskReceiverSetupError, taskOf } from '../../../runtime/tasks/receiver.js';
import { InMemoryTaskStore, type Task } from '../../../runtime/stores/tasks.js';
import type { RequestContext } from '../../../runtime/engine/peer.js';
import { ISO, RELATED, fixture, rejection, sleep, statusNotifications } from './support.js';

type Obj = Record<string, unknown>;

test('capabilities: the server declares tasks.list, tasks.cancel and tasks.requests.tools.call', async () => {
  const f = await fixture();
  assert.equal(f.client.server!.capabilities.tasks, { requests: { tools: { call: {} } }, list: {}, cancel: {} });
  assert.equal(f.client.server!.capabilities.tools, {});
  await f.close();
});

test('capabilities: list and cancel can be left out; the engine then answers -32601', async () => {
  const f = await fixture({ list: false, cancel: false });
  assert.equal(f.client.server!.capabilities.tasks, { requests: { tools: { call: {} } } });
  const created = (await f.client.peer.request('tools/call', { name: 'long_job', arguments: { ms: 1 }, task: {} })) as {
    task: Task;
  };
  assert.is((await rejection(f.client.peer.request('tasks/list', {}))).code, -32601);
  assert.is((await rejection(f.client.peer.request('tasks/cancel', { taskId: created.task.taskId }))).code, -32601);
  await f.close();
});

test('attach after connect is refused; an unknown method is refused', async () => {
  const [, b] = createMemoryPair();
  const server = new Server({
    serverInfo: { name: 's', version: '1' },
    handlers: { 'tools/call': () => ({ content: [] }) },
  });
  assert.throws(
    () => attachTaskReceiver(server, { methods: ['tools/list'] }),
    (e: unknown) => e instanceof TaskReceiverSetupError,
  );
  await server.connect(b);
  assert.throws(
    () => attachTaskReceiver(server),
    (e: unknown) => e instanceof TaskReceiverSetupError,
  );
  await server.close();
});

test('tools/call with task: CreateTaskResult at once, then polling, result with related-task _meta', async () => {
  const f = await fixture();
  const created = (await f.client.peer.request('tools/call', {
    name: 'long_job',
    arguments: { ms: 60 },
    task: { ttl: 60_000 },
  })) as Obj & { task: Task };
  const t = created.task;
  assert.is(t.status, 'working');
  assert.type(t.taskId, 'string');
  assert.match(t.createdAt, ISO);
  assert.match(t.lastUpdatedAt, ISO);
  assert.is(t.ttl, 60_000);
  assert.is(t.pollInterval, 20);
  assert.equal((created._meta as Obj)[RELATED], { taskId: t.taskId });
  assert.is(f.finished.length, 0, 'answered before the work ran');
  const polled = await f.client.getTask({ taskId: t.taskId });
  assert.is(polled.status, 'working');
  assert.not.ok('_meta' in polled, 'tasks/get carries no related-task _meta');
  await sleep(120);
  const done = await f.client.getTask({ taskId: t.taskId });
  assert.is(done.status, 'completed');
  const result = await f.client.getTaskPayload({ taskId: t.taskId });
  assert.equal(result.content, [{ type: 'text', text: 'slept 60' }]);
  assert.equal((result._meta as Obj)[RELATED], { taskId: t.taskId });
  await f.close();
});

test('tasks/result blocks until completed, failed (JSON-RPC error) and cancelled', async () => {
  const f = await fixture();
  const start = async (name: string, args: Obj = {}) =>
    ((await f.client.peer.request('tools/call', { name, arguments: args, task: {} })) as { task: Task }).task.taskId;
  const ok = await start('long_job', { ms: 50 });
  const t0 = Date.now();
  const r = (await f.client.getTaskPayload({ taskId: ok })) as Obj;
  assert.ok(Date.now() - t0 >= 30, 'waited for the work');
  assert.equal(r.content, [{ type: 'text', text: 'slept 50' }]);

  const bad = await start('fails');
  const err = await rejection(f.client.getTaskPayload({ taskId: bad }));
  assert.is(err.code, -32050, 'the underlying JSON-RPC error, as the request would have answered');
  assert.is(err.message, 'backend unavailable');
  assert.equal(err.data, { retry: true });
  const failed = await f.client.getTask({ taskId: bad });
  assert.is(failed.status, 'failed');
  assert.is(failed.statusMessage, 'backend unavailable');

  const slow = await start('long_job', { ms: 5_000 });
  const pending = rejection(f.client.getTaskPayload({ taskId: slow }));
  await sleep(30);
  await f.client.cancelTask({ taskId: slow });
  const cancelled = await pending;
  assert.is(cancelled.code, -32602);
  assert.match(cancelled.message, /cancelled/);
  await f.close();
});

test('tool result with isError: the task fails, tasks/result returns that result', async () => {
  const f = await fixture();
  const { task } = (await f.client.peer.request('tools/call', { name: 'tool_error', arguments: {}, task: {} })) as {
    task: Task;
  };
  const r = (await f.client.getTaskPayload({ taskId: task.taskId })) as Obj;
  assert.is(r.isError, true);
  const t = await f.client.getTask({ taskId: task.taskId });
  assert.is(t.status, 'failed');
  assert.match(t.statusMessage!, /rate limit/);
  await f.close();
});

test('tool-level negotiation: required without task and forbidden/absent with task are -32601', async () => {
  const f = await fixture();
  const listed = await f.client.listTools();
  const support = Object.fromEntries(listed.tools.map((t) => [t.name, t.execution?.taskSupport]));
  assert.is(support.long_job, 'optional', 'listed by the handler');
  assert.is(support.must_task, 'required', 'added from the receiver option');
  assert.is(support.plain, undefined);
  const required = await rejection(f.client.callTool({ name: 'must_task', arguments: {} }));
  assert.is(required.code, -32601);
  assert.match(required.message, /requires task/);
  const forbidden = await rejection(f.client.peer.request('tools/call', { name: 'plain', arguments: {}, task: {} }));
  assert.is(forbidden.code, -32601);
  assert.equal((await f.client.callTool({ name: 'plain', arguments: {} })).content, [
    { type: 'text', text: 'ran plain' },
  ]);
  assert.equal(
    (await f.client.callTool({ name: 'long_job', arguments: { ms: 1 } })).content,
    [{ type: 'text', text: 'slept 1' }],
    'optional: plain call works',
  );
  const viaTask = (await f.client.peer.request('tools/call', { name: 'must_task', arguments: {}, task: {} })) as {
    task: Task;
  };
  assert.is(viaTask.task.status, 'working');
  await f.close();
});

test('taskSupport is learned from tools/list when no option names the tool', async () => {
  const f = await fixture({ tools: {} });
  // long_job lists execution.taskSupport "optional" itself; no tools/list was called yet
  const created = (await f.client.peer.request('tools/call', { name: 'long_job', arguments: { ms: 1 }, task: {} })) as {
    task: Task;
  };
  assert.is(created.task.status, 'working');
  assert.is(
    (await rejection(f.client.peer.request('tools/call', { name: 'must_task', arguments: {}, task: {} }))).code,
    -32601,
  );
  await f.close();
});

test('ttl policy: capped at maxTtl, null when none requested, negative refused', async () => {
  const f = await fixture({ maxTtl: 1_000 });
  const call = async (task: Obj) =>
    ((await f.client.peer.request('tools/call', { name: 'long_job', arguments: { ms: 1 }, task })) as { task: Task })
      .task;
  assert.is((await call({ ttl: 60_000 })).ttl, 1_000);
  assert.is((await call({ ttl: 500 })).ttl, 500);
  assert.is((await call({})).ttl, null);
  assert.is((await rejection(call({ ttl: -5 }))).code, -32602);
  await f.close();
  const g = await fixture({ defaultTtl: 30_000 });
  assert.is(
    (
      (await g.client.peer.request('tools/call', { name: 'long_job', arguments: { ms: 1 }, task: {} })) as {
        task: Task;
      }
    ).task.ttl,
    30_000,
  );
  await g.close();
});

test('ttl expiry: an expired task is gone (-32602 "expired"), its handler aborted, a waiting tasks/result answered', async () => {
  const f = await fixture();
  const { task } = (await f.client.peer.request('tools/call', {
    name: 'long_job',
    arguments: { ms: 5_000 },
    task: { ttl: 40 },
  })) as { task: Task };
  const waiting = rejection(f.client.getTaskPayload({ taskId: task.taskId }));
  const err = await waiting;
  assert.is(err.code, -32602);
  assert.match(err.message, /expired/);
  const gone = await rejection(f.client.getTask({ taskId: task.taskId }));
  assert.is(gone.code, -32602);
  assert.match(gone.message, /Task has expired/);
  assert.equal((await f.client.listTasks()).tasks, []);
  await sleep(20);
  assert.equal(f.finished, [], 'the handler was aborted');
  await f.close();
});

test('maxActiveTasks: one more running task per owner is -32600; a finished one frees its place', async () => {
  const f = await fixture({ maxActiveTasks: 2 });
  const call = (ms: number) =>
    f.client.peer.request('tools/call', { name: 'long_job', arguments: { ms }, task: {} }) as Promise<{ task: Task }>;
  const short = await call(20);
  await call(5_000);
  const err = await rejection(call(1));
  assert.is(err.code, -32600);
  assert.match(err.message, /Too many active tasks/);
  await f.client.getTaskPayload({ taskId: short.task.taskId });
  await sleep(5);
  assert.is((await call(1)).task.status, 'working');
  await f.close();
});

test("tasks/list: paginated, only this session's tasks, bad cursor -32602", async () => {
  const f = await fixture({ pageSize: 2 });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++)
    ids.push(
      (
        (await f.client.peer.request('tools/call', { name: 'long_job', arguments: { ms: 1 }, task: {} })) as {
          task: Task;
        }
      ).task.taskId,
    );
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await f.client.listTasks(cursor === undefined ? {} : { cursor });
    assert.ok(page.tasks.length <= 2);
    seen.push(...page.tasks.map((t) => t.taskId));
    cursor = page.nextCursor;
  } while (cursor);
  assert.equal(seen, ids);
  assert.is((await rejection(f.client.listTasks({ cursor: 'not-a-cursor' }))).code, -32602);
  await f.close();
});

test("isolation: two sessions sharing a store never see each other's tasks", async () => {
  const store = new InMemoryTaskStore();
  const a = await fixture({ store });
  const b = await fixture({ store });
  const { task } = (await a.client.peer.request('tools/call', {
    name: 'long_job',
    arguments: { ms: 5_000 },
    task: {},
  })) as { task: Task };
  assert.is((await a.client.getTask({ taskId: task.taskId })).status, 'working');
  for (const p of [
    b.client.getTask({ taskId: task.taskId }),
    b.client.getTaskPayload({ taskId: task.taskId }),
    b.client.cancelTask({ taskId: task.taskId }),
  ]) {
    const e = await rejection(p);
    assert.is(e.code, -32602);
    assert.match(e.message, /not found/);
  }
  assert.equal((await b.client.listTasks()).tasks, []);
  assert.is((await a.client.listTasks()).tasks.length, 1);
  assert.is((await a.client.getTask({ taskId: task.taskId })).status, 'working', 'untouched by the other session');
  await a.client.cancelTask({ taskId: task.taskId });
  await a.close();
  await b.close();
});

test('isolation by owner(ctx): the same owner across sessions shares, another does not', async () => {
  const store = new InMemoryTaskStore();
  const owner = (name: string) => () => name;
  const a = await fixture({ store, owner: owner('alice') });
  const a2 = await fixture({ store, owner: owner('alice') });
  const bob = await fixture({ store, owner: owner('bob') });
  const { task } = (await a.client.peer.request('tools/call', {
    name: 'long_job',
    arguments: { ms: 1 },
    task: {},
  })) as { task: Task };
  assert.equal((await a2.client.getTaskPayload({ taskId: task.taskId })).content, [{ type: 'text', text: 'slept 1' }]);
  assert.is((await rejection(bob.client.getTask({ taskId: task.taskId }))).code, -32602);
  for (const f of [a, a2, bob]) await f.close();
});

test('status notifications: full Task on each change, no related-task _meta', async () => {
  const f = await fixture();
  const { task } = (await f.client.peer.request('tools/call', {
    name: 'long_job',
    arguments: { ms: 10 },
    task: { ttl: 5_000 },
  })) as { task: Task };
  await f.client.getTaskPayload({ taskId: task.taskId });
  await sleep(10);
  const sent = statusNotifications(f, task.taskId);
  assert.equal(
    sent.map((n) => n.status),
    ['completed'],
  );
  for (const n of sent) {
    assert.is(n.ttl, 5_000);
    assert.match(String(n.createdAt), ISO);
    assert.match(String(n.lastUpdatedAt), ISO);
    assert.not.ok('_meta' in n);
  }
  await f.close();
  const quiet = await fixture({ notifyStatus: false });
  const q = (await quiet.client.peer.request('tools/call', { name: 'long_job', arguments: { ms: 1 }, task: {} })) as {
    task: Task;
  };
  await quiet.client.getTaskPayload({ taskId: q.task.taskId });
  assert.equal(statusNotifications(quiet), []);
  await quiet.close();
});

test('input_required: a request on behalf of the task carries related-task _meta; working again after it', async () => {
  const seen: Obj[] = [];
  const f = await fixture(
    {},
    {
      clientInfo: { name: 'c', version: '0' },
      capabilities: { elicitation: { form: {} } },
      handlers: {
        'elicitation/create': async (p) => {
          seen.push(p as Obj);
          await sleep(40);
          return { action: 'accept', content: { name: 'Ada' } };
        },
      },
    },
  );
  const { task } = (await f.client.peer.request('tools/call', { name: 'asks', arguments: {}, task: {} })) as {
    task: Task;
  };
  await sleep(20);
  assert.is((await f.client.getTask({ taskId: task.taskId })).status, 'input_required');
  const r = await f.client.getTaskPayload({ taskId: task.taskId });
  assert.equal(r.content, [{ type: 'text', text: 'hello Ada' }]);
  assert.equal((seen[0]._meta as Obj)[RELATED], { taskId: task.taskId });
  assert.equal(
    statusNotifications(f, task.taskId).map((n) => n.status),
    ['input_required', 'working', 'completed'],
  );
  await f.close();
});

test('a method the receiver did not declare for tasks is processed normally, params.task ignored', async () => {
  const [a, b] = createMemoryPair();
  const server = new Server({ serverInfo: { name: 's', version: '1' } });
  await server.connect(b);
  const client = new Client({
    clientInfo: { name: 'c', version: '0' },
    capabilities: { sampling: {}, elicitation: { form: {} } },
    handlers: {
      'sampling/createMessage': () => ({ role: 'assistant', content: { type: 'text', text: 's' }, model: 'm' }),
      'elicitation/create': (p) => ({ action: 'accept', content: { echoed: 'task' in p ? 'with task' : 'without' } }),
    },
  });
  const receiver = attachTaskReceiver(client, { methods: ['sampling/createMessage'] });
  await client.connect(a);
  assert.equal(server.client!.capabilities.tasks, {
    requests: { sampling: { createMessage: {} } },
    list: {},
    cancel: {},
  });
  const r = (await server.peer.request('elicitation/create', {
    mode: 'form',
    message: 'x',
    requestedSchema: { type: 'object', properties: {} },
    task: {},
  })) as Obj;
  assert.is(r.action, 'accept', 'a plain ElicitResult, no CreateTaskResult');
  assert.not.ok('task' in r);
  const s = (await server.peer.request('sampling/createMessage', { messages: [], maxTokens: 1, task: {} })) as {
    task: Task;
  };
  assert.is(s.task.status, 'working');
  receiver.close();
  await client.close();
});

test('progress: the original progressToken stays valid for the task; taskOf(ctx) sets statusMessage', async () => {
  const [a, b] = createMemoryPair();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const server = new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: { tools: {} },
    handlers: {
      'tools/call': async (_p, ctx: RequestContext) => {
        const t = taskOf(ctx)!;
        await t.setStatusMessage('step 1 of 2');
        await ctx.sendProgress(1, 2);
        await gate;
        await ctx.sendProgress(2, 2);
        return { content: [] };
      },
    },
  });
  const receiver = attachTaskReceiver(server, { tools: () => 'optional' });
  await server.connect(b);
  const client = new Client({ clientInfo: { name: 'c', version: '0' } });
  await client.connect(a);
  const progress: number[] = [];
  client.peer.onProgressToken('tok', (p) => progress.push(p.progress));
  const { task } = (await client.peer.request('tools/call', {
    name: 'x',
    arguments: {},
    task: {},
    _meta: { progressToken: 'tok' },
  })) as { task: Task };
  await sleep(20);
  assert.is((await client.getTask({ taskId: task.taskId })).statusMessage, 'step 1 of 2');
  release();
  await client.getTaskPayload({ taskId: task.taskId });
  await sleep(10);
  assert.equal(progress, [1, 2]);
  receiver.close();
  await client.close();
});

test.run();
