/**
 * notifications/tasks/status that come before the requestor's TaskHandle exists (in the same
 * write as the CreateTaskResult, on the first task-augmented request of a process, while
 * runtime/tasks/handle.ts is still loading) reach the handle; what is kept meanwhile is bounded
 * and dropped once no task-augmented request waits.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Peer } from '../../../runtime/engine/peer.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import { MAX_EARLY_PER_TASK, MAX_EARLY_TASKS, routerOf } from '../../../runtime/tasks/status-router.js';
import type { Task } from '../../../runtime/stores/tasks.js';
import { table } from '../../../generated/2025-11-25/index.js';
import { settle } from '../support.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const client = fileURLToPath(new URL('../../fixtures/task-first-status-client.ts', import.meta.url));
const b64 = (s: string) => ({ b64: Buffer.from(s).toString('base64') });

const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
const task = (over: Record<string, unknown> = {}) => ({
  taskId: 't-1',
  status: 'working',
  createdAt: at(0),
  lastUpdatedAt: at(0),
  ttl: 60000,
  pollInterval: 60000,
  ...over,
});

test("the first task-augmented request of a process: a status notification in the CreateTaskResult's write reaches the handle", async () => {
  const init = {
    jsonrpc: '2.0',
    id: 0,
    result: {
      protocolVersion: '2025-11-25',
      capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } },
      serverInfo: { name: 's', version: '1' },
    },
  };
  const created = { jsonrpc: '2.0', id: 1, result: { task: task() } };
  const stale = {
    jsonrpc: '2.0',
    method: 'notifications/tasks/status',
    params: task({ statusMessage: 'older than the CreateTaskResult', lastUpdatedAt: '2025-12-31T23:59:59.000Z' }),
  };
  const status = {
    jsonrpc: '2.0',
    method: 'notifications/tasks/status',
    params: task({ statusMessage: 'first update', lastUpdatedAt: at(1) }),
  };
  const script = {
    wait: 1,
    steps: [
      b64(`${JSON.stringify(init)}\n`),
      { until: 3 },
      b64([stale, created, status].map((m) => `${JSON.stringify(m)}\n`).join('')),
    ],
    then: 'stay',
  };
  const out = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', client],
      { cwd: root, env: { ...process.env, SCRIPT: JSON.stringify(script) }, timeout: 60_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    );
  });
  const { task: seenByHandle, seen } = JSON.parse(out.trim().split('\n').pop()!) as { task: Task; seen: Task[] };
  assert.is(seenByHandle.statusMessage, 'first update');
  assert.is(seenByHandle.lastUpdatedAt, at(1));
  // the session's own handler still sees every one, as they come
  assert.equal(
    seen.map((t) => t.statusMessage),
    ['older than the CreateTaskResult', 'first update'],
  );
});

test('early notifications: kept only while a request waits, per task id and in number bounded, own keys only', async () => {
  const [a, b] = createMemoryPair();
  const peer = new Peer({ side: 'client', table, transport: a });
  const other = new Peer({ side: 'server', table, transport: b });
  await Promise.all([peer.start(), other.start()]);
  const session = { peer, options: {} };
  const router = routerOf(session);
  const send = (taskId: string, i: number) =>
    other.notify('notifications/tasks/status', { ...task({ taskId, statusMessage: String(i), lastUpdatedAt: at(1) }) });
  // nobody waits: nothing is kept
  await send('t-0', 0);
  await settle();
  assert.is(router.kept, 0);
  const release = router.expect();
  for (let i = 0; i < MAX_EARLY_TASKS + 10; i++)
    for (let j = 0; j < MAX_EARLY_PER_TASK + 3; j++) await send(`t-${i}`, j);
  await send('__proto__', 1);
  await settle();
  // the oldest ids made room: 63 full ones and __proto__'s one
  assert.is(router.kept, (MAX_EARLY_TASKS - 1) * MAX_EARLY_PER_TASK + 1);
  const got: string[] = [];
  router.listen('__proto__', (t) => void got.push(t.statusMessage ?? ''));
  router.replay('__proto__', at(0));
  assert.equal(got, ['1']);
  const last: string[] = [];
  const id = `t-${MAX_EARLY_TASKS + 9}`;
  router.listen(id, (t) => void last.push(t.statusMessage ?? ''));
  router.replay(id, at(0));
  assert.equal(
    last,
    Array.from({ length: MAX_EARLY_PER_TASK }, (_, k) => String(k + 3)),
    'the latest ones, in order',
  );
  release();
  assert.is(router.kept, 0, 'dropped once no request waits');
  await peer.close();
  await other.close();
});

test.run();
