/** Shared fixtures of the task tests: a 2025-11-25 server with task-capable tools, over the memory pair. */
import { Client, Server } from '../../../generated/2025-11-25/index.js';
import type { RequestContext } from '../../../runtime/engine/peer.js';
import { RpcError } from '../../../runtime/jsonrpc/errors.js';
import { attachTaskReceiver, type TaskReceiver, type TaskReceiverOptions } from '../../../runtime/tasks/receiver.js';
import { createMemoryPair } from '../../../runtime/transport/memory.js';
import type { JSONRPCMessage } from '../../../runtime/jsonrpc/transport.js';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/**
 * Polls `cond` every 5 ms until it holds; throws `timed out waiting for <what>` after `boundMs`
 * (ms): a bound on a hang, not a timing to rely on.
 */
export async function waitFor(what: string, cond: () => boolean, boundMs = 10_000): Promise<void> {
  const end = Date.now() + boundMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
export const RELATED = 'io.modelcontextprotocol/related-task';

/** Resolves after `ms`, or rejects when `signal` aborts. */
export function work(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(new Error('aborted'));
      },
      { once: true },
    );
  });
}

type Args = Record<string, unknown>;
export const tools = [
  {
    name: 'long_job',
    inputSchema: { type: 'object' as const, properties: { ms: { type: 'number' } } },
    execution: { taskSupport: 'optional' as const },
  },
  { name: 'stubborn', inputSchema: { type: 'object' as const }, execution: { taskSupport: 'optional' as const } },
  { name: 'must_task', inputSchema: { type: 'object' as const } },
  { name: 'plain', inputSchema: { type: 'object' as const } },
  { name: 'fails', inputSchema: { type: 'object' as const } },
  { name: 'tool_error', inputSchema: { type: 'object' as const } },
  { name: 'asks', inputSchema: { type: 'object' as const } },
];

export interface Fixture {
  server: Server;
  client: Client;
  receiver: TaskReceiver;
  /** Every message the server received and sent, in order. */
  wire: { dir: 'in' | 'out'; message: JSONRPCMessage }[];
  /** Calls of long_job that ran to the end (not aborted). */
  finished: string[];
  close(): Promise<void>;
}

/**
 * A server with tools: long_job {ms} (optional; `execution` listed by the handler itself),
 * stubborn {ms} (optional; ignores cancellation), must_task (required), plain (forbidden), fails (throws -32050), tool_error (isError), asks
 * (an elicitation on behalf of the task). Task options per `options`.
 */
export async function fixture(
  options: TaskReceiverOptions = {},
  client?: ConstructorParameters<typeof Client>[0],
): Promise<Fixture> {
  const finished: string[] = [];
  const server = new Server({
    serverInfo: { name: 'tasks-server', version: '1' },
    capabilities: { tools: {} },
    handlers: {
      'tools/list': () => ({ tools }),
      'tools/call': async (p, ctx: RequestContext) => {
        const args = (p.arguments ?? {}) as Args;
        switch (p.name) {
          case 'long_job': {
            await ctx.sendProgress(1, 2, 'half');
            await work(Number(args.ms ?? 0), ctx.signal);
            finished.push(String(args.ms));
            return { content: [{ type: 'text', text: `slept ${args.ms}` }] };
          }
          case 'stubborn': {
            await sleep(Number(args.ms ?? 0));
            finished.push(`stubborn ${args.ms} aborted=${ctx.signal.aborted}`);
            return { content: [{ type: 'text', text: 'done anyway' }] };
          }
          case 'fails':
            await sleep(5);
            throw new RpcError(-32050, 'backend unavailable', { retry: true });
          case 'tool_error':
            return { content: [{ type: 'text', text: 'API rate limit exceeded' }], isError: true };
          case 'asks': {
            const r = await ctx.sendRequest<{ action: string; content?: Args }>('elicitation/create', {
              mode: 'form',
              message: 'name?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
            });
            return { content: [{ type: 'text', text: `hello ${r.content?.name}` }] };
          }
          default:
            return { content: [{ type: 'text', text: `ran ${p.name}` }] };
        }
      },
    },
  });
  const receiver = attachTaskReceiver(server, {
    tools: { must_task: 'required', fails: 'optional', tool_error: 'optional', asks: 'optional' },
    pollInterval: 20,
    ...options,
  });
  const [a, b] = createMemoryPair();
  const wire: Fixture['wire'] = [];
  const send = b.send.bind(b);
  b.send = (m, o) => (wire.push({ dir: 'out', message: m }), send(m, o));
  const start = b.start.bind(b);
  b.start = (events) =>
    start({ ...events, onMessage: (m, info) => (wire.push({ dir: 'in', message: m }), events.onMessage(m, info)) });
  await server.connect(b);
  const c = new Client(client ?? { clientInfo: { name: 'c', version: '0' } });
  await c.connect(a);
  return { server, client: c, receiver, wire, finished, close: async () => (receiver.close(), await c.close()) };
}

/** The notifications/tasks/status params the server sent for `taskId`. */
export function statusNotifications(f: Fixture, taskId?: string): Record<string, unknown>[] {
  return f.wire
    .filter((w) => w.dir === 'out' && (w.message as { method?: string }).method === 'notifications/tasks/status')
    .map((w) => (w.message as unknown as { params: Record<string, unknown> }).params)
    .filter((p) => taskId === undefined || p.taskId === taskId);
}

/** Rejection value of `p` (fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<RpcError> {
  try {
    await p;
  } catch (e) {
    return e as RpcError;
  }
  throw new Error('expected a rejection');
}
