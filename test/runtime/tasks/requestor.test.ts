import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server } from '../../../generated/2025-11-25/index.js';
import type { CallToolResult, CreateMessageResult } from '../../../generated/2025-11-25/index.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { attachTaskReceiver } from '../../../runtime/tasks/receiver.js';
import { TaskNotSupportedError, callWithTask } from '../../../runtime/tasks/requestor.js';
import { TaskHandle } from '../../../runtime/tasks/handle.js';
import type { Task, TaskStatus } from '../../../runtime/stores/tasks.js';
import { fixture, rejection, sleep } from './support.js';

const requests = (f: Awaited<ReturnType<typeof fixture>>, method: string) =>
  f.wire.filter((w) => w.dir === 'in' && (w.message as { method?: string }).method === method);

test('callWithTask: a typed handle; updates() polls at pollInterval and ends at completed; result() is the CallToolResult', async () => {
  const f = await fixture({ notifyStatus: false, pollInterval: 25 });
  const handle = await callWithTask(
    f.client,
    'tools/call',
    { name: 'long_job', arguments: { ms: 120 } },
    { task: { ttl: 60_000 } },
  );
  assert.instance(handle, TaskHandle);
  assert.is(handle.task.status, 'working');
  assert.is(handle.task.ttl, 60_000);
  assert.is(handle.pollInterval, 25);
  const statuses: TaskStatus[] = [];
  for await (const t of handle.updates()) statuses.push(t.status);
  assert.equal(statuses, ['working', 'completed']);
  const gets = requests(f, 'tasks/get').length;
  assert.ok(gets >= 2 && gets <= 7, `polled ${gets} times over ~120 ms at 25 ms`);
  const result: CallToolResult = await handle.result();
  assert.equal(result.content, [{ type: 'text', text: 'slept 120' }]);
  assert.is(handle.task.status, 'completed');
  await f.close();
});

test('updates(): polls no faster than pollInterval (gaps between tasks/get)', async () => {
  const f = await fixture({ notifyStatus: false, pollInterval: 30 });
  const times: number[] = [];
  const orig = f.client.peer.request.bind(f.client.peer);
  f.client.peer.request = ((m: string, p?: never, o?: never) => (
    m === 'tasks/get' && times.push(Date.now()), orig(m, p, o)
  )) as typeof f.client.peer.request;
  const handle = await callWithTask(f.client, 'tools/call', { name: 'long_job', arguments: { ms: 150 } }, { task: {} });
  const last = await handle.wait();
  assert.is(last.status, 'completed');
  for (let i = 1; i < times.length; i++) assert.ok(times[i] - times[i - 1] >= 28, `gap ${times[i] - times[i - 1]} ms`);
  await f.close();
});

test('updates(): status notifications are used when they come (input_required, working, completed)', async () => {
  const f = await fixture(
    { pollInterval: 10_000 },
    {
      clientInfo: { name: 'c', version: '0' },
      capabilities: { elicitation: { form: {} } },
      handlers: { 'elicitation/create': async () => (await sleep(30), { action: 'accept', content: { name: 'Ada' } }) },
    },
  );
  const handle = await callWithTask(f.client, 'tools/call', { name: 'asks', arguments: {} }, { task: {} });
  const statuses: string[] = [];
  const t0 = Date.now();
  for await (const t of handle.updates()) statuses.push(t.status);
  assert.equal(statuses, ['working', 'input_required', 'working', 'completed']);
  assert.ok(Date.now() - t0 < 2_000, 'did not wait for a 10 s poll');
  assert.is(requests(f, 'tasks/get').length, 0);
  assert.equal((await handle.result()).content, [{ type: 'text', text: 'hello Ada' }]);
  await f.close();
});

test('client.callTool(params, { task }) resolves with the final result; onTask gets the handle; progress keeps flowing', async () => {
  const f = await fixture();
  let handle: TaskHandle<unknown> | undefined;
  const progress: number[] = [];
  const result = await f.client.callTool(
    { name: 'long_job', arguments: { ms: 30 } },
    {
      task: { ttl: 10_000 },
      onTask: (h) => (handle = h),
      onProgress: (p) => progress.push(p.progress),
    },
  );
  assert.equal(result.content, [{ type: 'text', text: 'slept 30' }]);
  assert.ok(handle);
  assert.is((await handle!.status()).status, 'completed');
  assert.equal(progress, [1]);
  await callWithTask(f.client, 'tools/call', { name: 'long_job', arguments: { ms: 1 } }, { ttl: 5_000 });
  const sent = requests(f, 'tools/call').map(
    (w) => (w.message as unknown as { params: { task?: unknown } }).params.task,
  );
  assert.equal(sent, [{ ttl: 10_000 }, { ttl: 5_000 }], 'task, and the ttl shorthand');
  await f.close();
});

test('cancel(): the handle reports cancelled; result() rejects -32602; a second cancel rejects -32602', async () => {
  const f = await fixture();
  const handle = await callWithTask(
    f.client,
    'tools/call',
    { name: 'long_job', arguments: { ms: 5_000 } },
    { task: {} },
  );
  const pending = rejection(handle.result());
  await sleep(20);
  const t = await handle.cancel();
  assert.is(t.status, 'cancelled');
  assert.is(handle.task.status, 'cancelled');
  const err = await pending;
  assert.is(err.code, -32602);
  assert.is((await rejection(handle.cancel())).code, -32602);
  const statuses: string[] = [];
  for await (const u of handle.updates()) statuses.push(u.status);
  assert.equal(statuses, ['cancelled']);
  await f.close();
});

test('result(): failed task rejects with the underlying JSON-RPC error', async () => {
  const f = await fixture();
  const handle = await callWithTask(f.client, 'tools/call', { name: 'fails', arguments: {} }, { task: {} });
  const err = await rejection(handle.result());
  assert.is(err.code, -32050);
  assert.is((await handle.status()).status, 'failed');
  await f.close();
});

test('result(): after a tasks/result timeout it polls tasks/get until terminal, then asks again', async () => {
  const f = await fixture({ pollInterval: 20, notifyStatus: false });
  const handle = await callWithTask(f.client, 'tools/call', { name: 'long_job', arguments: { ms: 150 } }, { task: {} });
  const r = await handle.result({ timeout: 40 });
  assert.equal(r.content, [{ type: 'text', text: 'slept 150' }]);
  assert.ok(requests(f, 'tasks/get').length >= 2, 'polled in between');
  assert.ok(requests(f, 'tasks/result').length >= 2, 'asked again');
  await f.close();
});

test('capability: no tasks.requests.tools.call declared → TaskNotSupportedError, nothing sent', async () => {
  const [a, b] = createMemoryPair();
  await new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: { tools: {} },
    handlers: { 'tools/call': () => ({ content: [] }) },
  }).connect(b);
  const client = new Client({ clientInfo: { name: 'c', version: '0' } });
  await client.connect(a);
  const err = await rejection(callWithTask(client, 'tools/call', { name: 'x', arguments: {} }, { task: {} }));
  assert.instance(err, TaskNotSupportedError);
  assert.is(err.code, -32601);
  assert.instance(await rejection(client.callTool({ name: 'x' }, { task: {} })), TaskNotSupportedError);
  assert.instance(
    await rejection(callWithTask(client, 'tools/list' as 'tools/call', { name: 'x' }, {})),
    TaskNotSupportedError,
    'not task-augmentable',
  );
  await client.close();
});

test('a receiver that ignores params.task answers plainly: the handle is already completed', async () => {
  const [a, b] = createMemoryPair();
  await new Server({
    serverInfo: { name: 's', version: '1' },
    capabilities: { tools: {} },
    handlers: { 'tools/call': () => ({ content: [{ type: 'text', text: 'now' }] }) },
  }).connect(b);
  const client = new Client({ clientInfo: { name: 'c', version: '0' }, enforceCapabilities: false });
  await client.connect(a);
  const handle = await callWithTask(client, 'tools/call', { name: 'x', arguments: {} }, { task: {} });
  assert.is(handle.task.status, 'completed');
  assert.is(handle.taskId, '');
  assert.equal((await handle.result()).content, [{ type: 'text', text: 'now' }]);
  await client.close();
});

test('server as requestor: task-augmented sampling/createMessage on a client receiver', async () => {
  const [a, b] = createMemoryPair();
  const server = new Server({ serverInfo: { name: 's', version: '1' }, capabilities: {} });
  await server.connect(b);
  const client = new Client({
    clientInfo: { name: 'c', version: '0' },
    capabilities: { sampling: {} },
    handlers: {
      'sampling/createMessage': async (_p, ctx) => {
        await sleep(30);
        if (ctx.signal.aborted) throw new Error('aborted');
        return { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'm' };
      },
    },
  });
  const receiver = attachTaskReceiver(client, { pollInterval: 10 });
  assert.equal(receiver.methods, ['sampling/createMessage']);
  await client.connect(a);
  assert.equal(server.client!.capabilities.tasks, {
    requests: { sampling: { createMessage: {} } },
    list: {},
    cancel: {},
  });
  const params = {
    messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'hi' } }],
    maxTokens: 10,
  };
  const handle = await callWithTask(server, 'sampling/createMessage', params, { task: { ttl: 1_000 } });
  assert.is(handle.task.status, 'working');
  const r: CreateMessageResult = await handle.result();
  assert.equal(r.content, { type: 'text', text: 'sampled' });
  const viaOption = await server.createMessage(params, { task: {} });
  assert.is(viaOption.model, 'm');
  const listed = await server.listTasks();
  assert.is(listed.tasks.length, 2);
  assert.ok(listed.tasks.every((t: Task) => t.status === 'completed'));
  const plain = await server.createMessage(params);
  assert.is(plain.model, 'm', 'plain request still served');
  const elicit = await rejection(
    callWithTask(
      server,
      'elicitation/create',
      { mode: 'form', message: 'x', requestedSchema: { type: 'object', properties: {} } },
      { task: {} },
    ),
  );
  assert.is(elicit.code, -32601);
  receiver.close();
  await client.close();
});

test.run();
