/**
 * A generated draft Server with the tasks extension and a raw JSON-RPC client over the memory
 * pair, so the tests see the wire exactly: every request carries the stateless `_meta`, with
 * or without `extensions["io.modelcontextprotocol/tasks"]` in its client capabilities.
 */
import { Server, table } from '../../../../generated/draft/index.js';
import { ServerFeatures } from '../../../../runtime/features/server-features.js';
import { TASKS_EXTENSION, TasksExtension, type TasksExtensionOptions } from '../../../../runtime/tasks/extension.js';
import { createMemoryPair, type MemoryTransport } from '../../../../runtime/transport/memory.js';
import type { JSONRPCMessage } from '../../../../runtime/jsonrpc/transport.js';
import type { ProtocolTable } from '../../../../runtime/protocol/table.js';

type Obj = Record<string, unknown>;
export type Answer =
  | { result: Obj; error?: undefined }
  | { error: { code: number; message: string; data?: Obj }; result?: undefined };

/** Client capabilities declaring the extension (and elicitation), or none of it. */
export const WITH_TASKS: Obj = { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } };
export const WITHOUT_TASKS: Obj = { elicitation: {} };

export const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts a draft Server whose tools come from `setup(features, tasks)`, with the extension
 * wired as the module doc of runtime/tasks/extension.ts shows.
 */
export async function start(
  setup: (f: ServerFeatures, tasks: TasksExtension) => void,
  options: Partial<TasksExtensionOptions> = {},
) {
  const features = new ServerFeatures();
  const tasks = new TasksExtension({ table: table as ProtocolTable, ...options });
  setup(features, tasks);
  const server = new Server({
    serverInfo: { name: 'tasks-test', version: '1.0.0' },
    capabilities: tasks.capabilities(features.capabilities()),
    handlers: tasks.handlers(features.handlers({ table })) as never,
    extensionMethods: tasks.methods,
  });
  const [a, b] = createMemoryPair();
  await server.connect(b);
  const client = await rawClient(a);
  const close = async () => {
    tasks.close();
    await server.close();
  };
  return { server, tasks, features, ...client, close };
}

/** A raw JSON-RPC client on one end of a memory pair (see the module doc). */
export async function rawClient(a: MemoryTransport) {
  const waiting = new Map<number, (m: Answer) => void>();
  await a.start({
    onMessage: (m: JSONRPCMessage) => {
      if (typeof m.id === 'number' && !('method' in m)) waiting.get(m.id)?.(m as unknown as Answer);
    },
    onClose: () => undefined,
  });
  let next = 1;
  /** Sends one request with the stateless `_meta` (client capabilities `caps`) and resolves with the response. */
  const send = (method: string, params: Obj = {}, caps: Obj = WITH_TASKS): Promise<Answer> => {
    const id = next++;
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': caps,
      ...(params._meta as Obj | undefined),
    };
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      void a.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta } } as JSONRPCMessage);
    });
  };
  /** The result of a request (throws with the error when it failed). */
  const call = async (method: string, params: Obj = {}, caps: Obj = WITH_TASKS): Promise<Obj> => {
    const r = await send(method, params, caps);
    if (r.error) throw Object.assign(new Error(`${method}: ${r.error.code} ${r.error.message}`), r.error);
    return r.result;
  };
  /** Polls tasks/get until `done(task)` (default: a terminal status), at most `ms`. */
  const until = async (
    taskId: string,
    done: (t: Obj) => boolean = (t) => ['completed', 'failed', 'cancelled'].includes(String(t.status)),
    ms = 3000,
  ): Promise<Obj> => {
    const end = Date.now() + ms;
    for (;;) {
      const t = await call('tasks/get', { taskId });
      if (done(t) || Date.now() > end) return t;
      await tick(10);
    }
  };
  return { send, call, until };
}
