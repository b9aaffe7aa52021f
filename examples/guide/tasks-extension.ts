// Guide: tasks-extension (docs/guide/tasks-extension.md). The tasks extension of the stateless
// revisions (io.modelcontextprotocol/tasks, SEP-2663): the server decides that a tools/call
// becomes a task; the client polls tasks/get, answers input with tasks/update, cancels.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RpcError, ServerFeatures } from '@mcpgen/runtime';
import { StatelessHttpClientTransport, createStatelessHttpHandler } from '@mcpgen/runtime/http/stateless';
import {
  TASKS_EXTENSION,
  TaskCancelledError,
  TasksExtension,
  TasksExtensionClient,
  isCreateTaskResult,
} from '@mcpgen/runtime/tasks';
import { Client, Server, table, type ElicitResult, type Protocol } from '../../generated/draft/index.js';

// ---- the server ----
const tasks = new TasksExtension<Protocol>({
  table,
  tools: { export_data: 'optional', rebuild_index: 'required' },
  ttlMs: 600_000,
  pollIntervalMs: 25,
});
const features = new ServerFeatures<Protocol>();
features.tool({
  name: 'export_data',
  inputSchema: { type: 'object', properties: { rows: { type: 'integer' } }, required: ['rows'] },
  // run() answers a CreateTaskResult when the request opted in, else runs the work inline
  handler: ({ rows }, ctx) =>
    tasks.run(ctx, async (task) => {
      await task.setStatusMessage(`exporting ${rows} rows`);
      if (task.taskId !== undefined && rows > 1000) {
        // a task asks for input through tasks/get and gets it through tasks/update
        const answers = await task.input({
          confirm: {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: `Export ${rows} rows?`,
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
            },
          },
        });
        const confirm = answers.confirm as ElicitResult;
        if (confirm.content?.ok !== true)
          return { content: [{ type: 'text', text: 'export declined' }], isError: true };
      }
      return { content: [{ type: 'text', text: `exported ${rows} rows` }] };
    }),
});
features.tool({
  name: 'rebuild_index',
  inputSchema: { type: 'object' },
  handler: (_args, ctx) =>
    tasks.run(
      ctx,
      (task) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve('rebuilt'), 60_000);
          task.signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('stopped'))), {
            once: true,
          });
        }),
    ),
});
const server = new Server({
  serverInfo: { name: 'warehouse', version: '1.0.0' },
  capabilities: tasks.capabilities(features.capabilities()), // + extensions["io.modelcontextprotocol/tasks"]
  handlers: tasks.handlers(features.handlers({ table })), // + tasks/get, tasks/update, tasks/cancel
  extensionMethods: tasks.methods,
});
const endpoint = createStatelessHttpHandler({ tables: [table], toolSchema: (name) => features.inputSchema(name) });
await server.connect(endpoint.transport);
const http = createServer(endpoint);
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

// ---- the client: declares the extension (sent in every request's _meta) ----
const client = new Client({
  clientInfo: { name: 'bi-tool', version: '1.0.0' },
  capabilities: { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION]: {} } },
  handlers: { 'elicitation/create': () => ({ action: 'accept', content: { ok: true } }) },
});
await client.connect(new StatelessHttpClientTransport({ url }));
assert.deepEqual(client.server?.capabilities.extensions, { [TASKS_EXTENSION]: {} });
const taskClient = new TasksExtensionClient(client);

const answer = await client.callTool({ name: 'export_data', arguments: { rows: 5000 } });
assert.ok(isCreateTaskResult(answer)); // resultType "task": the call became a task
assert.equal(answer.status, 'working');
assert.equal(answer.ttlMs, 600_000);
assert.equal(answer.pollIntervalMs, 25);
const seen: string[] = [];
const result = await taskClient.result(answer, { onStatus: (t) => seen.push(t.status) });
assert.deepEqual(result.content, [{ type: 'text', text: 'exported 5000 rows' }]);
assert.deepEqual([...new Set(seen)], ['input_required', 'completed']);

// tasks/get by hand: the detailed task carries its result once completed
const done = await taskClient.get(answer.taskId);
assert.equal(done.status, 'completed');
assert.deepEqual(done.status === 'completed' && done.result.content, [{ type: 'text', text: 'exported 5000 rows' }]);

// Cancel: acknowledged once cancelled; the work's signal aborts.
const rebuild = await client.callTool({ name: 'rebuild_index', arguments: {} });
assert.ok(isCreateTaskResult(rebuild));
assert.deepEqual(await taskClient.cancel(rebuild.taskId), { resultType: 'complete' });
const cancelled = await taskClient.result(rebuild.taskId).catch((e: unknown) => e);
assert.ok(cancelled instanceof TaskCancelledError);

// A client that did not declare the extension: an optional tool answers inline...
const plain = new Client({ clientInfo: { name: 'script', version: '1.0.0' } });
await plain.connect(new StatelessHttpClientTransport({ url }));
const inline = await plain.callTool({ name: 'export_data', arguments: { rows: 10 } });
assert.deepEqual(inline.content, [{ type: 'text', text: 'exported 10 rows' }]);
// ...and a required one is refused before its handler runs: -32021
const refused = await plain.callTool({ name: 'rebuild_index', arguments: {} }).catch((e: unknown) => e);
assert.ok(refused instanceof RpcError);
assert.equal(refused.code, -32021);
assert.deepEqual(refused.data, { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });

tasks.close();
await client.close();
await plain.close();
await server.close();
http.closeAllConnections();
await new Promise<void>((resolve) => http.close(() => resolve()));
console.log('ok tasks-extension');
