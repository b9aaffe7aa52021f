/**
 * The tasks extension from the generated draft Client: a tools/call the client opted in for comes
 * back as the CreateTaskResult, TasksExtensionClient polls tasks/get (with the stateless `_meta`),
 * answers input with the client's handlers through tasks/update, and reports failed and cancelled
 * tasks; a client that did not opt in gets the inline result and refuses `resultType: "task"`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client, Server, table } from '../../../../generated/draft/index.js';
import * as v2025 from '../../../../generated/2025-11-25/index.js';
import { ServerFeatures } from '../../../../runtime/features/server-features.js';
import { TASKS_EXTENSION, TasksExtension } from '../../../../runtime/tasks/extension.js';
import {
  TaskCancelledError,
  TasksExtensionClient,
  isCreateTaskResult,
} from '../../../../runtime/tasks/extension-client.js';
import { createMemoryPair } from '../../../../runtime/transport/memory.js';
import { InvalidResultError, RpcError } from '../../../../runtime/jsonrpc/errors.js';
import { scriptedServer } from '../../stateless/harness.js';

const ask = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Colour?',
    requestedSchema: { type: 'object', properties: { colour: { type: 'string' } } },
  },
};

async function start(caps: Record<string, unknown>) {
  const features = new ServerFeatures();
  const tasks = new TasksExtension({
    table,
    tools: { paint: 'optional', broken: 'optional', forever: 'optional' },
    pollIntervalMs: 10,
  });
  features.tool({
    name: 'paint',
    handler: (_a, ctx) =>
      tasks.run(ctx, async (task) => {
        const answers = task.taskId ? await task.input({ colour: ask }) : { colour: { content: { colour: 'inline' } } };
        return `painted ${(answers.colour.content as { colour: string }).colour}`;
      }),
  });
  features.tool({
    name: 'broken',
    handler: (_a, ctx) =>
      tasks.run(ctx, () => {
        throw new RpcError(-32050, 'paint ran out', { refill: true });
      }),
  });
  features.tool({
    name: 'forever',
    handler: (_a, ctx) =>
      tasks.run(
        ctx,
        (task) =>
          new Promise((_r, reject) => task.signal.addEventListener('abort', () => reject(new Error('stopped')))),
      ),
  });
  const server = new Server({
    serverInfo: { name: 'painter', version: '1' },
    capabilities: tasks.capabilities(features.capabilities()),
    handlers: tasks.handlers(features.handlers({ table })) as never,
    extensionMethods: tasks.methods,
  });
  const asked: string[] = [];
  const client = new Client({
    clientInfo: { name: 'c', version: '1' },
    capabilities: caps,
    handlers: {
      'elicitation/create': (p) => (asked.push(p.message), { action: 'accept', content: { colour: 'teal' } }),
    },
  });
  const [a, b] = createMemoryPair();
  await server.connect(b);
  await client.connect(a);
  return { client, asked, close: async () => (tasks.close(), await client.close()) };
}

const WITH = { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION]: {} } };

test('opted in: callTool returns the CreateTaskResult; result() answers the input through tasks/update and resolves with the tool result', async () => {
  const { client, asked, close } = await start(WITH);
  const created = await client.callTool({ name: 'paint', arguments: {} });
  assert.ok(isCreateTaskResult(created));
  assert.is(created.status, 'working');
  assert.is(created.pollIntervalMs, 10);
  const statuses: string[] = [];
  const result = await new TasksExtensionClient(client).result(created, { onStatus: (t) => statuses.push(t.status) });
  assert.equal(result.content, [{ type: 'text', text: 'painted teal' }]);
  assert.equal(asked, ['Colour?']);
  assert.equal(
    statuses.filter((s, i) => s !== statuses[i - 1]),
    ['input_required', 'completed'],
  );
  await close();
});

test('failed and cancelled tasks: result() rejects with the task error, or TaskCancelledError (-32602); an unknown task is -32602', async () => {
  const { client, close } = await start(WITH);
  const tasks = new TasksExtensionClient(client, { pollIntervalMs: 10 });
  const broken = await client.callTool({ name: 'broken', arguments: {} });
  assert.ok(isCreateTaskResult(broken));
  const failure = (await tasks.result(broken).catch((e: unknown) => e)) as RpcError;
  assert.instance(failure, RpcError);
  assert.equal([failure.code, failure.message, failure.data], [-32050, 'paint ran out', { refill: true }]);
  const forever = await client.callTool({ name: 'forever', arguments: {} });
  assert.ok(isCreateTaskResult(forever));
  assert.equal(await tasks.cancel(forever.taskId), { resultType: 'complete' });
  const cancelled = await tasks.result(forever.taskId).catch((e: unknown) => e);
  assert.instance(cancelled, TaskCancelledError);
  assert.is((cancelled as RpcError).code, -32602);
  assert.is((await tasks.get(forever.taskId)).status, 'cancelled');
  const unknown = (await tasks.get('no-such-task').catch((e: unknown) => e)) as RpcError;
  assert.is(unknown.code, -32602);
  await close();
});

test('not opted in: the same tool answers inline; a resultType "task" it did not ask for is an invalid result', async () => {
  const { client, close } = await start({ elicitation: { form: {} } });
  const inline = await client.callTool({ name: 'paint', arguments: {} });
  assert.not.ok(isCreateTaskResult(inline));
  assert.equal(inline.content, [{ type: 'text', text: 'painted inline' }]);
  const refused = (await new TasksExtensionClient(client).get('x').catch((e: unknown) => e)) as RpcError;
  assert.is(refused.code, -32021, 'tasks/get without the extension in _meta');
  await close();
  const { transport } = await scriptedServer(() => ({
    resultType: 'task',
    taskId: 't1',
    status: 'working',
    createdAt: '2026-01-01T00:00:00Z',
    lastUpdatedAt: '2026-01-01T00:00:00Z',
    ttlMs: null,
  }));
  const plain = new Client({ clientInfo: { name: 'c', version: '1' } });
  await plain.connect(transport);
  assert.instance(await plain.callTool({ name: 'x', arguments: {} }).catch((e: unknown) => e), InvalidResultError);
  await plain.close();
});

test('extensionRequest on a handshake revision is refused locally (-32601): its session sends only its table', async () => {
  const [a, b] = createMemoryPair();
  await new v2025.Server({ serverInfo: { name: 's', version: '1' }, capabilities: {} }).connect(b);
  const client = new v2025.Client({ clientInfo: { name: 'c', version: '1' } });
  await client.connect(a);
  const e = (await client.extensionRequest('tasks/update', { taskId: 'x' }).catch((x: unknown) => x)) as RpcError;
  assert.is(e.code, -32601);
  await client.close();
});

test.run();
