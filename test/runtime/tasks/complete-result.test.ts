/**
 * The requestor checks a task's result against the original request's own result type (its
 * `MethodEntry.complete`: CallToolResult for tools/call), not the union the request itself may be
 * answered with: a 2025-11-25 `tasks/result` holding a CreateTaskResult, and a tasks-extension
 * (draft) completed task whose `result` is `{"resultType":"complete"}`, are InvalidResultError
 * (-32603). Real node:http servers giving the bad replies; both forms of the stateless client.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as draft from '../../../generated/draft/index.js';
import * as v2025 from '../../../generated/2025-11-25/index.js';
import { HttpClientTransport } from '../../../runtime/transport/http/session/node-client.js';
import { StatelessHttpClientTransport } from '../../../runtime/transport/http/stateless/node-client.js';
import { callWithTask } from '../../../runtime/tasks/requestor.js';
import { TASKS_EXTENSION } from '../../../runtime/tasks/extension.js';
import { TasksExtensionClient, isCreateTaskResult } from '../../../runtime/tasks/extension-client.js';

type Obj = Record<string, unknown>;
const NOW = new Date().toISOString();
const TASK = { taskId: 't1', status: 'working', createdAt: NOW, lastUpdatedAt: NOW, ttl: null, pollInterval: 10 };

/** A node:http server on 127.0.0.1 answering each JSON-RPC request with `answer(method)` as JSON (notifications 202). */
async function scripted(answer: (method: string) => unknown) {
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const m = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj) : undefined;
      if (!m || m.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: answer(m.method as string) }));
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return { url, close: () => new Promise<void>((r) => (http.closeAllConnections(), http.close(() => r()))) };
}

const failure = (e: Error & { code?: number }) => `${e.name} ${e.code} ${e.message}`;

for (const [label, bad] of [
  ['a CreateTaskResult', { task: TASK }],
  ['{}', {}],
] as const) {
  test(`2025-11-25: a tasks/result of a tools/call task holding ${label} is InvalidResultError against CallToolResult`, async () => {
    const s = await scripted((method) =>
      method === 'initialize'
        ? {
            protocolVersion: '2025-11-25',
            capabilities: { tools: {}, tasks: { requests: { tools: { call: {} } } } },
            serverInfo: { name: 's', version: '1' },
          }
        : method === 'tools/call'
          ? { task: TASK }
          : method === 'tasks/result'
            ? bad
            : { ...TASK, status: 'completed' },
    );
    const c = new v2025.Client({ clientInfo: { name: 'c', version: '1' } });
    try {
      await c.connect(new HttpClientTransport({ url: s.url }));
      const handle = await callWithTask(c as never, 'tools/call', { name: 't', arguments: {} });
      const got = await handle.result({ timeout: 5000 }).then(
        (r) => `resolved ${JSON.stringify(r)}`,
        (e) => failure(e),
      );
      assert.is(
        got,
        "InvalidResultError -32603 Invalid result for tasks/result (tools/call): / must have required property 'content'",
      );
    } finally {
      await c.close();
      await s.close();
    }
  });
}

for (const form of ['node', 'fetch'] as const) {
  test(`draft (tasks extension, ${form}): a completed task whose result is {"resultType":"complete"} is InvalidResultError against CallToolResult`, async () => {
    const s = await scripted((method) =>
      method === 'server/discover'
        ? {
            resultType: 'complete',
            supportedVersions: ['2026-07-28'],
            capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } },
            serverInfo: { name: 's', version: '1' },
            ttlMs: 0,
            cacheScope: 'public',
          }
        : method === 'tools/call'
          ? { resultType: 'task', ...TASK, pollIntervalMs: 10 }
          : { resultType: 'complete', ...TASK, status: 'completed', result: { resultType: 'complete' } },
    );
    const c = new draft.Client({
      clientInfo: { name: 'c', version: '1' },
      capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
    try {
      await c.connect(
        new StatelessHttpClientTransport({ url: s.url, ...(form === 'fetch' ? { fetch: globalThis.fetch } : {}) }),
      );
      const created = await c.callTool({ name: 't', arguments: {} });
      assert.ok(isCreateTaskResult(created));
      const got = await new TasksExtensionClient(c, { pollIntervalMs: 10 }).result(created).then(
        (r) => `resolved ${JSON.stringify(r)}`,
        (e) => failure(e),
      );
      assert.is(
        got,
        "InvalidResultError -32603 Invalid result for tasks/get (tools/call): / must have required property 'content'",
      );
    } finally {
      await c.close();
      await s.close();
    }
  });
}

test.run();
