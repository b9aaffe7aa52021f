/**
 * Tasks interop over Streamable HTTP (real sockets on 127.0.0.1) with SDK 1.32.2 clients: the
 * generated Server, one per HTTP session on the runtime's createStreamableHttpHandler, each with
 * a task receiver sharing one InMemoryTaskStore (so isolation between sessions is the owner
 * key's doing, not separate stores).
 * - SDK Client (`client.experimental.tasks`, StreamableHTTPClientTransport) → generated Server:
 *   task-augmented tools/call (callToolStream), tasks/get, tasks/result, tasks/cancel,
 *   tasks/list with pagination, notifications/tasks/status on the standalone GET stream,
 *   progress after the CreateTaskResult, input_required while the task elicits from the
 *   client, a failing task, ttl expiry, concurrent tasks, the taskSupport errors, and the
 *   -32602 errors for unknown and terminal tasks;
 * - generated Server → SDK Client as task receiver (its taskStore): sampling/createMessage and
 *   elicitation/create as tasks through callWithTask (status, updates, result, list, cancel,
 *   the SDK client's status notifications);
 * - isolation: a second session never sees (get, result, list, cancel) the first's tasks; with
 *   the owner bound to the Authorization header, one caller's sessions share tasks; ended
 *   sessions leave no listener on the shared store.
 * Each suite runs with JSON and with SSE replies.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTaskStore as SdkTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  McpError,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Server } from '../../../generated/2025-11-25/index.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import type { RequestContext } from '../../../runtime/engine/peer.js';
import { attachTaskReceiver } from '../../../runtime/tasks/receiver.js';
import { callWithTask } from '../../../runtime/tasks/requestor.js';
import { InMemoryTaskStore } from '../../../runtime/stores/tasks.js';
import {
  type ReplyMode,
  type StreamableHttpHandler,
  createStreamableHttpHandler,
} from '../../../runtime/transport/http/session/server.js';
import { RELATED, rejection, sleep, work } from './support.js';
import { SESSION_TABLES } from '../transport/http/tables.js';

const textOf = (r: unknown) =>
  ((r as { content?: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');
type Obj = Record<string, any>;

// ---- the generated Server over HTTP, one per session, tasks in one shared store ------------------

/** The shared store, counting its subscribers (receivers listen while they run tasks). */
class CountingStore extends InMemoryTaskStore {
  listeners = 0;
  override subscribe(listener: Parameters<InMemoryTaskStore['subscribe']>[0]): () => void {
    const off = super.subscribe(listener);
    this.listeners++;
    let on = true;
    return () => {
      if (on) this.listeners--;
      on = false;
      off();
    };
  }
}
const store = new CountingStore();
const servers = new Map<string, Server>();
/** notifications/tasks/status params the servers received (from SDK clients that are receivers). */
const clientStatuses: Obj[] = [];
let handler: StreamableHttpHandler;
let http: HttpServer;
let url: URL;

function sessionServer(): Server {
  const server = new Server({
    serverInfo: { name: 'mcpgen-tasks-http', version: '1.0.0' },
    capabilities: { tools: {} },
    notificationHandlers: { 'notifications/tasks/status': (p) => void clientStatuses.push(p) },
    handlers: {
      'tools/list': () => ({
        tools: [
          { name: 'sleep', inputSchema: { type: 'object', properties: { ms: { type: 'number' } } } },
          { name: 'must', inputSchema: { type: 'object' } },
          { name: 'plain', inputSchema: { type: 'object' } },
          { name: 'asks', inputSchema: { type: 'object' } },
          { name: 'fails', inputSchema: { type: 'object' } },
        ],
      }),
      'tools/call': async (p, ctx: RequestContext) => {
        const args = (p.arguments ?? {}) as Obj;
        switch (p.name) {
          case 'asks': {
            const r = await ctx.sendRequest<Obj>('elicitation/create', {
              mode: 'form',
              message: 'Your name?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
            });
            return { content: [{ type: 'text', text: `hello ${r.content?.name} (${r.action})` }] };
          }
          case 'fails':
            throw new RpcError(-32050, 'backend unavailable', { retry: true });
          default: {
            if (args.progress) await ctx.sendProgress(1, 2, 'started');
            await work(Number(args.ms ?? 0), ctx.signal);
            if (args.progress) await ctx.sendProgress(2, 2, 'finishing');
            return { content: [{ type: 'text', text: `${p.name} ${Number(args.ms ?? 0)}` }] };
          }
        }
      },
    },
  });
  attachTaskReceiver(server, {
    store,
    tools: { sleep: 'optional', must: 'required', asks: 'optional', fails: 'optional' },
    pollInterval: 20,
    pageSize: 2,
    // bound to the caller's authorization when it sends one, else to the HTTP session
    owner: (ctx) => ctx.info?.headers?.authorization,
  });
  return server;
}

async function startServer(replyMode: ReplyMode): Promise<void> {
  handler = createStreamableHttpHandler({
    tables: SESSION_TABLES,
    replyMode,
    retryMs: 20,
    onSession: async (transport, info) => {
      const server = sessionServer();
      servers.set(info.sessionId, server);
      await server.connect(transport);
    },
  });
  http = createServer(handler);
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
}

async function stopServer(): Promise<void> {
  await handler.close();
  const closed = new Promise<void>((r) => http.close(() => r()));
  http.closeAllConnections();
  await closed;
}

interface Connected {
  sdk: SdkClient;
  transport: StreamableHTTPClientTransport;
  /** notifications/tasks/status params received, in order. */
  statuses: Obj[];
  /** elicitation/create params received, in order. */
  elicitations: Obj[];
  /** The generated Server serving this session. */
  server: Server;
  /** The SDK client's own task store when it is a receiver. */
  taskStore?: SdkTaskStore;
}

async function connectSdk(options: { receiver?: boolean; authorization?: string } = {}): Promise<Connected> {
  const taskStore = options.receiver ? new SdkTaskStore() : undefined;
  const capabilities: Obj = { sampling: {}, elicitation: { form: {} } };
  if (taskStore)
    capabilities.tasks = {
      list: {},
      cancel: {},
      requests: { sampling: { createMessage: {} }, elicitation: { create: {} } },
    };
  const sdk = new SdkClient({ name: 'sdk-tasks-http', version: '1.0.0' }, { capabilities, taskStore });
  const statuses: Obj[] = [];
  const elicitations: Obj[] = [];
  sdk.setNotificationHandler(TaskStatusNotificationSchema, (n) => void statuses.push(n.params));
  sdk.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
    elicitations.push(req.params);
    const content = { name: `Ada (${req.params.message})` };
    if (req.params.task && extra.taskStore) {
      const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl, pollInterval: 20 });
      await extra.taskStore.storeTaskResult(task.taskId, 'completed', { action: 'accept', content });
      return { task } as never;
    }
    return { action: 'accept', content };
  });
  sdk.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => {
    const text = (req.params.messages[0]!.content as { text?: string }).text ?? '';
    const result = {
      role: 'assistant' as const,
      content: { type: 'text' as const, text: `sdk echo: ${text}` },
      model: 'sdk-model',
      stopReason: 'endTurn',
    };
    if (req.params.task && extra.taskStore) {
      const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl, pollInterval: 20 });
      // "hold" tasks stay working until cancelled; the others complete a little later
      if (text !== 'hold')
        setTimeout(
          () => void extra.taskStore!.storeTaskResult(task.taskId, 'completed', result).catch(() => undefined),
          100,
        );
      return { task } as never;
    }
    return result;
  });
  const headers = options.authorization ? { Authorization: options.authorization } : undefined;
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  await sdk.connect(transport);
  const server = servers.get(transport.sessionId!);
  if (!server) throw new Error('no server for the new session');
  return { sdk, transport, statuses, elicitations, server, taskStore };
}

/** Waits (up to 20 s of real events) until `pick` finds something in `list`. */
async function eventually<T>(list: T[], pick: (x: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const hit = list.find(pick);
    if (hit !== undefined) return hit;
    await sleep(20);
  }
  throw new Error(`never received ${what}`);
}

/** Every task of the session, following nextCursor. */
async function listAll(sdk: SdkClient): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await sdk.experimental.tasks.listTasks(cursor);
    pages++;
    ids.push(...page.tasks.map((t) => t.taskId));
    cursor = page.nextCursor;
  } while (cursor !== undefined && pages < 100);
  return { ids, pages };
}

/** A task-augmented tools/call through the SDK's raw request: the CreateTaskResult's task. */
const create = async (c: Connected, name: string, args: Obj, ttl = 60_000) =>
  (
    (await c.sdk.request(
      { method: 'tools/call', params: { name, arguments: args, task: { ttl } } },
      CreateTaskResultSchema,
    )) as { task: Obj }
  ).task;

/** The McpError `p` rejects with (fails the test when it resolves or rejects with anything else). */
const mcpErrorOf = async (p: Promise<unknown>): Promise<{ code: number; message: string }> => {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  assert.instance(e, McpError);
  return { code: (e as McpError).code, message: (e as McpError).message };
};

// ---- SDK Client → generated Server ---------------------------------------------------------------

for (const reply of ['json', 'sse'] as const) {
  const toOurs = suite(`tasks over HTTP: SDK Client → generated Server with a task receiver (${reply} replies)`);
  let a: Connected;

  toOurs.before(async () => {
    await startServer(reply);
    a = await connectSdk();
  });
  toOurs.after(async () => {
    await a.sdk.close();
  });

  toOurs('capabilities and tools/list carry the task support', async () => {
    assert.equal(a.sdk.getServerCapabilities()!.tasks, { requests: { tools: { call: {} } }, list: {}, cancel: {} });
    const { tools } = await a.sdk.listTools();
    assert.equal(Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport])), {
      sleep: 'optional',
      must: 'required',
      plain: undefined,
      asks: 'optional',
      fails: 'optional',
    });
  });

  toOurs(
    'callToolStream: taskCreated (working, ttl, pollInterval), statuses, result; completed status notification',
    async () => {
      const kinds: string[] = [];
      let created: Obj | undefined;
      let result: Obj | undefined;
      for await (const m of a.sdk.experimental.tasks.callToolStream(
        { name: 'sleep', arguments: { ms: 150 } },
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
      assert.ok(kinds.includes('taskStatus'));
      assert.is(created!.status, 'working');
      assert.is(created!.ttl, 60_000);
      assert.is(created!.pollInterval, 20);
      assert.is(textOf(result), 'sleep 150');
      assert.is(result!._meta[RELATED].taskId, created!.taskId);
      const note = await eventually(
        a.statuses,
        (s) => s.taskId === created!.taskId && s.status === 'completed',
        'a completed status notification',
      );
      assert.is(note.ttl, 60_000);
      assert.is(note._meta, undefined);
      assert.is((await a.sdk.experimental.tasks.getTask(created!.taskId)).status, 'completed');
      // tasks/result can be asked again while the task is kept
      assert.is(
        textOf(await a.sdk.experimental.tasks.getTaskResult(created!.taskId, CallToolResultSchema)),
        'sleep 150',
      );
    },
  );

  toOurs("progress of a task reaches the SDK during the task's life, after the CreateTaskResult", async () => {
    const progress: Obj[] = [];
    let result: Obj | undefined;
    const options = { task: { ttl: 60_000 }, onprogress: (p: Obj) => void progress.push(p) };
    for await (const m of a.sdk.experimental.tasks.callToolStream(
      { name: 'sleep', arguments: { ms: 100, progress: true } },
      undefined,
      options,
    )) {
      if (m.type === 'result') result = m.result;
      if (m.type === 'error') throw m.error;
    }
    assert.is(textOf(result), 'sleep 100');
    await eventually(progress, (p) => p.progress === 2, 'the second progress notification');
    assert.equal(
      progress.map((p) => [p.progress, p.total, p.message]),
      [
        [1, 2, 'started'],
        [2, 2, 'finishing'],
      ],
    );
  });

  toOurs(
    'tasks/get, tasks/list, tasks/cancel, then the cancelled task: cancel again and tasks/result → -32602',
    async () => {
      const task = await create(a, 'sleep', { ms: 600_000 });
      assert.is(task.status, 'working');
      const got = await a.sdk.experimental.tasks.getTask(task.taskId);
      assert.is(got.status, 'working');
      assert.is(got.createdAt, task.createdAt);
      assert.ok((await listAll(a.sdk)).ids.includes(task.taskId));
      const cancelled = await a.sdk.experimental.tasks.cancelTask(task.taskId);
      assert.is(cancelled.status, 'cancelled');
      assert.is(cancelled.statusMessage, 'The task was cancelled by request.');
      await eventually(
        a.statuses,
        (s) => s.taskId === task.taskId && s.status === 'cancelled',
        'a cancelled status notification',
      );
      assert.is((await a.sdk.experimental.tasks.getTask(task.taskId)).status, 'cancelled');
      const again = await mcpErrorOf(a.sdk.experimental.tasks.cancelTask(task.taskId));
      assert.is(again.code, -32602);
      assert.match(again.message, /already in terminal status 'cancelled'/);
      const result = await mcpErrorOf(a.sdk.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema));
      assert.equal(result, { code: -32602, message: 'MCP error -32602: Task was cancelled' });
    },
  );

  toOurs(
    'ttl: once a task\'s ttl (ms) has passed, tasks/get and tasks/result answer -32602 "Task has expired"; tasks/list drops it',
    async () => {
      const t = await create(a, 'sleep', { ms: 600_000 }, 150);
      assert.is(t.ttl, 150);
      let gone: unknown;
      for (let i = 0; i < 1000 && gone === undefined; i++) {
        gone = await a.sdk.experimental.tasks.getTask(t.taskId).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (gone === undefined) await sleep(20);
      }
      const expired = { code: -32602, message: 'MCP error -32602: Failed to retrieve task: Task has expired' };
      assert.equal(await mcpErrorOf(Promise.reject(gone)), expired);
      assert.equal(await mcpErrorOf(a.sdk.experimental.tasks.getTaskResult(t.taskId, CallToolResultSchema)), expired);
      assert.not.ok((await listAll(a.sdk)).ids.includes(t.taskId));
    },
  );

  toOurs('six callToolStream tasks at once on one session: each ends with its own result', async () => {
    const run = async (ms: number) => {
      let id = '';
      let text = '';
      for await (const m of a.sdk.experimental.tasks.callToolStream({ name: 'sleep', arguments: { ms } }, undefined, {
        task: { ttl: 60_000 },
      })) {
        if (m.type === 'taskCreated') id = m.task.taskId;
        if (m.type === 'result') text = textOf(m.result);
        if (m.type === 'error') throw m.error;
      }
      return { id, text };
    };
    const out = await Promise.all([90, 10, 70, 30, 50, 0].map(run));
    assert.equal(
      out.map((o) => o.text),
      ['sleep 90', 'sleep 10', 'sleep 70', 'sleep 30', 'sleep 50', 'sleep 0'],
    );
    assert.is(new Set(out.map((o) => o.id)).size, 6);
  });

  toOurs('unknown task: tasks/get, tasks/result and tasks/cancel → -32602 "Task not found"', async () => {
    for (const p of [
      a.sdk.experimental.tasks.getTask('no-such-task'),
      a.sdk.experimental.tasks.getTaskResult('no-such-task', CallToolResultSchema),
      a.sdk.experimental.tasks.cancelTask('no-such-task'),
    ]) {
      assert.equal(await mcpErrorOf(p), {
        code: -32602,
        message: 'MCP error -32602: Failed to retrieve task: Task not found',
      });
    }
  });

  toOurs(
    'taskSupport: required tool without a task → -32601 (the SDK refuses locally with -32600); forbidden tool with a task → -32601',
    async () => {
      const remote = await mcpErrorOf(
        a.sdk.request({ method: 'tools/call', params: { name: 'must', arguments: {} } }, CallToolResultSchema),
      );
      assert.is(remote.code, -32601);
      assert.match(remote.message, /requires task-augmented execution/);
      const local = await mcpErrorOf(a.sdk.callTool({ name: 'must', arguments: {} }));
      assert.is(local.code, -32600);
      const kinds: string[] = [];
      let error: McpError | undefined;
      for await (const m of a.sdk.experimental.tasks.callToolStream({ name: 'plain', arguments: {} }, undefined, {
        task: { ttl: 1000 },
      })) {
        kinds.push(m.type);
        if (m.type === 'error') error = m.error;
      }
      assert.equal(kinds, ['error']);
      assert.is(error!.code, -32601);
      assert.match(error!.message, /does not support task-augmented execution/);
      // and a required tool as a task runs
      const must = await create(a, 'must', { ms: 5 });
      assert.is(textOf(await a.sdk.experimental.tasks.getTaskResult(must.taskId, CallToolResultSchema)), 'must 5');
    },
  );

  toOurs(
    'a failing task: status failed with the error message; tasks/result answers the stored JSON-RPC error (-32050)',
    async () => {
      const kinds: string[] = [];
      let last: Obj | undefined;
      let error: McpError | undefined;
      for await (const m of a.sdk.experimental.tasks.callToolStream({ name: 'fails', arguments: {} }, undefined, {
        task: { ttl: 60_000 },
      })) {
        kinds.push(m.type);
        if (m.type === 'taskCreated' || m.type === 'taskStatus') last = m.task;
        if (m.type === 'error') error = m.error;
      }
      assert.is(kinds[kinds.length - 1], 'error');
      assert.is(last!.status, 'failed');
      assert.is(last!.statusMessage, 'backend unavailable');
      assert.match(error!.message, /failed/);
      const stored = await mcpErrorOf(a.sdk.experimental.tasks.getTaskResult(last!.taskId, CallToolResultSchema));
      assert.equal(stored, { code: -32050, message: 'MCP error -32050: backend unavailable' });
    },
  );

  toOurs(
    'input_required: the task elicits from the SDK client (related-task _meta), then completes with its answer',
    async () => {
      let created: Obj | undefined;
      let result: Obj | undefined;
      for await (const m of a.sdk.experimental.tasks.callToolStream({ name: 'asks', arguments: {} }, undefined, {
        task: { ttl: 60_000 },
      })) {
        if (m.type === 'taskCreated') created = m.task;
        if (m.type === 'result') result = m.result;
        if (m.type === 'error') throw m.error;
      }
      assert.is(textOf(result), 'hello Ada (Your name?) (accept)');
      const asked = a.elicitations[a.elicitations.length - 1];
      assert.equal(asked._meta[RELATED], { taskId: created!.taskId });
      assert.is(asked.task, undefined);
      await eventually(
        a.statuses,
        (s) => s.taskId === created!.taskId && s.status === 'input_required',
        'an input_required status notification',
      );
      await eventually(
        a.statuses,
        (s) => s.taskId === created!.taskId && s.status === 'completed',
        'a completed status notification',
      );
      const order = a.statuses.filter((s) => s.taskId === created!.taskId).map((s) => s.status);
      assert.ok(order.indexOf('input_required') < order.indexOf('completed'), order.join());
    },
  );

  toOurs('tasks/list pages (pageSize 2) through nextCursor, newest last; a bad cursor → -32602', async () => {
    const c = await connectSdk();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await create(c, 'sleep', { ms: 1 })).taskId);
      const first = await c.sdk.experimental.tasks.listTasks();
      assert.is(first.tasks.length, 2);
      assert.type(first.nextCursor, 'string');
      const all = await listAll(c.sdk);
      assert.equal(all.ids, ids);
      assert.is(all.pages, 3);
      const bad = await mcpErrorOf(c.sdk.experimental.tasks.listTasks('not-a-cursor'));
      assert.is(bad.code, -32602);
    } finally {
      await c.sdk.close();
    }
  });

  toOurs.run();

  // ---- isolation: two HTTP sessions, one store ------------------------------------------------------

  const isolation = suite(`tasks over HTTP: one session never sees another's tasks (${reply} replies)`);

  isolation(
    "session B: get, result, cancel of A's task → -32602 not found; list shows only B's own; A's task untouched",
    async () => {
      const [sa, sb] = [await connectSdk(), await connectSdk()];
      try {
        assert.is.not(sa.transport.sessionId, sb.transport.sessionId);
        const ta = await create(sa, 'sleep', { ms: 600_000 });
        const tb = await create(sb, 'sleep', { ms: 600_000 });
        const notFound = { code: -32602, message: 'MCP error -32602: Failed to retrieve task: Task not found' };
        assert.equal(await mcpErrorOf(sb.sdk.experimental.tasks.getTask(ta.taskId)), notFound);
        assert.equal(
          await mcpErrorOf(sb.sdk.experimental.tasks.getTaskResult(ta.taskId, CallToolResultSchema)),
          notFound,
        );
        assert.equal(await mcpErrorOf(sb.sdk.experimental.tasks.cancelTask(ta.taskId)), notFound);
        assert.equal(await mcpErrorOf(sa.sdk.experimental.tasks.cancelTask(tb.taskId)), notFound);
        assert.equal((await listAll(sb.sdk)).ids, [tb.taskId]);
        assert.equal((await listAll(sa.sdk)).ids, [ta.taskId]);
        // A's task is still running, in the shared store under A's session
        assert.is((await sa.sdk.experimental.tasks.getTask(ta.taskId)).status, 'working');
        assert.is((await store.get(`session:${sa.transport.sessionId}`, ta.taskId))?.status, 'working');
        assert.is(await store.get(`session:${sb.transport.sessionId}`, ta.taskId), undefined);
        assert.is((await sa.sdk.experimental.tasks.cancelTask(ta.taskId)).status, 'cancelled');
        assert.is((await sb.sdk.experimental.tasks.cancelTask(tb.taskId)).status, 'cancelled');
        await eventually(
          sa.statuses,
          (s) => s.taskId === ta.taskId && s.status === 'cancelled',
          "A's cancelled notification",
        );
        await eventually(
          sb.statuses,
          (s) => s.taskId === tb.taskId && s.status === 'cancelled',
          "B's cancelled notification",
        );
        // each session's status notifications name only its own tasks
        assert.ok(sb.statuses.every((s) => s.taskId !== ta.taskId));
        assert.ok(sa.statuses.every((s) => s.taskId !== tb.taskId));
      } finally {
        await sa.sdk.close();
        await sb.sdk.close();
      }
    },
  );

  isolation(
    'ended sessions leave nothing on the shared store: receivers listen to it only while their tasks run',
    async () => {
      const ended: Connected[] = [];
      for (let i = 0; i < 3; i++) {
        const c = await connectSdk();
        const t = await create(c, 'sleep', { ms: 10 });
        assert.is(textOf(await c.sdk.experimental.tasks.getTaskResult(t.taskId, CallToolResultSchema)), 'sleep 10');
        ended.push(c);
      }
      const running = await create(ended[0], 'sleep', { ms: 600_000 });
      assert.ok(store.listeners >= 1, 'the receiver running a task listens');
      assert.is((await ended[0].sdk.experimental.tasks.cancelTask(running.taskId)).status, 'cancelled');
      for (const c of ended) {
        await c.transport.terminateSession();
        await c.sdk.close();
      }
      for (let i = 0; i < 1000 && store.listeners > 0; i++) await sleep(20);
      assert.is(store.listeners, 0);
    },
  );

  isolation(
    'owner from the Authorization header: two sessions of one caller share tasks (get, list, result, cancel across sessions), another caller sees none',
    async () => {
      const [alice1, alice2, bob] = [
        await connectSdk({ authorization: `Bearer alice-${reply}` }),
        await connectSdk({ authorization: `Bearer alice-${reply}` }),
        await connectSdk({ authorization: `Bearer bob-${reply}` }),
      ];
      try {
        const quick = await create(alice1, 'sleep', { ms: 30 });
        const long = await create(alice1, 'sleep', { ms: 600_000 });
        assert.is(
          textOf(await alice2.sdk.experimental.tasks.getTaskResult(quick.taskId, CallToolResultSchema)),
          'sleep 30',
        );
        assert.equal((await listAll(alice2.sdk)).ids, [quick.taskId, long.taskId]);
        assert.equal((await listAll(bob.sdk)).ids, []);
        const notFound = { code: -32602, message: 'MCP error -32602: Failed to retrieve task: Task not found' };
        assert.equal(await mcpErrorOf(bob.sdk.experimental.tasks.getTask(long.taskId)), notFound);
        assert.equal(await mcpErrorOf(bob.sdk.experimental.tasks.cancelTask(long.taskId)), notFound);
        // cancelled from alice's other session: the session running it aborts it and notifies its own client
        assert.is((await alice2.sdk.experimental.tasks.cancelTask(long.taskId)).status, 'cancelled');
        await eventually(
          alice1.statuses,
          (x) => x.taskId === long.taskId && x.status === 'cancelled',
          'the cancelled notification on the running session',
        );
        assert.is((await alice1.sdk.experimental.tasks.getTask(long.taskId)).status, 'cancelled');
        assert.is((await store.get(`Bearer alice-${reply}`, long.taskId))?.status, 'cancelled');
      } finally {
        for (const c of [alice1, alice2, bob]) await c.sdk.close();
      }
    },
  );

  isolation.run();

  // ---- generated Server → SDK Client as task receiver (sampling, elicitation) ----------------------

  const toSdk = suite(`tasks over HTTP: generated Server → SDK Client as task receiver (${reply} replies)`);
  let r: Connected;

  toSdk.before(async () => {
    r = await connectSdk({ receiver: true });
  });
  toSdk.after(async () => {
    await r.sdk.close();
    r.taskStore?.cleanup();
    await stopServer();
  });

  toSdk('sampling/createMessage as a task: handle, updates to completed, result with related-task _meta', async () => {
    assert.equal(r.server.client!.capabilities.tasks, {
      list: {},
      cancel: {},
      requests: { sampling: { createMessage: {} }, elicitation: { create: {} } },
    });
    const handle = await callWithTask(
      r.server,
      'sampling/createMessage',
      { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 },
      { task: { ttl: 30_000 } },
    );
    assert.is(handle.task.status, 'working');
    assert.is(handle.task.ttl, 30_000);
    assert.is(handle.task.pollInterval, 20);
    const statuses: string[] = [];
    for await (const t of handle.updates()) statuses.push(t.status);
    assert.is(statuses[0], 'working');
    assert.is(statuses[statuses.length - 1], 'completed');
    const result = await handle.result();
    assert.equal(result.content, { type: 'text', text: 'sdk echo: hi' });
    assert.is(result.model, 'sdk-model');
    assert.equal((result._meta as Obj)[RELATED], { taskId: handle.taskId });
    assert.is((await r.server.getTask({ taskId: handle.taskId })).status, 'completed');
    // the SDK client's task store notified the completion (a POST to our server)
    const note = await eventually(
      clientStatuses,
      (x) => x.taskId === handle.taskId && x.status === 'completed',
      "the SDK client's completed notification",
    );
    assert.is(note.ttl, 30_000);
  });

  toSdk('elicitation/create as a task: the ElicitResult comes from tasks/result', async () => {
    const handle = await callWithTask(
      r.server,
      'elicitation/create',
      { mode: 'form', message: 'who?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
      { ttl: 30_000 },
    );
    assert.type(handle.taskId, 'string');
    const result = await handle.result();
    assert.is(result.action, 'accept');
    assert.equal(result.content, { name: 'Ada (who?)' });
  });

  toSdk(
    'tasks/list and tasks/cancel on the SDK client; cancel of the cancelled task and tasks/get of an unknown one → -32602',
    async () => {
      const handle = await callWithTask(
        r.server,
        'sampling/createMessage',
        { messages: [{ role: 'user', content: { type: 'text', text: 'hold' } }], maxTokens: 10 },
        { ttl: 30_000 },
      );
      const listed = await r.server.listTasks();
      assert.ok(listed.tasks.some((t) => t.taskId === handle.taskId && t.status === 'working'));
      const cancelled = await handle.cancel();
      assert.is(cancelled.status, 'cancelled');
      assert.is(cancelled.statusMessage, 'Client cancelled task execution.');
      assert.is((await handle.status()).status, 'cancelled');
      const again = await rejection(handle.cancel());
      assert.is(again.code, -32602);
      // the SDK puts its McpError's message (with the "MCP error <code>: " prefix) on the wire
      assert.is(again.message, 'MCP error -32602: Cannot cancel task in terminal status: cancelled');
      const unknown = await rejection(r.server.getTask({ taskId: 'no-such-task' }));
      assert.is(unknown.code, -32602);
    },
  );

  toSdk.run();
}
