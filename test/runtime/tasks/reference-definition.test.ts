/**
 * The reference server definition's task wiring (reference/tasks.ts) in process:
 * detection from the generated table (2025-11-25 has task tools, 2025-06-18 has none), one
 * store shared by the definition's sessions with tasks owned per session, and a session whose
 * connection closes aborting its running tasks (they end `failed`, "task receiver closed").
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server, table as table1125 } from '../../../generated/2025-11-25/index.js';
import { Client as Client0618, Server as Server0618, table as table0618 } from '../../../generated/2025-06-18/index.js';
import { type ServerClass, referenceDefinition } from '../../../reference/server.js';
import { hasTaskTools } from '../../../reference/tasks.js';
import { callWithTask } from '../../../runtime/tasks/requestor.js';
import type { TaskEvent } from '../../../runtime/stores/tasks.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';

async function connected(d: ReturnType<typeof referenceDefinition>): Promise<Client> {
  const [a, b] = createMemoryPair();
  await d.createSession().connect(b);
  const client = new Client({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  return client;
}

test('task tools only where the table has task-augmented tools/call', async () => {
  assert.is(hasTaskTools(table1125), true);
  assert.is(hasTaskTools(table0618), false);
  const old = referenceDefinition(Server0618 as unknown as ServerClass);
  assert.is(old.tasks, undefined);
  const [a, b] = createMemoryPair();
  await old.createSession().connect(b);
  const c = new Client0618({ clientInfo: { name: 'c', version: '1' } });
  await c.connect(a);
  const names = (await c.listTools({})).tools.map((t) => t.name);
  assert.not.ok(names.includes('slow_compute'));
  assert.is((c.server!.capabilities as Record<string, unknown>).tasks, undefined);
  await c.close();
});

test('one store per definition, tasks owned per session; a closed session aborts its running task', async () => {
  const d = referenceDefinition(Server as unknown as ServerClass);
  assert.ok(d.tasks);
  const one = await connected(d);
  const two = await connected(d);
  const h1 = await callWithTask(
    one,
    'tools/call',
    { name: 'slow_compute', arguments: { seconds: 60 } },
    { task: { ttl: 60_000 } },
  );
  const h2 = await callWithTask(
    two,
    'tools/call',
    { name: 'batch_job', arguments: { items: 1 } },
    { task: { ttl: 60_000 } },
  );
  await h2.result();
  assert.equal(
    (await one.listTasks({})).tasks.map((t) => t.taskId),
    [h1.taskId],
  );
  assert.equal(
    (await two.listTasks({})).tasks.map((t) => t.taskId),
    [h2.taskId],
  );
  const ended = new Promise<TaskEvent>((resolve) => {
    const off = d.tasks!.store.subscribe((ev) => {
      if (ev.task.taskId === h1.taskId && ev.type === 'updated') {
        off();
        resolve(ev);
      }
    });
  });
  await one.close();
  const ev = await ended;
  assert.is(ev.task.status, 'failed');
  assert.is(ev.task.statusMessage, 'task receiver closed');
  assert.is((await two.getTask({ taskId: h2.taskId })).status, 'completed', 'the other session keeps its tasks');
  await two.close();
});

test.run();
