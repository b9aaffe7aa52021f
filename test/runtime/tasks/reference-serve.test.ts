/**
 * The task tools of `mcpgen serve` (reference/tasks.ts) end to end: real `serve
 * --stdio` and `serve --http 0` processes driven by the generated 2025-11-25 Client
 * (StdioClientTransport, HttpClientTransport): capabilities and taskSupport in tools/list,
 * slow_compute (status, updates, progress, result; cancel), failing_job (failed with its
 * JSON-RPC error, or with its isError result), confirm_job (input_required while the client's
 * elicitation handler runs, then completed with the answer), tasks/list, batch_job without a
 * task (-32601), optional tools inline, isolation between sessions; and `mcpgen call` of a task
 * tool without a task.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { Client } from '../../../generated/2025-11-25/index.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import { callWithTask } from '../../../runtime/tasks/requestor.js';
import type { TaskHandle } from '../../../runtime/tasks/handle.js';
import type { Task } from '../../../runtime/stores/tasks.js';
import { HttpClientTransport } from '../../../runtime/transport/http/session/node-client.js';
import { StdioClientTransport } from '../../../runtime/transport/stdio.js';
import { RELATED, rejection } from './support.js';
import { bin, root, startHttpServe } from './serve-process.js';

type Obj = Record<string, any>;
const textOf = (r: unknown) =>
  ((r as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');

interface Connected {
  client: Client;
  /** elicitation/create params received, each with the task's status read from inside the handler. */
  elicitations: { params: Obj; statusMeanwhile: string }[];
}

/** A generated Client that answers elicitations with `{ confirm }` after reading the task's status. */
async function connect(transport: StdioClientTransport | HttpClientTransport, confirm = true): Promise<Connected> {
  const elicitations: Connected['elicitations'] = [];
  const client: Client = new Client({
    clientInfo: { name: 'reference-tasks-test', version: '1' },
    capabilities: { elicitation: { form: {} } },
    handlers: {
      'elicitation/create': async (p) => {
        const taskId = (p._meta as Obj | undefined)?.[RELATED]?.taskId as string | undefined;
        const statusMeanwhile = taskId ? (await client.getTask({ taskId })).status : 'no task';
        elicitations.push({ params: p as Obj, statusMeanwhile });
        return { action: 'accept', content: { confirm } };
      },
    },
  });
  await client.connect(transport);
  return { client, elicitations };
}

/** Every status the handle reports, from its creation to the terminal one. */
async function statuses(handle: TaskHandle<unknown>): Promise<Task[]> {
  const seen: Task[] = [];
  for await (const t of handle.updates()) seen.push(t);
  return seen;
}

const stdioTransport = () =>
  new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'serve', '--rev', '2025-11-25', '--stdio'],
    cwd: root,
    stderr: 'inherit',
  });

for (const kind of ['stdio', 'http'] as const) {
  const t = suite(`mcpgen serve --${kind}: task tools with the generated Client`);
  let http: Awaited<ReturnType<typeof startHttpServe>> | undefined;
  let a: Connected;
  const transport = () => (kind === 'stdio' ? stdioTransport() : new HttpClientTransport({ url: http!.url }));

  t.before(async () => {
    if (kind === 'http') http = await startHttpServe();
    a = await connect(transport());
  });
  t.after(async () => {
    await a.client.close();
    await http?.stop();
  });

  t("the tasks capability and each tool's execution.taskSupport", async () => {
    assert.equal(a.client.server?.capabilities.tasks, { requests: { tools: { call: {} } }, list: {}, cancel: {} });
    const { tools } = await a.client.listTools({});
    const support = Object.fromEntries(tools.filter((x) => x.execution).map((x) => [x.name, x.execution!.taskSupport]));
    assert.equal(support, {
      slow_compute: 'optional',
      failing_job: 'optional',
      confirm_job: 'optional',
      batch_job: 'required',
    });
    assert.ok(
      tools.some((x) => x.name === 'test_simple_text'),
      'the conformance fixtures are still listed',
    );
  });

  t(
    'slow_compute as a task: working with the requested ttl, status messages, progress to 10 of 10, completed with the sum',
    async () => {
      const progress: number[] = [];
      const handle = await callWithTask(
        a.client,
        'tools/call',
        { name: 'slow_compute', arguments: { seconds: 1 } },
        {
          task: { ttl: 120_000 },
          onProgress: (p) => progress.push(p.progress),
        },
      );
      assert.is(handle.task.status, 'working');
      assert.is(handle.task.ttl, 120_000);
      assert.is(handle.task.pollInterval, 500);
      assert.ok(handle.taskId.length > 0);
      const seen = await statuses(handle);
      assert.is(seen[seen.length - 1].status, 'completed');
      assert.ok(
        seen.some((s) => /^computing: step \d+ of 10$/.test(s.statusMessage ?? '')),
        JSON.stringify(seen),
      );
      assert.ok(seen.slice(0, -1).every((s) => s.status === 'working'));
      const result = await handle.result();
      assert.is(textOf(result), 'Computed sum 1..1000 = 500500');
      assert.equal(result.structuredContent, { seconds: 1, steps: 10, n: 1000, sum: 500500 });
      assert.is((result._meta as Obj)[RELATED].taskId, handle.taskId);
      assert.is((await handle.status()).status, 'completed');
      assert.is(progress[progress.length - 1], 10);
      assert.equal(
        progress,
        [...progress].sort((x, y) => x - y),
        'progress increases',
      );
    },
  );

  t(
    'slow_compute cancelled: tasks/cancel answers cancelled, result() rejects -32602, the task stays cancelled',
    async () => {
      const handle = await callWithTask(
        a.client,
        'tools/call',
        { name: 'slow_compute', arguments: { seconds: 60 } },
        { task: { ttl: 60_000 } },
      );
      const pending = rejection(handle.result());
      const cancelled = await handle.cancel();
      assert.is(cancelled.status, 'cancelled');
      assert.is(cancelled.statusMessage, 'The task was cancelled by request.');
      const e = await pending;
      assert.instance(e, RpcError);
      assert.is(e.code, -32602);
      assert.is(e.message, 'Task was cancelled');
      assert.is((await a.client.getTask({ taskId: handle.taskId })).status, 'cancelled');
      assert.is((await rejection(handle.cancel())).code, -32602, 'a terminal task cannot be cancelled again');
    },
  );

  t("failing_job: the task ends failed and result() rejects with the job's JSON-RPC error", async () => {
    let handle: TaskHandle<unknown> | undefined;
    const e = await rejection(
      a.client.callTool(
        { name: 'failing_job', arguments: { reason: 'disk on fire' } },
        { task: { ttl: 60_000 }, onTask: (h) => (handle = h) },
      ),
    );
    assert.instance(e, RpcError);
    assert.is(e.code, -32000);
    assert.is(e.message, 'Job failed: disk on fire');
    assert.equal(e.data, { reason: 'disk on fire' });
    const t2 = await a.client.getTask({ taskId: handle!.taskId });
    assert.is(t2.status, 'failed');
    assert.is(t2.statusMessage, 'Job failed: disk on fire');
  });

  t('failing_job mode tool_error: the task ends failed and result() answers the isError result', async () => {
    const handle = await callWithTask(
      a.client,
      'tools/call',
      { name: 'failing_job', arguments: { mode: 'tool_error' } },
      { task: { ttl: 60_000 } },
    );
    const r = await handle.result();
    assert.is(r.isError, true);
    assert.is(textOf(r), 'Job failed: the job backend is unavailable');
    const t2 = await handle.status();
    assert.is(t2.status, 'failed');
    assert.is(t2.statusMessage, 'Tool execution failed: Job failed: the job backend is unavailable');
  });

  t(
    'confirm_job: input_required while the client answers the elicitation, then completed with the answer',
    async () => {
      const before = a.elicitations.length;
      const handle = await callWithTask(
        a.client,
        'tools/call',
        { name: 'confirm_job', arguments: { action: 'release' } },
        { task: { ttl: 60_000 } },
      );
      const seen = await statuses(handle);
      assert.is(seen[seen.length - 1].status, 'completed');
      assert.is(textOf(await handle.result()), 'Confirmed: release done');
      const asked = a.elicitations.slice(before);
      assert.is(asked.length, 1);
      assert.is(asked[0].params.message, 'Run "release"?');
      assert.is(asked[0].params._meta[RELATED].taskId, handle.taskId, 'the elicitation names its task');
      assert.is(asked[0].statusMeanwhile, 'input_required');
    },
  );

  t('confirm_job answered with confirm=false: completed, the action skipped', async () => {
    const other = await connect(transport(), false);
    try {
      const r = await other.client.callTool({ name: 'confirm_job', arguments: {} }, { task: { ttl: 60_000 } });
      assert.is(textOf(r), 'Not confirmed: deploy skipped');
      assert.is(other.elicitations[0].statusMeanwhile, 'input_required');
    } finally {
      await other.client.close();
    }
  });

  t(
    "tasks/list: this session's tasks; another session sees none of them and cannot get, cancel or read them",
    async () => {
      const handle = await callWithTask(
        a.client,
        'tools/call',
        { name: 'batch_job', arguments: { items: 4 } },
        { task: { ttl: 60_000 } },
      );
      assert.is(textOf(await handle.result()), 'Processed 4 items');
      const listed = await a.client.listTasks({});
      const mine = listed.tasks.find((x) => x.taskId === handle.taskId);
      assert.is(mine?.status, 'completed');
      assert.ok(listed.tasks.length >= 6, `the earlier tests' tasks too: ${listed.tasks.length}`);
      const other = await connect(transport());
      try {
        assert.equal((await other.client.listTasks({})).tasks, []);
        assert.is((await rejection(other.client.getTask({ taskId: handle.taskId }))).code, -32602);
        assert.is((await rejection(other.client.getTaskPayload({ taskId: handle.taskId }))).code, -32602);
        assert.is((await rejection(other.client.cancelTask({ taskId: handle.taskId }))).code, -32602);
      } finally {
        await other.client.close();
      }
    },
  );

  t(
    'batch_job (taskSupport required) without a task, echo (none) with one: -32601; slow_compute and confirm_job (optional) run inline',
    async () => {
      const e = await rejection(a.client.callTool({ name: 'batch_job', arguments: {} }));
      assert.instance(e, RpcError);
      assert.is(e.code, -32601);
      assert.match(e.message, /requires task-augmented execution/);
      const forbidden = await rejection(
        callWithTask(a.client, 'tools/call', { name: 'echo', arguments: { text: 'x' } }, { task: { ttl: 1000 } }),
      );
      assert.is(forbidden.code, -32601, 'a fixture tool without taskSupport refuses a task');
      const r = await a.client.callTool({ name: 'slow_compute', arguments: { seconds: 0 } });
      assert.equal(r.structuredContent, { seconds: 0, steps: 10, n: 1000, sum: 500500 });
      assert.is(r._meta, undefined, 'no related-task _meta on a plain call');
      const before = a.elicitations.length;
      assert.is(
        textOf(await a.client.callTool({ name: 'confirm_job', arguments: { action: 'backup' } })),
        'Confirmed: backup done',
      );
      assert.is(a.elicitations[before].statusMeanwhile, 'no task');
    },
  );

  t.run();
}

const cli = suite('mcpgen call: task tools without a task');
const callCli = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [bin, 'call', ...args], { cwd: root, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });

cli('call --stdio tools/call slow_compute runs it inline; batch_job fails -32601 with exit 1', async () => {
  const serve = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} serve --rev 2025-11-25 --stdio`;
  const r = await callCli('--stdio', serve, 'tools/call', '{"name":"slow_compute","arguments":{"seconds":0.1}}');
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).structuredContent, { seconds: 0.1, steps: 10, n: 1000, sum: 500500 });
  const b = await callCli('--stdio', serve, 'tools/call', '{"name":"batch_job","arguments":{}}');
  assert.is(b.code, 1);
  assert.is(b.stdout, '');
  assert.match(b.stderr, /tools\/call failed: -32601 Tool "batch_job" requires task-augmented execution/);
});

cli('call --url tools/call failing_job: its JSON-RPC error on stderr, exit 1', async () => {
  const http = await startHttpServe();
  try {
    const r = await callCli(
      '--url',
      http.url,
      'tools/call',
      '{"name":"failing_job","arguments":{"reason":"no quota"}}',
    );
    assert.is(r.code, 1);
    assert.match(r.stderr, /tools\/call failed: -32000 Job failed: no quota \{"reason":"no quota"\}/);
    const s = await callCli('--url', http.url, 'tools/call', '{"name":"slow_compute","arguments":{"seconds":0}}');
    assert.is(s.code, 0, s.stderr);
    assert.match(JSON.parse(s.stdout).content[0].text, /= 500500$/);
  } finally {
    await http.stop();
  }
});

cli.run();
