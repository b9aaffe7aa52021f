/**
 * Case 020 (shared/cases/020-tasks-terminal-cancel.md): terminal states are final, cancel of a
 * terminal task is -32602, a blocked tasks/result always returns, `ttl` is always present.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { callWithTask } from '../../../runtime/tasks/requestor.js';
import type { Task } from '../../../runtime/stores/tasks.js';
import { ISO, RELATED, fixture, rejection, sleep, statusNotifications, waitFor } from './support.js';

type Obj = Record<string, unknown>;

test('020 server: the whole script (T1 completes, T2 cancelled while tasks/result blocks, unknown task and cursor)', async () => {
  // the case's policy: ttl from the request capped at 3,600,000; none → null (the receiver's defaults)
  const f = await fixture({ tools: {} });
  const c = f.client.peer;
  assert.equal(f.client.server!.capabilities.tasks, { requests: { tools: { call: {} } }, list: {}, cancel: {} });
  // 1
  const r1 = (await c.request('tools/call', { name: 'long_job', arguments: { ms: 50 }, task: { ttl: 60_000 } })) as {
    task: Task;
  };
  const T1 = r1.task.taskId;
  assert.is(r1.task.status, 'working');
  assert.type(T1, 'string');
  assert.match(r1.task.createdAt, ISO);
  assert.match(r1.task.lastUpdatedAt, ISO);
  assert.is(r1.task.ttl, 60_000);
  // the 50 ms job has ended: the server sent T1's terminal status
  await waitFor('T1 completed', () => statusNotifications(f, T1).some((n) => n.status === 'completed'));
  // 2
  const r2 = (await c.request('tasks/get', { taskId: T1 })) as Task;
  assert.is(r2.status, 'completed');
  // 3
  const e3 = await rejection(c.request('tasks/cancel', { taskId: T1 }));
  assert.is(e3.code, -32602);
  assert.match(e3.message, /terminal status 'completed'/);
  // 4
  const r4 = (await c.request('tasks/get', { taskId: T1 })) as Task;
  assert.is(r4.status, 'completed');
  assert.is(r4.lastUpdatedAt, r2.lastUpdatedAt, 'the rejected cancel changed nothing');
  // 5
  const r5 = (await c.request('tools/call', { name: 'long_job', arguments: { ms: 60_000 }, task: {} })) as {
    task: Task;
  };
  const T2 = r5.task.taskId;
  assert.is(r5.task.status, 'working');
  assert.ok('ttl' in r5.task, 'ttl present');
  assert.is(r5.task.ttl, null);
  const wire5 = f.wire.find(
    (w) => w.dir === 'out' && (w.message as { result?: { task?: Task } }).result?.task?.taskId === T2,
  )!;
  assert.ok(JSON.stringify(wire5.message).includes('"ttl":null'), 'null on the wire, not omitted');
  // 6 (blocks)
  let settled = false;
  const p6 = rejection(c.request('tasks/result', { taskId: T2 })).finally(() => (settled = true));
  // a request sent after it has been answered: a tasks/result answered at once would have been too
  assert.is(((await c.request('tasks/get', { taskId: T2 })) as Task).status, 'working');
  assert.not.ok(settled, 'tasks/result blocks while working');
  // 7
  const r7 = (await c.request('tasks/cancel', { taskId: T2 })) as Task;
  assert.is(r7.status, 'cancelled');
  assert.is(r7.statusMessage, 'The task was cancelled by request.');
  // 6 returns promptly, with the pinned error
  const t0 = Date.now();
  const e6 = await p6;
  assert.ok(Date.now() - t0 < 500, 'no hang after cancel');
  assert.is(e6.code, -32602);
  assert.is(e6.message, 'Task was cancelled');
  // 8
  assert.is(((await c.request('tasks/get', { taskId: T2 })) as Task).status, 'cancelled');
  // 9
  assert.is((await rejection(c.request('tasks/cancel', { taskId: T2 }))).code, -32602);
  // 10, 11
  const e10 = await rejection(c.request('tasks/get', { taskId: 'no-such-task' }));
  assert.is(e10.code, -32602);
  assert.match(e10.message, /not found/);
  assert.is((await rejection(c.request('tasks/list', { cursor: 'not-a-cursor' }))).code, -32602);
  // every status notification: the full Task with ttl, no related-task _meta
  await waitFor('T2 cancelled', () => statusNotifications(f, T2).some((n) => n.status === 'cancelled'));
  const notes = statusNotifications(f);
  assert.equal(
    notes.map((n) => [n.taskId, n.status]),
    [
      [T1, 'completed'],
      [T2, 'cancelled'],
    ],
  );
  for (const n of notes) {
    for (const k of ['taskId', 'status', 'createdAt', 'lastUpdatedAt', 'ttl']) assert.ok(k in n, `${k} present`);
    assert.not.ok('_meta' in n);
  }
  assert.equal(f.finished, ['50'], 'the 60 s job was aborted');
  await f.close();
});

test('020 server: a cancelled task stays cancelled when its work later completes', async () => {
  const f = await fixture({ tools: {} });
  const c = f.client.peer;
  const { task } = (await c.request('tools/call', { name: 'stubborn', arguments: { ms: 80 }, task: {} })) as {
    task: Task;
  };
  await sleep(10);
  const cancelled = (await c.request('tasks/cancel', { taskId: task.taskId })) as Task;
  await waitFor('the stubborn work to end', () => f.finished.length > 0);
  assert.equal(f.finished, ['stubborn 80 aborted=true'], 'the work ran to its end, with its signal aborted');
  const after = (await c.request('tasks/get', { taskId: task.taskId })) as Task;
  assert.is(after.status, 'cancelled');
  assert.is(after.lastUpdatedAt, cancelled.lastUpdatedAt);
  assert.is((await rejection(c.request('tasks/result', { taskId: task.taskId }))).code, -32602);
  assert.equal(
    statusNotifications(f, task.taskId).map((n) => n.status),
    ['cancelled'],
  );
  await f.close();
});

test('020 server: a completed result carries the related-task _meta', async () => {
  const f = await fixture({ tools: {} });
  const { task } = (await f.client.peer.request('tools/call', {
    name: 'long_job',
    arguments: { ms: 1 },
    task: {},
  })) as { task: Task };
  const r = (await f.client.peer.request('tasks/result', { taskId: task.taskId })) as Obj;
  assert.equal((r._meta as Obj)[RELATED], { taskId: task.taskId });
  await f.close();
});

test('020 client: polls no faster than pollInterval, stops at the terminal status, polls again after a tasks/result error', async () => {
  const f = await fixture({ tools: {}, pollInterval: 40, notifyStatus: false });
  const gets: number[] = [];
  const orig = f.client.peer.request.bind(f.client.peer);
  f.client.peer.request = ((m: string, p?: never, o?: never) => (
    m === 'tasks/get' && gets.push(Date.now()), orig(m, p, o)
  )) as typeof f.client.peer.request;
  const handle = await callWithTask(f.client, 'tools/call', { name: 'long_job', arguments: { ms: 200 } }, { task: {} });
  const result = await handle.result({ timeout: 50 });
  assert.equal(result.content, [{ type: 'text', text: 'slept 200' }]);
  assert.ok(gets.length >= 2, 'went back to tasks/get after the tasks/result timeout');
  for (let i = 1; i < gets.length; i++) assert.ok(gets[i] - gets[i - 1] >= 38, `gap ${gets[i] - gets[i - 1]} ms`);
  const count = gets.length;
  await sleep(150);
  assert.is(gets.length, count, 'no polling after the terminal status');
  const statuses: string[] = [];
  for await (const t of handle.updates()) statuses.push(t.status);
  assert.equal(statuses, ['completed'], 'a terminal handle yields once and ends');
  await f.close();
});

test.run();
