/**
 * Task-capable tools of the reference server for handshake revisions whose schema has tasks
 * (2025-11-25 `basic/utilities/tasks.mdx`, experimental), run by one task receiver
 * (runtime/tasks/receiver.ts) per session over one {@link InMemoryTaskStore} per server
 * definition (per endpoint for `serve --http`, per process for `serve --stdio`). Tasks belong
 * to their session (the receiver's owner key: the HTTP session id, else a key of the
 * receiver): another session's `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`
 * do not see them. A session that closes aborts its running tasks.
 *
 * Declared capability: `tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } }`.
 * Tools (`execution.taskSupport` in tools/list):
 * - `slow_compute {seconds}` (optional): sums the integers 1..n in ten steps over `seconds`
 *   (0 to {@link MAX_SLOW_COMPUTE_SECONDS} = 60, fractional allowed, default 5), reporting progress (0..10 of 10) and the
 *   task's `statusMessage` per step; answers `Computed sum 1..n = s` with structuredContent
 *   `{ seconds, steps, n, sum }`. Stops on cancellation (task `cancelled`).
 * - `failing_job {reason?, mode?}` (optional): after a short pause (100 ms) fails. `mode`
 *   `"error"` (default): JSON-RPC error -32000 `Job failed: <reason>` with data `{ reason }`,
 *   so the task ends `failed` and `tasks/result` answers that error; `"tool_error"`: a
 *   CallToolResult with `isError: true`, so the task ends `failed` and `tasks/result`
 *   answers that result.
 * - `confirm_job {action?}` (optional): asks the client through `elicitation/create` (form
 *   `{ confirm: boolean }`) whether to run `action` (default "deploy"); as a task it is
 *   `input_required` while the question is open. Answers `Confirmed: <action> done`,
 *   `Not confirmed: <action> skipped`, or `Declined: …` / `Cancelled: …` per the client's
 *   action; a client without elicitation gets an `isError` result saying it lacks the
 *   capability (nothing is sent to it; the task ends `failed`).
 * - `batch_job {items?}` (required): processes `items` (1 to 1000, default 3) items, 20 ms
 *   each, with progress per item; answers `Processed <items> items`. Without `params.task`
 *   the call fails with -32601, as the page's Tool-Level Negotiation says.
 */
import { CapabilityNotDeclaredError, ErrorCode, RpcError } from '@mcpgen/runtime/jsonrpc';
import {
  DIRECT_CALL,
  type DirectCall,
  NOT_DIRECT,
  RESULTS_CHECKED,
  type RequestContext,
  type RequestHandler,
} from '@mcpgen/runtime/engine';
import { type Params, isObject } from '@mcpgen/runtime/jsonrpc';
import type { ServerFeatures } from '@mcpgen/runtime/features';
import type { ServerSession } from '@mcpgen/runtime/session';
import type { ProtocolMaps, ProtocolTable } from '@mcpgen/runtime/protocol';
import { type TaskReceiver, type TaskSupport, attachTaskReceiver, taskOf } from '@mcpgen/runtime/tasks';
import { InMemoryTaskStore, type TaskStore } from '@mcpgen/runtime/tasks';

/** `execution.taskSupport` of each task tool (as listed, and as the receivers apply it). */
export const TASK_TOOLS: Readonly<Record<string, TaskSupport>> = Object.freeze({
  slow_compute: 'optional',
  failing_job: 'optional',
  confirm_job: 'optional',
  batch_job: 'required',
});
/** {@link TASK_TOOLS} as a map: one lookup on every tools/call, only its own entries. */
const TASK_SUPPORT: ReadonlyMap<string, TaskSupport> = new Map(Object.entries(TASK_TOOLS));
/** The `execution.taskSupport` of the tool named `name` (a name a client sent): its own entry in {@link TASK_TOOLS}, else `forbidden`. */
const taskSupportOf = (name: string): TaskSupport => TASK_SUPPORT.get(name) ?? 'forbidden';

/**
 * Longest run of `slow_compute`, seconds (its inputSchema's `maximum`, in both eras): what a peer
 * may ask a reference tool to do is bounded, so that calls cannot hold a server for hours.
 */
export const MAX_SLOW_COMPUTE_SECONDS = 60;

/**
 * `seconds` when it is a number in 0..{@link MAX_SLOW_COMPUTE_SECONDS}; otherwise throws -32602
 * (the handler's own bound, for a call that reaches it without the inputSchema's check).
 */
export function slowComputeSeconds(seconds: unknown): number {
  if (typeof seconds !== 'number' || !(seconds >= 0 && seconds <= MAX_SLOW_COMPUTE_SECONDS)) {
    throw new RpcError(
      ErrorCode.InvalidParams,
      `slow_compute: seconds must be a number from 0 to ${MAX_SLOW_COMPUTE_SECONDS}`,
    );
  }
  return seconds;
}

/** Receiver settings of the reference server: ms. */
export const TASK_POLL_INTERVAL = 500;
/** ttl (ms) of a task whose request names none (so finished tasks do not pile up). */
export const TASK_DEFAULT_TTL = 600_000;
/** Cap (ms) on a requested ttl. */
export const TASK_MAX_TTL = 3_600_000;

/**
 * Whether a handshake table has the task-augmented tools/call (`taskAugmentable` on the
 * clientToServer entry, and the tasks/* requests to serve): true for 2025-11-25's table.
 */
export function hasTaskTools(table: ProtocolTable): boolean {
  const inbound = table.requests.clientToServer;
  return (
    table.lifecycle !== 'stateless' &&
    inbound['tools/call']?.taskAugmentable === true &&
    ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel'].every((m) => inbound[m] !== undefined)
  );
}

/** Waits `ms`; rejects with the signal's reason when it aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

/**
 * Why a request to the client failed, for a tool's error result: a client that did not declare
 * the capability (refused by the engine, nothing sent) is named as such; else `<code> <message>`.
 */
export function requestFailure(e: unknown): string {
  if (e instanceof CapabilityNotDeclaredError)
    return `the client lacks the ${e.capability.join('.')} capability (${e.code} ${e.message})`;
  return e instanceof RpcError ? `${e.code} ${e.message}` : String(e);
}

/** Registers the task tools on `f` (their handlers run inline or as tasks alike). */
export function addTaskTools(f: ServerFeatures): void {
  f.tool<{ seconds?: number }>({
    name: 'slow_compute',
    execution: { taskSupport: TASK_TOOLS.slow_compute },
    description:
      'Slow computation: sums 1..n in ten steps spread over `seconds`, with progress; may run as a task and be cancelled',
    inputSchema: {
      type: 'object',
      properties: { seconds: { type: 'number', minimum: 0, maximum: MAX_SLOW_COMPUTE_SECONDS, default: 5 } },
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: {
        seconds: { type: 'number' },
        steps: { type: 'integer' },
        n: { type: 'integer' },
        sum: { type: 'integer' },
      },
      required: ['seconds', 'steps', 'n', 'sum'],
    },
    handler: async (a, ctx) => {
      const seconds = slowComputeSeconds(a.seconds ?? 5);
      const steps = 10;
      const n = 1000;
      let sum = 0;
      const task = taskOf(ctx);
      for (let step = 0; step < steps; step++) {
        await ctx.sendProgress(step, steps, `step ${step + 1} of ${steps}`);
        await task?.setStatusMessage(`computing: step ${step + 1} of ${steps}`);
        await pause((seconds * 1000) / steps, ctx.signal);
        for (let i = (step * n) / steps + 1; i <= ((step + 1) * n) / steps; i++) sum += i;
      }
      await ctx.sendProgress(steps, steps, 'done');
      return { ...text(`Computed sum 1..${n} = ${sum}`), structuredContent: { seconds, steps, n, sum } };
    },
  });
  f.tool<{ reason?: string; mode?: 'error' | 'tool_error' }>({
    name: 'failing_job',
    execution: { taskSupport: TASK_TOOLS.failing_job },
    description:
      'A job that always fails: a JSON-RPC error (mode "error", default) or a tool result with isError (mode "tool_error")',
    inputSchema: {
      type: 'object',
      properties: { reason: { type: 'string' }, mode: { type: 'string', enum: ['error', 'tool_error'] } },
      additionalProperties: false,
    },
    handler: async (a, ctx) => {
      const reason = a.reason ?? 'the job backend is unavailable';
      await pause(100, ctx.signal);
      if (a.mode === 'tool_error') return { ...text(`Job failed: ${reason}`), isError: true };
      throw new RpcError(-32000, `Job failed: ${reason}`, { reason });
    },
  });
  f.tool<{ action?: string }>({
    name: 'confirm_job',
    execution: { taskSupport: TASK_TOOLS.confirm_job },
    description:
      'Asks the user (elicitation) to confirm an action mid-way, then runs it; as a task it is input_required while asking',
    inputSchema: { type: 'object', properties: { action: { type: 'string' } }, additionalProperties: false },
    handler: async (a, ctx) => {
      const action = a.action ?? 'deploy';
      let r: { action: string; content?: { confirm?: unknown } };
      try {
        r = await ctx.sendRequest<typeof r>('elicitation/create', {
          mode: 'form',
          message: `Run "${action}"?`,
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean', description: `Run ${action}` } },
            required: ['confirm'],
          },
        });
      } catch (e) {
        if (ctx.signal.aborted) throw e;
        return { ...text(`Elicitation failed: ${requestFailure(e)}`), isError: true };
      }
      if (r.action === 'decline') return text(`Declined: ${action} skipped`);
      if (r.action !== 'accept') return text(`Cancelled: ${action} skipped`);
      return text(r.content?.confirm === true ? `Confirmed: ${action} done` : `Not confirmed: ${action} skipped`);
    },
  });
  f.tool<{ items?: number }>({
    name: 'batch_job',
    execution: { taskSupport: TASK_TOOLS.batch_job },
    description: 'Processes a batch of items (20 ms each); runs only as a task (execution.taskSupport "required")',
    inputSchema: {
      type: 'object',
      properties: { items: { type: 'integer', minimum: 1, maximum: 1000, default: 3 } },
      additionalProperties: false,
    },
    handler: async (a, ctx) => {
      const items = a.items ?? 3;
      for (let i = 0; i < items; i++) {
        await pause(20, ctx.signal);
        await ctx.sendProgress(i + 1, items, `item ${i + 1} of ${items}`);
      }
      return text(`Processed ${items} items`);
    },
  });
}

/**
 * The receiver's answer to a tools/call, checked against the result schema of the session's
 * table (`ctx.table`) as the engine checks an unflagged handler's: an object that fails it is
 * -32603 naming the tool. Anything else goes on as it is (the engine answers what is no object).
 */
async function checkedAnswer(answer: unknown, p: Params, ctx: RequestContext): Promise<unknown> {
  const r = await answer;
  const entry = ctx.table?.requests.clientToServer['tools/call'];
  if (entry?.result && isObject(r) && !entry.result(r))
    throw new RpcError(
      ErrorCode.InternalError,
      `Internal error: tool ${String(p?.name)} returned a result that is not a valid tools/call result`,
    );
  return r;
}

/**
 * The task side of one reference definition: its store, the handlers every session shares,
 * and a receiver per session, made on the session's first request that needs one (a task-augmented
 * tools/call, a plain call of a `required` tool, or tasks/*), so sessions that never use tasks
 * cost nothing. The receiver runs on a view of its session (the session's table and peer, the
 * definition's handlers) and keeps its own handler table there: the session's options, shared
 * with every other session, stay as they are. When the session's connection closes its
 * receiver closes, aborting the session's running tasks (they end `failed`).
 */
export class ReferenceTasks {
  readonly store: TaskStore;
  readonly #sessions = new WeakMap<object, SessionTasks>();
  #base: Record<string, RequestHandler> = {};

  constructor(
    private readonly table: ProtocolTable,
    store?: TaskStore,
  ) {
    this.store = store ?? new InMemoryTaskStore();
  }

  /** The `tasks` capability: `{ list: {}, cancel: {}, requests: { tools: { call: {} } } }`. */
  capabilities(): Record<string, unknown> {
    return { list: {}, cancel: {}, requests: { tools: { call: {} } } };
  }

  /**
   * `base` (the features' handlers) with tools/call routed to the calling session's receiver
   * when it is task-augmented or names a `required` tool, and tasks/get, tasks/result,
   * tasks/list, tasks/cancel served by that receiver. Needs `ctx.session` (the engine sets it).
   *
   * When base's tools/call checks its results itself (flagged `RESULTS_CHECKED`, as
   * `ServerFeatures`' handlers are), the routing keeps the flag, so that the engine does not
   * check a plain call's result a second time, and checks the receiver's answers as the engine
   * would (-32603 `Internal error: tool <name> returned a result that is not a valid tools/call
   * result`). A plain call keeps base's tools/call direct form (`DIRECT_CALL`), if it has one.
   */
  handlers(base: Record<string, RequestHandler>): Record<string, RequestHandler> {
    this.#base = base;
    const via =
      (method: string): RequestHandler =>
      (p, ctx) =>
        this.#receiverOf(ctx).handlers[method](p, ctx);
    const call = base['tools/call'];
    const task = via('tools/call');
    const checked = (call as { [RESULTS_CHECKED]?: boolean } | undefined)?.[RESULTS_CHECKED] === true;
    const route: RequestHandler = (p: Params, ctx) =>
      p?.task === undefined && taskSupportOf(String(p?.name)) !== 'required'
        ? call(p, ctx)
        : checked
          ? checkedAnswer(task(p, ctx), p, ctx)
          : task(p, ctx);
    // a plain call keeps base's direct form (the engine's fast path for a tool that needs no context)
    const direct = (call as { [DIRECT_CALL]?: DirectCall } | undefined)?.[DIRECT_CALL];
    const routeDirect: DirectCall | undefined =
      direct &&
      ((p: Params, table) =>
        p?.task === undefined && taskSupportOf(String(p?.name)) !== 'required' ? direct(p, table) : NOT_DIRECT);
    return {
      ...base,
      'tools/call': Object.assign(route, {
        ...(checked ? { [RESULTS_CHECKED]: true } : {}),
        ...(routeDirect ? { [DIRECT_CALL]: routeDirect } : {}),
      }),
      'tasks/get': via('tasks/get'),
      'tasks/result': via('tasks/result'),
      'tasks/list': via('tasks/list'),
      'tasks/cancel': via('tasks/cancel'),
    };
  }

  /** The receiver of the session `ctx` belongs to (made on first use) and its handler table. */
  #receiverOf(ctx: RequestContext): SessionTasks {
    const session = ctx.session as ServerSession<ProtocolMaps> | undefined;
    if (!session)
      throw new RpcError(ErrorCode.InternalError, "the task handlers need the request's session as ctx.session");
    let tasks = this.#sessions.get(session);
    if (tasks) return tasks;
    let ready = false;
    const view = {
      side: 'server' as const,
      table: this.table,
      options: { handlers: this.#base as object, capabilities: {} as Record<string, unknown> },
      // unreadable while the receiver is set up (it refuses connected sessions: they declared their capabilities already)
      get peer() {
        if (!ready) throw new Error('not connected');
        return session.peer;
      },
    };
    const receiver = attachTaskReceiver(view, {
      store: this.store,
      methods: ['tools/call'],
      tools: taskSupportOf,
      pollInterval: TASK_POLL_INTERVAL,
      defaultTtl: TASK_DEFAULT_TTL,
      maxTtl: TASK_MAX_TTL,
    });
    ready = true;
    tasks = { receiver, handlers: view.options.handlers as Record<string, RequestHandler> };
    this.#sessions.set(session, tasks);
    session.onClose(() => receiver.close());
    return tasks;
  }
}

/** A session's receiver and the handler table it built. */
interface SessionTasks {
  receiver: TaskReceiver;
  handlers: Record<string, RequestHandler>;
}
