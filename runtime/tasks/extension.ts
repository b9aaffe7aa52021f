// size: the tasks extension server side: its four methods and their checks; 53 lines over
/**
 * The tasks extension `io.modelcontextprotocol/tasks` (SEP-2663, "Tasks Extension"), server
 * side, for the stateless revisions (2026-07-28, draft). Wire shapes: ../tasks-wire.ts.
 *
 * ```ts
 * const tasks = new TasksExtension({ table, tools: { render: 'optional', export: 'required' } });
 * features.tool({ name: 'render', handler: (a, ctx) => tasks.run(ctx, async (task) => render(a, task.signal)) });
 * const server = new Server({
 *   serverInfo, capabilities: tasks.capabilities(features.capabilities()),
 *   handlers: tasks.handlers(features.handlers({ table })), extensionMethods: tasks.methods,
 * });
 * ```
 *
 * Behaviour (SEP-2663 sections in brackets):
 * - Negotiation [Capability Negotiation]: `capabilities()` adds `extensions["io.modelcontextprotocol/tasks"]: {}`
 *   (never a `tasks` capability). A request opts in per request, in
 *   `_meta["io.modelcontextprotocol/clientCapabilities"].extensions`; without it `tasks/get`,
 *   `tasks/update` and `tasks/cancel` are refused with -32021 (`data.requiredCapabilities`).
 * - Creation is server-directed [Task Creation]: a tool handler calls {@link TasksExtension.run}.
 *   When the request declared the extension and the tool's support (`tools` option) is
 *   `optional` or `required`, the task is stored first (so `tasks/get` finds it at once), the work
 *   starts in the background and the handler answers the flat CreateTaskResult
 *   (`resultType: "task"`, `ttlMs`, `pollIntervalMs`). Otherwise the work runs inline and its
 *   result is the `tools/call` result. A `required` tool called without the extension: -32021
 *   before its handler runs [Required Capabilities]. A legacy `params.task` is ignored.
 * - Outcome [Error Handling]: a result (tool execution errors with `isError: true` included) →
 *   `completed` with `result` inlined on `tasks/get` (and no `statusMessage`); a thrown RpcError →
 *   `failed` with that `error` and its message as `statusMessage`; another throw → `completed` with an `isError`
 *   result naming it (as ServerFeatures does for plain calls); a result failing the method's
 *   result schema → `failed` with -32603.
 * - Input [Task Update Requests]: `task.input({ key: request })` parks the task in
 *   `input_required` with those `inputRequests` (checked like an InputRequiredResult: -32021 when
 *   the request's capabilities lack what they need, -32603 when invalid; keys are unique over the
 *   task's life, a reused key is a TypeError). `tasks/update` answers keys one by one (a partial
 *   set keeps the task in `input_required` with only the rest listed); unknown or already answered
 *   keys are ignored; an answer failing the embedded method's result schema is -32602. When the
 *   last key is answered the task is `working` again before the ack. Acks are `{resultType:"complete"}`.
 * - Cancellation [Task Cancellation]: `tasks/cancel` of a working or input_required task stores
 *   `cancelled` before the ack and aborts `task.signal`; a later outcome is discarded. Of a
 *   terminal task: the same ack, nothing changes.
 * - Unknown or expired taskId: -32602 for all three methods [Protocol Errors]. Tasks expire
 *   `ttlMs` after creation (their work is aborted then).
 * - Ownership [Security]: on a protected endpoint a task belongs to the verified principal of
 *   the request that created it (`ctx.auth`, keyed by ../auth/principal.ts `principalId`):
 *   that principal sees it from any request, connection or process sharing the store; to any
 *   other one `tasks/get`, `tasks/update` and `tasks/cancel` answer exactly as for an unknown
 *   task (-32602 "Failed to retrieve task: Task not found"), and nothing changes. Without a
 *   token, task ids are random UUIDs that act as bearer handles. `owner(ctx)` replaces both.
 * - Not implemented: `notifications/tasks` (optional [Task Status Notifications]); input requests
 *   and running work live in this process, only the task records in the {@link TaskStore}.
 */
import { ErrorCode, RpcError, validationIssues } from '../jsonrpc/errors.js';
import {
  type InputRequests,
  type InputResponses,
  checkInputRequired,
  clientCapabilitiesOf,
} from '../stateless/mrtr.js';
import { hasCapability, type Logger, type RequestContext, type RequestHandler } from '../engine/peer.js';
import { contextFacts } from '../engine/context.js';
import { type ProtocolMaps, type ProtocolTable, errorCodeOf } from '../protocol/table.js';
import { ownValue } from '../jsonrpc/own.js';
import { principalId } from '../auth/principal.js';
import type { TaskSupport } from './receiver.js';
import { InMemoryTaskStore, type TaskOutcome, type TaskStore, TaskNotFoundError, isTerminal } from '../stores/tasks.js';
import { ignoreRefusal, setStatusMessage, supportOf } from './store-use.js';
import {
  TASKS_EXTENSION,
  TASKS_METHODS,
  type CreateTaskResult,
  type GetTaskResult,
  type TaskAck,
  createTaskResult,
  detailedTask,
  readInputResponses,
  readTaskId,
} from './extension-wire.js';
import { isObject } from '../jsonrpc/message.js';

export * from './extension-wire.js';

type Obj = Record<string, unknown>;
/**
 * What task work returns: the `tools/call` result of `P` (a generated `Protocol`: its
 * CallToolResult, `resultType` optional since the extension fills it in; untyped: any object),
 * or a string (one text block).
 */
export type TaskWorkResult<P extends ProtocolMaps = ProtocolMaps> =
  | string
  | (unknown extends P['clientRequests']['tools/call']['result']
      ? Obj
      : {
          [K in keyof P['clientRequests']['tools/call']['result'] as K extends 'resultType'
            ? never
            : K]: P['clientRequests']['tools/call']['result'][K];
        } & { resultType?: string });

/** Options of the tasks extension of stateless revisions (2026-07-28, draft): the revision's table, which tools run as tasks, the store and its owner key, task lifetime and poll interval (ms), the bound on active tasks. */
export interface TasksExtensionOptions {
  /** The stateless revision's table: embedded input requests and task results are checked against it. */
  table: ProtocolTable;
  /** Task support per tool name, or a lookup: `optional`, `required`; unlisted or `forbidden` tools never become tasks. */
  tools?: Readonly<Record<string, TaskSupport>> | ((name: string) => TaskSupport | undefined);
  /** Where task records live (default: a new InMemoryTaskStore). */
  store?: TaskStore;
  /** The owner key of a request; default: its verified principal (`ctx.auth`), else one key for every request. */
  owner?: (ctx: RequestContext) => string | undefined;
  /** `ttlMs` of new tasks: a positive integer of ms, or null for unlimited (default 3,600,000). */
  ttlMs?: number | null;
  /** `pollIntervalMs` suggested to clients, a positive integer of ms (default 1000). */
  pollIntervalMs?: number;
  /** Tasks one owner may have running; past it `run` works inline (default 1000). */
  maxActiveTasks?: number;
  logger?: Logger;
}

/** The context task work runs with: a RequestContext whose `signal` aborts on `tasks/cancel`, expiry or `close()`. */
export interface TaskContext extends RequestContext {
  /** The task's id; undefined when the work runs inline (the request did not opt in). */
  readonly taskId: string | undefined;
  /**
   * Asks the client for input through the task: resolves with the responses by key once
   * `tasks/update` answered every key. Rejects with TypeError (inline, empty or reused key),
   * RpcError -32021 / -32603 (see the module doc), or `signal`'s reason.
   */
  input(requests: InputRequests): Promise<InputResponses>;
  /** Sets `statusMessage` keeping the status; resolves false once the task is terminal or gone (and inline). */
  setStatusMessage(message: string): Promise<boolean>;
}

interface Pending {
  request: InputRequests[string];
  answer(response: Obj): void;
}
interface Run {
  owner: string;
  controller: AbortController;
  pending: Map<string, Pending>;
  issued: Set<string>;
}

const DEFAULT_OWNER = 'io.modelcontextprotocol/tasks:any';
const ACK: TaskAck = { resultType: 'complete' };

/** Whether a request declared the tasks extension in its per-request client capabilities. */
export function declaresTasksExtension(ctx: Pick<RequestContext, 'meta'>): boolean {
  return hasCapability(clientCapabilitiesOf(ctx), ['extensions', TASKS_EXTENSION]);
}

/**
 * MissingRequiredClientCapability (the code of `table`'s revision, -32021 in the stateless ones)
 * naming the extension in `data.requiredCapabilities`.
 */
export function missingTasksExtension(why: string, table: Pick<ProtocolTable, 'revision' | 'errorCodes'>): RpcError {
  return new RpcError(
    errorCodeOf(table, 'MISSING_REQUIRED_CLIENT_CAPABILITY'),
    `Missing required client capability: extensions["${TASKS_EXTENSION}"] (${why})`,
    {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    },
  );
}

/**
 * One server's tasks extension: its task records (`store`), the running work and outstanding
 * input requests of its tasks, and the handlers and capabilities to give the ServerSession.
 * `P` (a generated `Protocol`, e.g. `new TasksExtension<Protocol>({ table })`) types what work
 * returns and what {@link TasksExtension.run} resolves with, so that a typed `ServerFeatures`
 * tool handler can return it; untyped, the shapes stay loose. Run-time behaviour does not depend on `P`.
 */
export class TasksExtension<P extends ProtocolMaps = ProtocolMaps> {
  readonly store: TaskStore;
  /** The methods to pass as the session's `extensionMethods`. */
  readonly methods: readonly string[] = TASKS_METHODS;
  readonly #o: TasksExtensionOptions;
  readonly #ttl: number | null;
  readonly #poll: number;
  readonly #runs = new Map<string, Run>();
  readonly #toolOf = new WeakMap<RequestContext, string>();
  readonly #unsubscribe: () => void;

  /** Throws RangeError for a `ttlMs` or `pollIntervalMs` that is not a positive integer (`ttlMs` may be null). */
  constructor(options: TasksExtensionOptions) {
    this.#o = options;
    this.#ttl = options.ttlMs === undefined ? 3_600_000 : options.ttlMs;
    this.#poll = options.pollIntervalMs ?? 1000;
    if (this.#ttl !== null && !(Number.isSafeInteger(this.#ttl) && this.#ttl > 0))
      throw new RangeError(`ttlMs must be a positive integer of ms or null, got ${this.#ttl}`);
    if (!(Number.isSafeInteger(this.#poll) && this.#poll > 0))
      throw new RangeError(`pollIntervalMs must be a positive integer of ms, got ${this.#poll}`);
    this.store = options.store ?? new InMemoryTaskStore();
    this.#unsubscribe = this.store.subscribe((ev) => {
      if (ev.type === 'expired' || ev.type === 'deleted')
        this.#stop(ev.task.taskId, new TaskNotFoundError(ev.task.taskId, ev.type === 'expired'));
    });
  }

  /** `capabilities` plus `extensions["io.modelcontextprotocol/tasks"]: {}`. */
  capabilities(capabilities: Obj = {}): Obj {
    const extensions = isObject(capabilities.extensions) ? capabilities.extensions : {};
    return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
  }

  /** `handlers` with `tools/call` gated for `required` tools and the three task methods added. */
  handlers(handlers: Record<string, RequestHandler>): Record<string, RequestHandler> {
    const out: Record<string, RequestHandler> = { ...handlers };
    const call = handlers['tools/call'];
    if (call) {
      out['tools/call'] = (params: Obj, ctx: RequestContext) => {
        const name = typeof params?.name === 'string' ? params.name : undefined;
        if (name !== undefined) {
          if (supportOf(this.#o.tools, name) === 'required' && !declaresTasksExtension(ctx))
            throw missingTasksExtension(`tool ${name} runs only as a task`, this.#o.table);
          this.#toolOf.set(ctx, name);
        }
        return call(params, ctx);
      };
    }
    out['tasks/get'] = (p: unknown, ctx: RequestContext) => this.#get(p, ctx);
    out['tasks/update'] = (p: unknown, ctx: RequestContext) => this.#update(p, ctx);
    out['tasks/cancel'] = (p: unknown, ctx: RequestContext) => this.#cancel(p, ctx);
    return out;
  }

  /**
   * Runs `work` for the `tools/call` request of `ctx` (served through {@link handlers}, which
   * records the tool's name): as a task when the request declared the extension and the tool
   * supports tasks (resolves with the CreateTaskResult once the task is stored), else inline
   * (resolves with `work`'s result, rejects with its error).
   */
  async run(
    ctx: RequestContext,
    work: (task: TaskContext) => TaskWorkResult<P> | Promise<TaskWorkResult<P>>,
  ): Promise<CreateTaskResult | Exclude<TaskWorkResult<P>, string>> {
    const name = this.#toolOf.get(ctx);
    const support = name === undefined ? undefined : supportOf(this.#o.tools, name);
    const owner = this.#owner(ctx);
    if (
      !declaresTasksExtension(ctx) ||
      (support !== 'optional' && support !== 'required') ||
      [...this.#runs.values()].filter((r) => r.owner === owner).length >= (this.#o.maxActiveTasks ?? 1000)
    ) {
      const out: TaskWorkResult = await work(this.#inlineContext(ctx));
      return (typeof out === 'string' ? toolResult(out) : out) as Exclude<TaskWorkResult<P>, string>;
    }
    const task = await this.store.create(owner, { ttl: this.#ttl, pollInterval: this.#poll });
    const run: Run = { owner, controller: new AbortController(), pending: new Map(), issued: new Set() };
    this.#runs.set(task.taskId, run);
    queueMicrotask(
      () =>
        void this.#execute(
          task.taskId,
          run,
          ctx,
          work as (task: TaskContext) => TaskWorkResult | Promise<TaskWorkResult>,
        ),
    );
    return createTaskResult(task);
  }

  /** Aborts the work of every task still running here and stops watching the store. */
  close(): void {
    this.#unsubscribe();
    for (const run of this.#runs.values()) run.controller.abort(new Error('tasks extension closed'));
    this.#runs.clear();
  }

  /** Aborts a task's work and forgets it (its outcome, should the work still end, is refused by the store). */
  #stop(taskId: string, reason: unknown): void {
    const run = this.#runs.get(taskId);
    if (!run) return;
    this.#runs.delete(taskId);
    run.pending.clear();
    run.controller.abort(reason);
  }

  #owner(ctx: RequestContext): string {
    const custom = this.#o.owner?.(ctx);
    if (custom !== undefined) return custom;
    const principal = principalId(ctx.info?.auth);
    return principal === undefined ? DEFAULT_OWNER : `principal:${principal}`;
  }

  /** The gate and lookup shared by the three methods: -32021 without the extension, -32602 for an unknown task. */
  async #task(p: unknown, ctx: RequestContext) {
    if (!declaresTasksExtension(ctx))
      throw missingTasksExtension(`${ctx.method} belongs to the tasks extension`, this.#o.table);
    const taskId = readTaskId(p, ctx.method);
    const owner = this.#owner(ctx);
    const task = await this.store.get(owner, taskId);
    if (!task) throw new TaskNotFoundError(taskId, (await this.store.expired?.(owner, taskId)) ?? false);
    return { task, owner, run: this.#runs.get(taskId) };
  }

  async #get(p: unknown, ctx: RequestContext): Promise<GetTaskResult> {
    const { task, owner, run } = await this.#task(p, ctx);
    const outcome = isTerminal(task.status) ? await this.store.outcome(owner, task.taskId) : undefined;
    const pending = run && Object.fromEntries([...run.pending].map(([k, v]) => [k, v.request]));
    return detailedTask(task, outcome, pending);
  }

  async #update(p: unknown, ctx: RequestContext): Promise<TaskAck> {
    const { task, owner, run } = await this.#task(p, ctx);
    const responses = readInputResponses(p);
    const answered: Array<[Pending, Obj]> = [];
    for (const [key, response] of Object.entries(responses)) {
      const pending = run?.pending.get(key);
      if (!pending) {
        this.#o.logger?.debug?.('tasks/update: ignored a response to a key that is not outstanding', {
          taskId: task.taskId,
          key,
        });
        continue;
      }
      const valid = ownValue(this.#o.table.requests.serverToClient, pending.request.method)?.result;
      if (valid && !valid(response)) {
        const issue = validationIssues(valid.errors)[0];
        throw new RpcError(
          ErrorCode.InvalidParams,
          `Invalid params for tasks/update: inputResponses.${key} is not a valid ${pending.request.method} result (${issue?.path || '/'} ${issue?.message ?? 'invalid'})`,
          { key },
        );
      }
      answered.push([pending, response]);
      run!.pending.delete(key);
    }
    if (run && answered.length && run.pending.size === 0)
      await this.store.update(owner, task.taskId, { status: 'working' }).catch(ignoreRefusal);
    for (const [pending, response] of answered) pending.answer(response);
    return { ...ACK };
  }

  async #cancel(p: unknown, ctx: RequestContext): Promise<TaskAck> {
    const { task, owner, run } = await this.#task(p, ctx);
    if (isTerminal(task.status)) return { ...ACK };
    await this.store
      .update(owner, task.taskId, { status: 'cancelled', statusMessage: 'The task was cancelled by request.' })
      .catch(ignoreRefusal);
    if (run) this.#stop(task.taskId, new Error(`task ${task.taskId} was cancelled by request`));
    return { ...ACK };
  }

  /** Runs the work of a stored task to its outcome; an outcome after cancel or expiry is dropped by the store. */
  async #execute(
    taskId: string,
    run: Run,
    ctx: RequestContext,
    work: (task: TaskContext) => TaskWorkResult | Promise<TaskWorkResult>,
  ): Promise<void> {
    let outcome: TaskOutcome;
    let statusMessage: string | null = null;
    try {
      const result = toolResult(await work(this.#taskContext(taskId, run, ctx)));
      const entry = ownValue(this.#o.table.requests.clientToServer, ctx.method);
      if (result.resultType !== 'complete') {
        throw new RpcError(
          ErrorCode.InternalError,
          `task work answered resultType ${JSON.stringify(result.resultType)}; ask for input with task.input()`,
        );
      }
      if (entry?.result && !entry.result(result))
        throw new RpcError(ErrorCode.InternalError, `task result fails the ${ctx.method} result schema`, {
          errors: validationIssues(entry.result.errors),
        });
      outcome = { kind: 'result', result };
    } catch (e) {
      if (e instanceof RpcError) {
        outcome = { kind: 'error', error: e.toJSON() };
        statusMessage = e.message;
      } else {
        outcome = {
          kind: 'result',
          result: {
            resultType: 'complete',
            content: [{ type: 'text', text: e instanceof Error ? e.message : String(e) }],
            isError: true,
          },
        };
      }
    }
    if (this.#runs.get(taskId) === run) this.#runs.delete(taskId);
    run.pending.clear();
    const status = outcome.kind === 'result' ? 'completed' : 'failed';
    await this.store.update(run.owner, taskId, { status, statusMessage, outcome }).catch((e: unknown) => {
      try {
        ignoreRefusal(e);
      } catch {
        this.#o.logger?.error?.('task outcome could not be stored', { taskId, error: String(e) });
      }
    });
  }

  #taskContext(taskId: string, run: Run, ctx: RequestContext): TaskContext {
    const signal = run.controller.signal;
    const table = this.#o.table;
    const store = this.store;
    return {
      ...contextFacts(ctx),
      taskId,
      signal,
      // the request's response stream is gone: progress and notifications have nowhere to go
      sendProgress: () => Promise.resolve(),
      sendNotification: () => Promise.resolve(),
      log: () => Promise.resolve(false),
      sendRequest: () =>
        Promise.reject(
          new RpcError(ErrorCode.MethodNotFound, 'a task sends no requests over a stateless revision (use task.input)'),
        ),
      input(requests: InputRequests): Promise<InputResponses> {
        if (signal.aborted) return Promise.reject(signal.reason);
        const keys = Object.keys(requests);
        if (!keys.length) return Promise.reject(new TypeError('task.input needs at least one input request'));
        const reused = keys.find((k) => run.issued.has(k));
        if (reused !== undefined)
          return Promise.reject(
            new TypeError(
              `input request key ${JSON.stringify(reused)} was already used in task ${taskId} (keys are unique over a task's life)`,
            ),
          );
        const refusal = checkInputRequired(
          table,
          ownValue(table.requests.clientToServer, ctx.method),
          { inputRequests: requests },
          clientCapabilitiesOf(ctx),
        );
        if (refusal) return Promise.reject(refusal);
        return new Promise<InputResponses>((resolve, reject) => {
          const answers: InputResponses = {};
          let left = keys.length;
          const onAbort = () => {
            for (const k of keys) run.pending.delete(k);
            reject(signal.reason);
          };
          signal.addEventListener('abort', onAbort, { once: true });
          for (const key of keys) {
            run.issued.add(key);
            run.pending.set(key, {
              request: requests[key],
              answer: (response) => {
                answers[key] = response;
                if (--left > 0) return;
                signal.removeEventListener('abort', onAbort);
                resolve(answers);
              },
            });
          }
          store.update(run.owner, taskId, { status: 'input_required' }).catch(ignoreRefusal).catch(reject);
        });
      },
      setStatusMessage: (message: string) => setStatusMessage(store, run.owner, taskId, message),
    };
  }

  #inlineContext(ctx: RequestContext): TaskContext {
    return {
      ...contextFacts(ctx),
      taskId: undefined,
      sendProgress: ctx.sendProgress.bind(ctx),
      sendNotification: ctx.sendNotification.bind(ctx),
      log: ctx.log.bind(ctx),
      sendRequest: ctx.sendRequest.bind(ctx),
      input: () =>
        Promise.reject(
          new TypeError(
            'task.input outside a task: the request did not opt into tasks (answer with inputRequired instead)',
          ),
        ),
      setStatusMessage: () => Promise.resolve(false),
    };
  }
}

/** A CallToolResult of what work returned (a string is one text block), `resultType` defaulting to `"complete"`. */
function toolResult(out: TaskWorkResult): Obj {
  if (typeof out === 'string') return { resultType: 'complete', content: [{ type: 'text', text: out }] };
  if (!isObject(out)) throw new RpcError(ErrorCode.InternalError, 'task work returned neither an object nor a string');
  return { resultType: 'complete', ...out, content: out.content ?? [] };
}
