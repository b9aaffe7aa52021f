// Guide: tasks (docs/guide/tasks.md). 2025-11-25 tasks: a task-augmented tools/call answered at
// once with a task, polled with tasks/get, its result fetched with tasks/result, one cancelled.
import assert from 'node:assert/strict';
import { RpcError, ServerFeatures, createMemoryPair } from '@mcpgen/runtime';
import {
  InMemoryTaskStore,
  TaskNotSupportedError,
  attachTaskReceiver,
  callWithTask,
  taskOf,
  type Task,
  type TaskHandle,
} from '@mcpgen/runtime/tasks';
import { Client, Server, table, type CallToolResult, type Protocol } from '../../generated/2025-11-25/index.js';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => (clearTimeout(t), reject(signal.reason));
    const t = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

// ---- the server: a slow tool that may run as a task ----
const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'render_report',
  inputSchema: { type: 'object', properties: { pages: { type: 'integer', minimum: 1 } }, required: ['pages'] },
  execution: { taskSupport: 'optional' }, // 'required': a plain call gets -32601; absent: 'forbidden'
  handler: async ({ pages }, ctx) => {
    for (let page = 1; page <= pages; page++) {
      await sleep(20, ctx.signal); // ctx.signal aborts on tasks/cancel and on the task's expiry
      await taskOf(ctx)?.setStatusMessage(`page ${page} of ${pages}`);
      await ctx.sendProgress(page, pages);
    }
    return { content: [{ type: 'text', text: `report of ${pages} pages` }] };
  },
});
const server = new Server({
  serverInfo: { name: 'reports', version: '1.0.0' },
  capabilities: features.capabilities(),
  handlers: features.handlers({ table }),
});
// before connect: declares tasks { list, cancel, requests.tools.call } and serves tasks/*
const receiver = attachTaskReceiver(server, { store: new InMemoryTaskStore(), pollInterval: 50, maxTtl: 600_000 });

// ---- the client ----
const statuses: string[] = [];
const client = new Client({
  clientInfo: { name: 'dashboard', version: '1.0.0' },
  notificationHandlers: {
    'notifications/tasks/status': (task) => void statuses.push(`${task.taskId.slice(0, 4)} ${task.status}`),
  },
});
const [a, b] = createMemoryPair();
await server.connect(b);
await client.connect(a);
assert.deepEqual(client.server?.capabilities.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });

// 1. A handle: the server answers at once with a CreateTaskResult (status working).
const handle = await callWithTask(
  client,
  'tools/call',
  { name: 'render_report', arguments: { pages: 3 } },
  { ttl: 60_000 },
);
assert.equal(handle.task.status, 'working');
assert.equal(handle.task.ttl, 60_000);
assert.equal(handle.pollInterval, 50);
const seen: string[] = [];
for await (const t of handle.updates()) seen.push(t.statusMessage ? `${t.status}: ${t.statusMessage}` : t.status);
assert.deepEqual(seen, [
  'working',
  'working: page 1 of 3',
  'working: page 2 of 3',
  'working: page 3 of 3',
  'completed: page 3 of 3',
]);
const result: CallToolResult = await handle.result(); // tasks/result
assert.deepEqual(result.content, [{ type: 'text', text: 'report of 3 pages' }]);

// 2. The same by hand: tasks/get until terminal, then tasks/result.
const created = await callWithTask(
  client,
  'tools/call',
  { name: 'render_report', arguments: { pages: 2 } },
  { task: { ttl: 30_000 } },
);
let task: Task = await client.getTask({ taskId: created.taskId });
while (task.status === 'working' || task.status === 'input_required') {
  await new Promise((r) => setTimeout(r, task.pollInterval ?? 1000));
  task = await client.getTask({ taskId: created.taskId });
}
assert.equal(task.status, 'completed');
const payload = await client.getTaskPayload({ taskId: created.taskId });
assert.deepEqual(payload.content, [{ type: 'text', text: 'report of 2 pages' }]);

// 3. One call: resolves with the tool's result when the task ends; onTask gets the handle.
let taskId = '';
const progress: number[] = [];
const whole = await client.callTool(
  { name: 'render_report', arguments: { pages: 2 } },
  {
    task: { ttl: 10_000 },
    onTask: (h: TaskHandle<unknown>) => (taskId = h.taskId),
    onProgress: (p) => progress.push(p.progress),
  },
);
assert.deepEqual(whole.content, [{ type: 'text', text: 'report of 2 pages' }]);
assert.notEqual(taskId, '');
assert.deepEqual(progress, [1, 2]);

// 4. Cancel: the handler's signal aborts; tasks/result then answers -32602.
const long = await callWithTask(
  client,
  'tools/call',
  { name: 'render_report', arguments: { pages: 1000 } },
  { ttl: 60_000 },
);
const cancelled = await long.cancel(); // tasks/cancel
assert.equal(cancelled.status, 'cancelled');
const after = await long.result().catch((e: unknown) => e);
assert.ok(after instanceof RpcError);
assert.deepEqual([after.code, after.message], [-32602, 'Task was cancelled']);
const again = await client.cancelTask({ taskId: long.taskId }).catch((e: { code: number }) => e.code);
assert.equal(again, -32602, 'a terminal task cannot be cancelled');

// 5. tasks/list: this session's tasks, newest last.
const { tasks } = await client.listTasks();
assert.deepEqual(
  tasks.map((t) => t.status),
  ['completed', 'completed', 'completed', 'cancelled'],
);

// notifications/tasks/status came for every change after creation:
const first = handle.taskId.slice(0, 4);
assert.deepEqual(
  statuses.filter((s) => s.startsWith(first)),
  [`${first} working`, `${first} working`, `${first} working`, `${first} completed`],
);

// A method the receiver did not declare for tasks is refused before sending:
const refused = await callWithTask(client, 'tools/list', {}).catch((e: unknown) => e);
assert.ok(refused instanceof TaskNotSupportedError);
assert.equal(refused.code, -32601);

receiver.close(); // aborts what still runs
await client.close();
console.log('ok tasks');
