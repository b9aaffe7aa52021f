// size: the 2025-11-25 task receiver: its four methods and their checks; 62 lines over
/**
 * The receiver side of tasks (2025-11-25 `basic/utilities/tasks.mdx`, experimental): makes a
 * `ServerSession` (tools/call) or a `ClientSession` (sampling/createMessage, elicitation/create)
 * accept task-augmented requests and serve `tasks/get`, `tasks/result`, `tasks/list` and
 * `tasks/cancel` from a {@link TaskStore}.
 *
 * ```ts
 * const server = new Server({ serverInfo, capabilities: features.capabilities(), handlers: features.handlers() });
 * const tasks = attachTaskReceiver(server, { tools: { long_job: 'optional' } }); // before connect
 * await server.connect(transport);
 * ```
 *
 * Behaviour, with the page's rules and the choices made where it is silent:
 * - Capabilities: `tasks: { list: {}, cancel: {}, requests: { <method path>: {} } }` is merged
 *   into the session's declared capabilities (so `attachTaskReceiver` must run before
 *   `connect`; after it, it throws). `list: false` / `cancel: false` leave those out, and the
 *   engine then answers those methods with -32601.
 * - Only where the session's negotiated table marks the method task-augmentable: on an older
 *   revision (no tasks) the request runs as a plain one, `params.task` dropped, and tasks/*
 *   are not in that table (the engine answers -32601).
 * - A request with `params.task` answers a CreateTaskResult at once (status `working`, `ttl`,
 *   `pollInterval`, related-task `_meta`); the handler runs afterwards with `params.task`
 *   removed and the task's context (./context.ts: cancellable signal, related-task
 *   `_meta`, `input_required` while it waits on the requestor, progress for the task's life).
 * - Tool-level negotiation: `execution.taskSupport` comes from the `tools` option, else from
 *   what the session's own tools/list handler lists (the option's value is also added to
 *   listed tools that declare none), else `forbidden`. A task-augmented call of a `forbidden`
 *   tool and a plain call of a `required` tool: -32601 (Method not found), as the page's
 *   Tool-Level Negotiation says. For other methods, `require` makes a plain request fail with
 *   -32600 (Invalid request), the page's optional error for that case.
 * - ttl (ms): the requested one capped at `maxTtl` (default 3,600,000); none requested →
 *   `defaultTtl` (default null = unlimited); a negative one → -32602. Expired tasks are
 *   deleted and their handler's signal aborted; they then answer "Task has expired" (-32602).
 *   At most `maxActiveTasks` (default 1000) non-terminal tasks per owner run at once; one more
 *   is refused with -32600 (the page asks for a limit but names no error).
 * - Outcome: a handler result → `completed` (a tools/call result with `isError: true` →
 *   `failed`, statusMessage from its text); a thrown RpcError → `failed` with that error; any
 *   other throw → `failed` with -32603 Internal error; a result failing the method's result
 *   schema → `failed` with -32603.
 * - `tasks/result` blocks until the task is terminal and answers the stored result with
 *   `_meta["io.modelcontextprotocol/related-task"]`, or the stored JSON-RPC error. A cancelled
 *   task answers the error -32602 "Task was cancelled" (case 020). An expiry while waiting
 *   answers -32602 "Task has expired".
 * - `tasks/cancel`: unknown or another owner's task, or a terminal one → -32602 (nothing
 *   changes, `lastUpdatedAt` included); else the task is `cancelled` (statusMessage "The task
 *   was cancelled by request.") before the response, the handler's signal is aborted, and a
 *   later completion or failure of the handler is discarded (the store refuses it).
 * - `notifications/tasks/status` (option `notifyStatus`, default true): sent for every applied
 *   update after creation (input_required, working again, completed, failed, cancelled, and
 *   `statusMessage` changes), with the full Task and no related-task `_meta`. The
 *   CreateTaskResult itself carries the initial `working`.
 * - Isolation: every task belongs to an owner key: `owner(ctx)` when given (bind it to the
 *   authorization context), else the HTTP session id, else a random key of this receiver.
 *   Another owner's task is "not found" for get, result, list and cancel.
 * - The connection closing does not cancel tasks (they are durable); `close()` aborts them.
 *   The receiver listens to its store only while tasks run here, so one store shared by the
 *   receivers of many HTTP sessions holds no reference to the ended ones.
 */
import { ErrorCode, type ErrorObject, RpcError } from '../jsonrpc/errors.js';
import { type Params, isObject } from '../jsonrpc/message.js';
import type { Peer, RequestContext, RequestHandler } from '../engine/peer.js';
import { type TaskRun, createTaskContext } from './context.js';
import type { ProtocolTable } from '../protocol/table.js';
import { ownValue } from '../jsonrpc/own.js';
import {
  InMemoryTaskStore,
  MODEL_IMMEDIATE_RESPONSE_META,
  type Task,
  type TaskMetadata,
  TaskNotFoundError,
  type TaskOutcome,
  type TaskStore,
  TaskTransitionError,
  type TaskUpdate,
  isTerminal,
  relatedTaskMeta,
} from '../stores/tasks.js';
import { supportOf } from './store-use.js';

/** Runs `f` after pending I/O: `setImmediate` where there is one (Node, Bun, Deno), else a 0 ms timer (browsers, workers). */
const later: (f: () => void) => void =
  typeof setImmediate === 'function' ? (f) => void setImmediate(f) : (f) => void setTimeout(f, 0);

export { type TaskHandlerContext, taskOf } from './context.js';

/** Tool-level `execution.taskSupport` (schema `ToolExecution`); absent means `forbidden`. */
export type TaskSupport = 'required' | 'optional' | 'forbidden';

/** Options of {@link attachTaskReceiver}: the store, which tools (and client requests) may run as tasks, and which task methods are offered. */
export interface TaskReceiverOptions {
  /** Where tasks live (default: a new InMemoryTaskStore). Share one to share tasks across sessions of one owner. */
  store?: TaskStore;
  /** The owner key of a request (e.g. from its authorization); undefined falls back as the module doc says. */
  owner?: (ctx: RequestContext) => string | undefined;
  /** Task-augmentable methods to accept (default: every one of the table's inbound ones that has a handler). */
  methods?: readonly string[];
  /** Methods other than tools/call that must be task-augmented (plain requests get -32600). */
  require?: readonly string[];
  /** `execution.taskSupport` per tool name, or a lookup. */
  tools?: Readonly<Record<string, TaskSupport>> | ((name: string) => TaskSupport | undefined);
  /** ttl (ms) of a task whose request names none; null = unlimited (default null). */
  defaultTtl?: number | null;
  /** Cap (ms) on requested ttls (default 3,600,000). */
  maxTtl?: number;
  /** Non-terminal tasks one owner may have running here; more get -32600 (default 1000). */
  maxActiveTasks?: number;
  /** `pollInterval` (ms) suggested to requestors (default 1000). */
  pollInterval?: number;
  /** Page size of tasks/list (default 50). */
  pageSize?: number;
  /** Declare and serve tasks/list (default true). */
  list?: boolean;
  /** Declare and serve tasks/cancel (default true). */
  cancel?: boolean;
  /** Send notifications/tasks/status on status changes (default true). */
  notifyStatus?: boolean;
  /** Text for `_meta["io.modelcontextprotocol/model-immediate-response"]` of a tools/call CreateTaskResult. */
  immediateResponse?: (params: Params) => string | undefined;
}

/** The session types a receiver attaches to (structurally: side, options, table, peer). */
export interface ReceiverSession {
  /** A client session receives server→client requests as tasks, a server session client→server ones. */
  readonly side: 'client' | 'server';
  readonly table: ProtocolTable;
  readonly options: { handlers?: object; capabilities?: Record<string, unknown> };
  readonly peer: Peer;
}

/** Thrown by {@link attachTaskReceiver} on a session that is already connected. */
export class TaskReceiverSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TaskReceiverSetupError';
  }
}

/**
 * The tasks of one session (2025-11-25 basic/utilities/tasks), as {@link attachTaskReceiver}
 * returns it: task-augmented requests become tasks of {@link TaskReceiver.store}, and
 * `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` are answered from it
 * (-32602 for an unknown task id).
 */
export class TaskReceiver {
  readonly store: TaskStore;
  /** The owner key used when neither `owner(ctx)` nor an HTTP session id gives one. */
  readonly ownerKey = globalThis.crypto.randomUUID();
  /** Methods accepted with `params.task`. */
  readonly methods: readonly string[];
  readonly #session: ReceiverSession;
  readonly #o: TaskReceiverOptions;
  readonly #running = new Map<string, TaskRun>();
  readonly #learned = new Map<string, TaskSupport>();
  /** Set while this receiver listens to the store: from its first running task until its last one ends. */
  #unsubscribe: (() => void) | undefined;
  readonly #base: Record<string, RequestHandler>;
  readonly #in: 'clientToServer' | 'serverToClient';

  constructor(session: ReceiverSession, options: TaskReceiverOptions = {}) {
    let connected = true;
    try {
      void session.peer;
    } catch {
      connected = false;
    }
    if (connected)
      throw new TaskReceiverSetupError(
        'attachTaskReceiver must run before connect: the tasks capability is declared during initialization',
      );
    this.#session = session;
    this.#o = options;
    this.store = options.store ?? new InMemoryTaskStore();
    this.#in = session.side === 'client' ? 'serverToClient' : 'clientToServer';
    this.#base = { ...(session.options.handlers as Record<string, RequestHandler> | undefined) };
    const inbound = session.table.requests[this.#in];
    this.methods =
      options.methods ??
      Object.values(inbound)
        .filter((e) => e.taskAugmentable && this.#base[e.method])
        .map((e) => e.method);
    for (const m of this.methods) {
      if (!ownValue(inbound, m)?.taskAugmentable)
        throw new TaskReceiverSetupError(
          `${m} is not a task-augmentable request of ${session.table.protocolVersion} in this direction`,
        );
      if (!ownValue(this.#base, m)) throw new TaskReceiverSetupError(`${m} has no handler to run as a task`);
    }
    const handlers: Record<string, RequestHandler> = { ...this.#base };
    for (const m of this.methods) handlers[m] = this.#wrap(m, this.#base[m]);
    if (this.#base['tools/list'] && this.methods.includes('tools/call'))
      handlers['tools/list'] = this.#wrapToolsList(this.#base['tools/list']);
    handlers['tasks/get'] = (p: Params, ctx) => this.#get(this.#owner(ctx), String(p.taskId));
    handlers['tasks/result'] = (p: Params, ctx) => this.#result(String(p.taskId), ctx);
    if (options.list !== false) handlers['tasks/list'] = (p: Params | undefined, ctx) => this.#list(p, ctx);
    if (options.cancel !== false)
      handlers['tasks/cancel'] = (p: Params, ctx) => this.#cancel(this.#owner(ctx), String(p.taskId));
    session.options.handlers = handlers;
    session.options.capabilities = { ...session.options.capabilities, tasks: this.capabilities() };
  }

  /** The `tasks` capability this receiver declares. */
  capabilities(): Record<string, unknown> {
    const requests: Record<string, Record<string, unknown>> = {};
    for (const m of this.methods) {
      const [group, name] = m.split('/');
      (requests[group] ??= {})[name] = {};
    }
    const caps: Record<string, unknown> = { requests };
    if (this.#o.list !== false) caps.list = {};
    if (this.#o.cancel !== false) caps.cancel = {};
    return caps;
  }

  /** Stops listening to the store and aborts every task still running here. */
  close(): void {
    for (const run of this.#running.values())
      run.controller.abort(new RpcError(ErrorCode.InternalError, 'task receiver closed'));
    this.#running.clear();
    this.#listen(false);
  }

  /**
   * Store events matter only for tasks running here (abort on cancel and expiry, status
   * notifications up to the terminal one), so the receiver listens only while it runs some: a
   * store shared by the receivers of many sessions keeps no reference to ended ones.
   */
  #listen(on: boolean): void {
    if (!on) {
      this.#unsubscribe?.();
      this.#unsubscribe = undefined;
      return;
    }
    this.#unsubscribe ??= this.store.subscribe((ev) => {
      const run = this.#running.get(ev.task.taskId);
      if (!run) return;
      if (ev.type === 'deleted' || ev.type === 'expired') {
        run.controller.abort(new TaskNotFoundError(ev.task.taskId, ev.type === 'expired'));
        return;
      }
      if (ev.type !== 'updated') return;
      if (ev.task.status === 'cancelled')
        run.controller.abort(new RpcError(ErrorCode.InvalidParams, 'Task was cancelled'));
      if (this.#o.notifyStatus !== false) {
        if (isTerminal(ev.task.status)) run.terminalNotified = true;
        this.#session.peer.notify('notifications/tasks/status', { ...ev.task }).catch(() => undefined);
      }
    });
  }

  #owner(ctx: RequestContext): string {
    return this.#o.owner?.(ctx) ?? (ctx.info?.sessionId ? `session:${ctx.info.sessionId}` : this.ownerKey);
  }

  async #toolSupport(name: string, ctx: RequestContext): Promise<TaskSupport> {
    const given = supportOf(this.#o.tools, name);
    if (given) return given;
    if (!this.#learned.has(name) && this.#base['tools/list']) {
      let cursor: unknown;
      for (let page = 0; page < 100; page++) {
        const r = (await this.#base['tools/list'](cursor === undefined ? {} : { cursor }, ctx)) as Record<
          string,
          unknown
        >;
        this.#learn(r);
        cursor = r?.nextCursor;
        if (typeof cursor !== 'string' || this.#learned.has(name)) break;
      }
    }
    return this.#learned.get(name) ?? 'forbidden';
  }

  #learn(result: unknown): void {
    if (!isObject(result) || !Array.isArray(result.tools)) return;
    for (const t of result.tools as unknown[]) {
      if (!isObject(t) || typeof t.name !== 'string') continue;
      const s = isObject(t.execution) ? t.execution.taskSupport : undefined;
      this.#learned.set(t.name, s === 'required' || s === 'optional' ? s : 'forbidden');
    }
  }

  #wrapToolsList(base: RequestHandler): RequestHandler {
    return async (params, ctx) => {
      const r = (await base(params, ctx)) as Record<string, unknown>;
      if (!isObject(r) || !Array.isArray(r.tools)) return r;
      const tools = (r.tools as Record<string, unknown>[]).map((t) => {
        const s =
          isObject(t) && typeof t.name === 'string' && !(isObject(t.execution) && t.execution.taskSupport)
            ? supportOf(this.#o.tools, t.name)
            : undefined;
        return s ? { ...t, execution: { ...(t.execution as object | undefined), taskSupport: s } } : t;
      });
      const out = { ...r, tools };
      this.#learn(out);
      return out;
    };
  }

  #wrap(method: string, base: RequestHandler): RequestHandler {
    return async (params: Params, ctx) => {
      // a revision without task augmentation for this method (a session that negotiated an older
      // one: 2024-11-05 … 2025-06-18) does not know `params.task`: a plain request, as that
      // revision defines it, with no tool-level negotiation either
      if (!this.#session.peer.table.requests[this.#in][method]?.taskAugmentable) {
        if (!isObject(params) || params.task === undefined) return base(params, ctx);
        const { task: _ignored, ...plain } = params;
        return base(plain, ctx);
      }
      const meta = isObject(params?.task) ? (params.task as TaskMetadata) : undefined;
      const tool = method === 'tools/call' ? String(params?.name) : undefined;
      const support =
        tool !== undefined
          ? await this.#toolSupport(tool, ctx)
          : this.#o.require?.includes(method)
            ? 'required'
            : 'optional';
      if (!meta) {
        if (support !== 'required') return base(params, ctx);
        if (tool !== undefined)
          throw new RpcError(
            ErrorCode.MethodNotFound,
            `Tool ${JSON.stringify(tool)} requires task-augmented execution (execution.taskSupport is "required")`,
          );
        throw new RpcError(ErrorCode.InvalidRequest, `Task augmentation required for ${method} requests`);
      }
      if (support === 'forbidden') {
        throw new RpcError(
          ErrorCode.MethodNotFound,
          `Tool ${JSON.stringify(tool)} does not support task-augmented execution (execution.taskSupport is "forbidden" or absent)`,
        );
      }
      return this.#start(method, base, params, meta, ctx);
    };
  }

  #ttl(requested: unknown): number | null {
    if (requested === undefined) return this.#o.defaultTtl ?? null;
    if (typeof requested !== 'number' || !Number.isFinite(requested) || requested < 0) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `task.ttl must be a non-negative number of milliseconds, got ${JSON.stringify(requested)}`,
      );
    }
    return Math.min(requested, this.#o.maxTtl ?? 3_600_000);
  }

  async #start(
    method: string,
    base: RequestHandler,
    params: Params,
    meta: TaskMetadata,
    ctx: RequestContext,
  ): Promise<Record<string, unknown>> {
    const owner = this.#owner(ctx);
    const limit = this.#o.maxActiveTasks ?? 1000;
    if ([...this.#running.values()].filter((r) => r.owner === owner).length >= limit) {
      throw new RpcError(ErrorCode.InvalidRequest, `Too many active tasks: at most ${limit} per requestor`);
    }
    const task = await this.store.create(owner, {
      ttl: this.#ttl(meta.ttl),
      pollInterval: this.#o.pollInterval ?? 1000,
    });
    const run: TaskRun = { owner, controller: new AbortController(), resultRequests: new Set(), outstanding: 0 };
    this.#running.set(task.taskId, run);
    this.#listen(true);
    const { task: _task, ...plain } = params;
    // after the CreateTaskResult is on its way: the response precedes the task's own messages
    later(() => void this.#run(method, base, plain, ctx, task.taskId, run));
    const result: Record<string, unknown> = { task, _meta: relatedTaskMeta(task.taskId) };
    const text = method === 'tools/call' ? this.#o.immediateResponse?.(params) : undefined;
    if (text !== undefined) (result._meta as Params)[MODEL_IMMEDIATE_RESPONSE_META] = text;
    return result;
  }

  async #run(
    method: string,
    base: RequestHandler,
    params: Params,
    ctx: RequestContext,
    taskId: string,
    run: TaskRun,
  ): Promise<void> {
    const entry = ownValue(this.#session.table.requests[this.#in], method);
    let update: TaskUpdate;
    try {
      const r = (await base(params, createTaskContext(this.#session.peer, this.store, ctx, params, taskId, run))) ?? {};
      if (!isObject(r) || (entry?.result && !entry.result(r))) {
        update = failed({ code: ErrorCode.InternalError, message: 'Internal error' });
      } else if (method === 'tools/call' && r.isError === true) {
        update = { status: 'failed', statusMessage: toolErrorText(r), outcome: { kind: 'result', result: r } };
      } else update = { status: 'completed', outcome: { kind: 'result', result: r } };
    } catch (e) {
      update = failed(
        e instanceof RpcError ? e.toJSON() : { code: ErrorCode.InternalError, message: 'Internal error' },
      );
    }
    // a refusal (already cancelled, expired) discards the outcome; nothing else can report a store failure
    const done = await this.store.update(run.owner, taskId, update).catch(() => undefined);
    // still running during the update, so its event is notified; a store whose events arrive
    // later (Redis: over its own connection) may miss that window: then the outcome is notified here
    if (this.#running.get(taskId) === run) {
      if (done && !run.terminalNotified && this.#o.notifyStatus !== false) {
        run.terminalNotified = true;
        this.#session.peer.notify('notifications/tasks/status', { ...done }).catch(() => undefined);
      }
      this.#running.delete(taskId);
    }
    if (this.#running.size === 0) this.#listen(false);
  }

  async #get(owner: string, taskId: string): Promise<Task> {
    const t = await this.store.get(owner, taskId);
    if (!t) throw new TaskNotFoundError(taskId, (await this.store.expired?.(owner, taskId)) ?? false);
    return t;
  }

  async #list(params: Params | undefined, ctx: RequestContext): Promise<Record<string, unknown>> {
    const cursor = params?.cursor;
    const page = await this.store.list(this.#owner(ctx), {
      cursor: cursor as string | undefined,
      limit: this.#o.pageSize ?? 50,
    });
    return page.nextCursor === undefined ? { tasks: page.tasks } : { tasks: page.tasks, nextCursor: page.nextCursor };
  }

  async #cancel(owner: string, taskId: string): Promise<Task> {
    const t = await this.#get(owner, taskId);
    if (isTerminal(t.status)) throw new TaskTransitionError(taskId, t.status, 'cancelled');
    return this.store.update(owner, taskId, {
      status: 'cancelled',
      statusMessage: 'The task was cancelled by request.',
      outcome: {
        kind: 'error',
        error: { code: ErrorCode.InvalidParams, message: 'Task was cancelled', data: { taskId } },
      },
    });
  }

  async #result(taskId: string, ctx: RequestContext): Promise<Record<string, unknown>> {
    const owner = this.#owner(ctx);
    const run = this.#running.get(taskId);
    const mineRun = run?.owner === owner ? run : undefined;
    mineRun?.resultRequests.add(ctx.requestId);
    let task: Task;
    try {
      task = await this.#terminal(owner, taskId, ctx.signal);
    } finally {
      mineRun?.resultRequests.delete(ctx.requestId);
    }
    const outcome: TaskOutcome | undefined = await this.store.outcome(owner, taskId);
    if (!outcome) {
      if (task.status === 'cancelled') throw new RpcError(ErrorCode.InvalidParams, 'Task was cancelled', { taskId });
      throw new RpcError(
        ErrorCode.InternalError,
        task.status === 'failed'
          ? `Task failed${task.statusMessage ? `: ${task.statusMessage}` : ''}`
          : 'Task result is no longer available',
        { taskId },
      );
    }
    if (outcome.kind === 'error') throw RpcError.from(outcome.error);
    const r = outcome.result;
    return { ...r, _meta: { ...(r._meta as Params | undefined), ...relatedTaskMeta(taskId) } };
  }

  /** Resolves with the task once terminal; rejects when it disappears or `signal` aborts. */
  #terminal(owner: string, taskId: string, signal: AbortSignal): Promise<Task> {
    return new Promise<Task>((resolve, reject) => {
      let done = false;
      const finish = (f: () => void) => {
        if (done) return;
        done = true;
        unsubscribe();
        signal.removeEventListener('abort', onAbort);
        f();
      };
      const onAbort = () => finish(() => reject(signal.reason));
      const unsubscribe = this.store.subscribe((ev) => {
        if (ev.owner !== owner || ev.task.taskId !== taskId) return;
        if (ev.type === 'deleted' || ev.type === 'expired')
          finish(() => reject(new TaskNotFoundError(taskId, ev.type === 'expired')));
        else if (isTerminal(ev.task.status)) finish(() => resolve(ev.task));
      });
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#get(owner, taskId).then(
        (t) => isTerminal(t.status) && finish(() => resolve(t)),
        (e) => finish(() => reject(e)),
      );
    });
  }
}

/**
 * Makes `session` a task receiver (see the module doc). Call before `connect`: it replaces the
 * session's handlers and capabilities options. Throws TaskReceiverSetupError when connected,
 * or when a method in `options.methods` is not task-augmentable or has no handler.
 */
export function attachTaskReceiver(session: ReceiverSession, options: TaskReceiverOptions = {}): TaskReceiver {
  return new TaskReceiver(session, options);
}

function failed(error: ErrorObject): TaskUpdate {
  return { status: 'failed', statusMessage: error.message, outcome: { kind: 'error', error } };
}

function toolErrorText(result: Record<string, unknown>): string {
  const first = Array.isArray(result.content)
    ? (result.content as unknown[]).find((c) => isObject(c) && c.type === 'text')
    : undefined;
  const text = isObject(first) && typeof first.text === 'string' ? first.text : 'the tool reported an error';
  return `Tool execution failed: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}
