/**
 * Tasks interop over real stdio pipes with @modelcontextprotocol/sdk 1.32.2's experimental tasks:
 * - the SDK Client (`client.experimental.tasks`) against the generated Server with a task
 *   receiver (test/fixtures/tasks-stdio-server.ts);
 * - the generated Client (callWithTask, `callTool(…, { task })`) against an SDK McpServer with
 *   `registerToolTask` and the SDK's in-memory task store (test/fixtures/sdk-tasks-server.mjs).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Client } from '../../../generated/2025-11-25/index.js';
import { StdioClientTransport } from '../../../runtime/transport/stdio.js';
import { callWithTask } from '../../../runtime/tasks/requestor.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const ours = join(root, 'test/fixtures/tasks-stdio-server.ts');
const sdkFixture = join(root, 'test/fixtures/sdk-tasks-server.mjs');
const textOf = (r: unknown) =>
  ((r as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');

// ---- SDK client → generated Server with a task receiver ------------------------------------------

const sdkToOurs = suite('tasks interop: SDK Client → generated Server (stdio)');
let sdk: SdkClient;

sdkToOurs.before(async () => {
  sdk = new SdkClient({ name: 'sdk-client', version: '1.0.0' }, { capabilities: {} });
  await sdk.connect(
    new SdkStdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', ours],
      cwd: root,
      stderr: 'inherit',
    }),
  );
});
sdkToOurs.after(async () => {
  await sdk.close();
});

sdkToOurs('capabilities and tools/list carry the task support', async () => {
  assert.equal(sdk.getServerCapabilities()!.tasks, { requests: { tools: { call: {} } }, list: {}, cancel: {} });
  const { tools } = await sdk.listTools();
  assert.equal(Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport])), {
    sleep: 'optional',
    must: 'required',
  });
});

sdkToOurs('callToolStream with a task: taskCreated, statuses, then the result', async () => {
  const kinds: string[] = [];
  let result: unknown;
  for await (const m of sdk.experimental.tasks.callToolStream({ name: 'sleep', arguments: { ms: 80 } }, undefined, {
    task: { ttl: 60_000 },
  })) {
    kinds.push(m.type);
    if (m.type === 'taskCreated') {
      assert.is(m.task.status, 'working');
      assert.is(m.task.ttl, 60_000);
    }
    if (m.type === 'result') result = m.result;
    if (m.type === 'error') throw m.error;
  }
  assert.is(kinds[0], 'taskCreated');
  assert.is(kinds[kinds.length - 1], 'result');
  assert.is(textOf(result), 'sleep 80');
});

sdkToOurs('getTask, listTasks, cancelTask, getTaskResult of a cancelled task', async () => {
  const created = (await sdk.request(
    { method: 'tools/call', params: { name: 'sleep', arguments: { ms: 10_000 }, task: { ttl: 60_000 } } },
    (
      await import('@modelcontextprotocol/sdk/experimental/tasks')
    ).CreateTaskResultSchema,
  )) as { task: { taskId: string } };
  const id = created.task.taskId;
  assert.is((await sdk.experimental.tasks.getTask(id)).status, 'working');
  assert.ok((await sdk.experimental.tasks.listTasks()).tasks.some((t) => t.taskId === id));
  assert.is((await sdk.experimental.tasks.cancelTask(id)).status, 'cancelled');
  const err = await sdk.experimental.tasks.cancelTask(id).catch((e: unknown) => e);
  assert.instance(err, McpError);
  assert.is((err as McpError).code, -32602);
  const res = await sdk.experimental.tasks.getTaskResult(id).catch((e: unknown) => e);
  assert.instance(res, McpError);
  assert.is((res as McpError).code, -32602);
});

sdkToOurs('a required tool without a task: the SDK refuses it locally (-32600), the server with -32601', async () => {
  const local = await sdk.callTool({ name: 'must', arguments: {} }).catch((e: unknown) => e);
  assert.instance(local, McpError);
  assert.is((local as McpError).code, -32600);
  assert.match((local as McpError).message, /requires task-based execution/);
  const { CallToolResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const remote = await sdk
    .request({ method: 'tools/call', params: { name: 'must', arguments: {} } }, CallToolResultSchema)
    .catch((e: unknown) => e);
  assert.instance(remote, McpError);
  assert.is((remote as McpError).code, -32601);
});

sdkToOurs.run();

// ---- generated Client → SDK McpServer with registerToolTask --------------------------------------

const oursToSdk = suite('tasks interop: generated Client → SDK McpServer tasks (stdio)');
let client: Client;

oursToSdk.before(async () => {
  client = new Client({ clientInfo: { name: 'mcpgen', version: '0' } });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [sdkFixture], cwd: root }));
});
oursToSdk.after(async () => {
  await client.close();
});

oursToSdk('callWithTask: handle, updates to completed, result', async () => {
  const handle = await callWithTask(
    client,
    'tools/call',
    { name: 'delay', arguments: { ms: 80 } },
    { task: { ttl: 60_000 } },
  );
  assert.is(handle.task.status, 'working');
  assert.type(handle.taskId, 'string');
  const statuses: string[] = [];
  for await (const t of handle.updates()) statuses.push(t.status);
  assert.is(statuses[0], 'working');
  assert.is(statuses[statuses.length - 1], 'completed');
  assert.is(textOf(await handle.result()), 'waited 80');
});

oursToSdk('callTool(params, { task }) resolves with the final result; listTasks sees the tasks', async () => {
  const r = await client.callTool({ name: 'delay', arguments: { ms: 30 } }, { task: { ttl: 60_000 } });
  assert.is(textOf(r), 'waited 30');
  const listed = await client.listTasks();
  assert.ok(listed.tasks.length >= 2);
  assert.ok(listed.tasks.every((t) => typeof t.taskId === 'string' && 'ttl' in t));
});

oursToSdk('cancel through the handle', async () => {
  const handle = await callWithTask(
    client,
    'tools/call',
    { name: 'delay', arguments: { ms: 10_000 } },
    { task: { ttl: 60_000 } },
  );
  assert.is((await handle.cancel()).status, 'cancelled');
  assert.is((await handle.status()).status, 'cancelled');
});

oursToSdk.run();
