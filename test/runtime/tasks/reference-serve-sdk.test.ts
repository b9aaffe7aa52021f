/**
 * The task tools of a real `mcpgen serve --http 0` process driven by the SDK 1.32.2 Client
 * (`client.experimental.tasks`, StreamableHTTPClientTransport): the declared tasks capability,
 * slow_compute through callToolStream (taskCreated, statuses, result) and cancelled through
 * cancelTask, failing_job failed with its stored JSON-RPC error, confirm_job input_required while
 * the SDK's elicitation handler answers, tasks/list, and batch_job without a task (-32601).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { RELATED } from './support.js';
import { startHttpServe } from './serve-process.js';

type Obj = Record<string, any>;
const textOf = (r: unknown) =>
  ((r as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');

let serve: Awaited<ReturnType<typeof startHttpServe>>;
let sdk: SdkClient;
/** elicitation/create params received, with the task's status read from inside the handler. */
const elicitations: { params: Obj; statusMeanwhile: string }[] = [];

test.before(async () => {
  serve = await startHttpServe();
  sdk = new SdkClient(
    { name: 'sdk-reference-tasks', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  sdk.setRequestHandler(ElicitRequestSchema, async (req) => {
    const taskId = (req.params._meta as Obj | undefined)?.[RELATED]?.taskId as string | undefined;
    const statusMeanwhile = taskId ? (await sdk.experimental.tasks.getTask(taskId)).status : 'no task';
    elicitations.push({ params: req.params, statusMeanwhile });
    return { action: 'accept', content: { confirm: true } };
  });
  await sdk.connect(new StreamableHTTPClientTransport(new URL(serve.url)));
});

test.after(async () => {
  await sdk.close();
  await serve.stop();
});

const mcpErrorOf = async (p: Promise<unknown>): Promise<McpError> => {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, McpError);
  return e as McpError;
};

test('SDK: the server declares tasks (tools/call, list, cancel)', () => {
  assert.equal(sdk.getServerCapabilities()!.tasks, { requests: { tools: { call: {} } }, list: {}, cancel: {} });
});

test('SDK callToolStream(slow_compute): taskCreated (working, ttl, pollInterval 500), statuses, then the result with the sum', async () => {
  const kinds: string[] = [];
  let created: Obj | undefined;
  let result: Obj | undefined;
  for await (const m of sdk.experimental.tasks.callToolStream(
    { name: 'slow_compute', arguments: { seconds: 0.5 } },
    undefined,
    { task: { ttl: 60_000 } },
  )) {
    kinds.push(m.type);
    if (m.type === 'taskCreated') created = m.task;
    if (m.type === 'result') result = m.result;
    if (m.type === 'error') throw m.error;
  }
  assert.is(kinds[0], 'taskCreated');
  assert.is(kinds[kinds.length - 1], 'result');
  assert.is(created!.status, 'working');
  assert.is(created!.ttl, 60_000);
  assert.is(created!.pollInterval, 500);
  assert.is(textOf(result), 'Computed sum 1..1000 = 500500');
  assert.equal(result!.structuredContent, { seconds: 0.5, steps: 10, n: 1000, sum: 500500 });
  assert.is(result!._meta[RELATED].taskId, created!.taskId);
  assert.is((await sdk.experimental.tasks.getTask(created!.taskId)).status, 'completed');
  assert.ok((await sdk.experimental.tasks.listTasks()).tasks.some((t) => t.taskId === created!.taskId));
});

test('SDK cancelTask(slow_compute): cancelled; getTaskResult → -32602 Task was cancelled', async () => {
  const { task } = (await sdk.request(
    { method: 'tools/call', params: { name: 'slow_compute', arguments: { seconds: 60 }, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  )) as { task: Obj };
  assert.is(task.status, 'working');
  const cancelled = await sdk.experimental.tasks.cancelTask(task.taskId);
  assert.is(cancelled.status, 'cancelled');
  const e = await mcpErrorOf(sdk.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema));
  assert.is(e.code, -32602);
  assert.is(e.message, 'MCP error -32602: Task was cancelled');
});

test("SDK callToolStream(failing_job): ends failed; the stored result is the job's -32000 error", async () => {
  let last: Obj | undefined;
  let error: Error | undefined;
  for await (const m of sdk.experimental.tasks.callToolStream(
    { name: 'failing_job', arguments: { reason: 'out of disk' } },
    undefined,
    { task: { ttl: 60_000 } },
  )) {
    if (m.type === 'taskCreated' || m.type === 'taskStatus') last = m.task;
    if (m.type === 'error') error = m.error;
    if (m.type === 'result') assert.unreachable('failing_job returned a result');
  }
  assert.ok(error);
  assert.is(last!.status, 'failed');
  assert.is(last!.statusMessage, 'Job failed: out of disk');
  const stored = await mcpErrorOf(sdk.experimental.tasks.getTaskResult(last!.taskId, CallToolResultSchema));
  assert.is(stored.code, -32000);
  assert.is(stored.message, 'MCP error -32000: Job failed: out of disk');
  assert.equal(stored.data, { reason: 'out of disk' });
});

test('SDK callToolStream(confirm_job): input_required while the SDK answers the elicitation, then completed', async () => {
  let created: Obj | undefined;
  let result: Obj | undefined;
  for await (const m of sdk.experimental.tasks.callToolStream(
    { name: 'confirm_job', arguments: { action: 'migrate' } },
    undefined,
    { task: { ttl: 60_000 } },
  )) {
    if (m.type === 'taskCreated') created = m.task;
    if (m.type === 'result') result = m.result;
    if (m.type === 'error') throw m.error;
  }
  assert.is(textOf(result), 'Confirmed: migrate done');
  const asked = elicitations[elicitations.length - 1];
  assert.is(asked.params.message, 'Run "migrate"?');
  assert.equal(asked.params._meta[RELATED], { taskId: created!.taskId });
  assert.is(asked.statusMeanwhile, 'input_required');
});

test('SDK callTool(batch_job) without a task: -32601 (taskSupport required)', async () => {
  const e = await mcpErrorOf(
    sdk.request({ method: 'tools/call', params: { name: 'batch_job', arguments: {} } }, CallToolResultSchema),
  );
  assert.is(e.code, -32601);
  assert.match(e.message, /requires task-augmented execution/);
});

test.run();
