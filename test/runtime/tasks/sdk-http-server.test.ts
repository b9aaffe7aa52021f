/**
 * Tasks interop over Streamable HTTP (real sockets on 127.0.0.1) with an SDK 1.32.2 server: the
 * generated Client + HttpClientTransport against McpServer with its experimental tasks on
 * StreamableHTTPServerTransport (test/fixtures/sdk-tasks-http-server.mjs, a child process).
 * - client → server: task-augmented tools/call (callWithTask handle: status, updates, result,
 *   cancel; callTool with `task`), tasks/list, the SDK's errors for unknown and terminal tasks;
 * - server → client: the SDK server asks for sampling/createMessage and elicitation/create as
 *   tasks (createMessageStream / elicitInputStream), so the generated Client is the task
 *   receiver (runtime/tasks/receiver.ts) and answers tasks/get, tasks/result, tasks/list and
 *   tasks/cancel over the same session.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '../../../generated/2025-11-25/index.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import type { RequestContext } from '../../../runtime/engine/peer.js';
import { type TaskReceiver, attachTaskReceiver } from '../../../runtime/tasks/receiver.js';
import { callWithTask } from '../../../runtime/tasks/requestor.js';
import { HttpClientTransport } from '../../../runtime/transport/http/session/node-client.js';
import { RELATED, rejection, sleep, work } from './support.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const fixture = join(root, 'test/fixtures/sdk-tasks-http-server.mjs');
const textOf = (r: unknown) =>
  ((r as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');
const jsonOf = (r: unknown) => JSON.parse(textOf(r)) as Record<string, any>;

let proc: ChildProcess | undefined;
let url = '';

async function startFixture(): Promise<void> {
  proc = spawn(process.execPath, [fixture], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => void (err += d.toString()));
  url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`fixture did not print its URL: ${err}`)), 60_000);
    proc!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^(http:\/\/\S+)\n/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
    proc!.once('exit', (code) => reject(new Error(`fixture exited ${code}: ${err}`)));
  });
}

async function stopFixture(): Promise<void> {
  if (proc && proc.exitCode === null) {
    const exited = new Promise((r) => proc!.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }
}

// ---- generated Client → SDK McpServer tasks (tools/call as a task) -------------------------------

const toSdk = suite('tasks over HTTP: generated Client → SDK McpServer tasks');
let client: Client;

toSdk.before(async () => {
  await startFixture();
  client = new Client({ clientInfo: { name: 'mcpgen', version: '0' } });
  await client.connect(new HttpClientTransport({ url }));
});
toSdk.after(async () => {
  await client?.close();
  await stopFixture();
});

toSdk('the SDK server declares tasks for tools/call, list and cancel; delay is optional', async () => {
  assert.equal(client.server!.capabilities.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
  const { tools } = await client.listTools();
  assert.is(tools.find((t) => t.name === 'delay')?.execution?.taskSupport, 'optional');
});

toSdk('callWithTask: CreateTaskResult, status(), updates() to completed, result()', async () => {
  const handle = await callWithTask(
    client,
    'tools/call',
    { name: 'delay', arguments: { ms: 150 } },
    { task: { ttl: 60_000 } },
  );
  assert.type(handle.taskId, 'string');
  assert.ok(handle.taskId.length > 0);
  assert.is(handle.task.status, 'working');
  assert.is(handle.task.ttl, 60_000);
  assert.is(handle.task.pollInterval, 25);
  const polled = await handle.status();
  assert.is(polled.taskId, handle.taskId);
  assert.ok(['working', 'completed'].includes(polled.status));
  const statuses: string[] = [];
  for await (const t of handle.updates()) statuses.push(t.status);
  assert.is(statuses[statuses.length - 1], 'completed');
  assert.ok(
    statuses.every((s) => s === 'working' || s === 'completed'),
    statuses.join(),
  );
  assert.is((await handle.status()).status, 'completed');
  const result = await handle.result();
  assert.is(textOf(result), 'waited 150');
  assert.is(((result._meta ?? {}) as Record<string, { taskId?: string }>)[RELATED]?.taskId, handle.taskId);
});

toSdk('callTool(params, { task, onTask }) resolves with the final result after the handle saw the task', async () => {
  let seen: string | undefined;
  const r = await client.callTool(
    { name: 'delay', arguments: { ms: 40 } },
    { task: { ttl: 60_000 }, onTask: (h) => void (seen = h.taskId) },
  );
  assert.is(textOf(r), 'waited 40');
  assert.type(seen, 'string');
  const task = await client.getTask({ taskId: seen! });
  assert.is(task.status, 'completed');
});

toSdk(
  "tasks/list shows this session's tasks; cancel through the handle; terminal and unknown tasks → -32602",
  async () => {
    const handle = await callWithTask(
      client,
      'tools/call',
      { name: 'delay', arguments: { ms: 60_000 } },
      { ttl: 60_000 },
    );
    const listed = await client.listTasks();
    const mine = listed.tasks.find((t) => t.taskId === handle.taskId);
    assert.ok(mine, 'the new task is listed');
    assert.is(mine!.status, 'working');
    assert.ok(listed.tasks.length >= 3, `${listed.tasks.length} tasks listed`);
    const cancelled = await handle.cancel();
    assert.is(cancelled.status, 'cancelled');
    assert.is(cancelled.taskId, handle.taskId);
    assert.is((await handle.status()).status, 'cancelled');
    // result() of the cancelled task rejects at once: SDK 1.32.2's store holds no result for it and
    // answers -32603 (our receiver answers -32602 "Task was cancelled", case 020)
    const noResult = await rejection(handle.result());
    assert.is(noResult.code, -32603);
    assert.match(noResult.message, /has no result stored/);
    const again = await rejection(handle.cancel());
    assert.instance(again, RpcError);
    assert.is(again.code, -32602);
    const unknown = await rejection(client.getTask({ taskId: 'no-such-task' }));
    assert.is(unknown.code, -32602);
    const unknownCancel = await rejection(client.cancelTask({ taskId: 'no-such-task' }));
    assert.is(unknownCancel.code, -32602);
  },
);

toSdk.run();

// ---- SDK server → generated Client as task receiver (sampling, elicitation) ----------------------

const fromSdk = suite('tasks over HTTP: SDK server → generated Client as task receiver');
let asker: Client;
let receiver: TaskReceiver;
const aborted: string[] = [];
const samplingSeen: { related?: unknown; task?: unknown }[] = [];

fromSdk.before(async () => {
  await startFixture();
  asker = new Client({
    clientInfo: { name: 'mcpgen-receiver', version: '0' },
    capabilities: { sampling: {}, elicitation: { form: {} } },
    handlers: {
      'sampling/createMessage': async (p, ctx: RequestContext) => {
        const text = (p.messages[0]!.content as { text?: string }).text ?? '';
        samplingSeen.push({
          related: (p._meta as Record<string, unknown> | undefined)?.[RELATED],
          task: (p as Record<string, unknown>).task,
        });
        if (text === 'never answered') {
          await work(600_000, ctx.signal).catch((e) => (aborted.push(text), Promise.reject(e)));
        }
        await sleep(50);
        return {
          role: 'assistant',
          content: { type: 'text', text: `echo: ${text}` },
          model: 'mcpgen-test-model',
          stopReason: 'endTurn',
        };
      },
      'elicitation/create': async (p) => ({ action: 'accept', content: { name: `Ada (${p.message})` } }),
    },
  });
  receiver = attachTaskReceiver(asker, { pollInterval: 20 });
  await asker.connect(new HttpClientTransport({ url }));
});
fromSdk.after(async () => {
  receiver?.close();
  await asker?.close();
  await stopFixture();
});

fromSdk('the client declares tasks for sampling and elicitation (receiver capabilities)', async () => {
  assert.equal(receiver.capabilities(), {
    requests: { sampling: { createMessage: {} }, elicitation: { create: {} } },
    list: {},
    cancel: {},
  });
});

fromSdk(
  'sampling/createMessage as a task: taskCreated working, polled to completed, result from tasks/result',
  async () => {
    const out = jsonOf(await asker.callTool({ name: 'sample_as_task', arguments: { ttl: 30_000, text: 'hello' } }));
    assert.is(out.error, undefined, JSON.stringify(out.error));
    assert.is(out.kinds[0], 'taskCreated');
    assert.is(out.kinds[out.kinds.length - 1], 'result');
    assert.is(out.statuses[0], 'working');
    assert.is(out.statuses[out.statuses.length - 1], 'completed');
    assert.equal(out.result.content, { type: 'text', text: 'echo: hello' });
    assert.is(out.result.model, 'mcpgen-test-model');
    assert.is(out.result._meta[RELATED].taskId, out.taskId);
    // the handler ran without params.task; the task is kept (ttl honoured) and listed by the receiver
    const seen = samplingSeen[samplingSeen.length - 1];
    assert.is(seen.task, undefined);
    const kept = await receiver.store.get(receiver.ownerKey, out.taskId);
    assert.is(kept?.status, 'completed');
    assert.is(kept?.ttl, 30_000);
  },
);

fromSdk("elicitation/create as a task: the result is the client's ElicitResult", async () => {
  const out = jsonOf(await asker.callTool({ name: 'elicit_as_task', arguments: { ttl: 30_000 } }));
  assert.is(out.error, undefined, JSON.stringify(out.error));
  assert.is(out.kinds[0], 'taskCreated');
  assert.is(out.statuses[out.statuses.length - 1], 'completed');
  assert.is(out.result.action, 'accept');
  assert.equal(out.result.content, { name: 'Ada (Your name?)' });
});

fromSdk(
  'the SDK server cancels a client task: get, list, cancel, get, cancel again (-32602), result (-32602), unknown (-32602)',
  async () => {
    const before = aborted.length;
    const out = jsonOf(await asker.callTool({ name: 'cancel_client_task', arguments: { ttl: 30_000 } }));
    assert.is(out.created.status, 'working');
    assert.is(out.created.ttl, 30_000);
    assert.is(out.created.pollInterval, 20);
    assert.is(out.before.status, 'working');
    assert.ok(out.listed.includes(out.created.taskId), 'listed');
    assert.is(out.cancelled.status, 'cancelled');
    assert.is(out.after.status, 'cancelled');
    assert.is(out.again.code, -32602);
    assert.is(out.result.code, -32602);
    assert.is(out.result.message, 'MCP error -32602: Task was cancelled');
    assert.is(out.unknown.code, -32602);
    // the sampling handler's signal was aborted by the cancel
    for (let i = 0; i < 100 && aborted.length === before; i++) await sleep(20);
    assert.is(aborted.length, before + 1);
  },
);

fromSdk.run();
