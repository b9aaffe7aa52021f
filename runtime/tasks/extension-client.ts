/**
 * The tasks extension `io.modelcontextprotocol/tasks` (SEP-2663), client side, for the stateless
 * revisions: the client declares `capabilities.extensions["io.modelcontextprotocol/tasks"]`, a
 * `tools/call` may then be answered with a CreateTaskResult (`resultType: "task"`, which the
 * generated `Client` returns as it is), and {@link TasksExtensionClient} polls `tasks/get`,
 * answers the task's `inputRequests` with `tasks/update` and cancels with `tasks/cancel`.
 *
 * ```ts
 * const client = new Client({ clientInfo, capabilities: { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } }, handlers });
 * const tasks = new TasksExtensionClient(client);
 * const r = await client.callTool({ name: 'render', arguments: {} });
 * const result = isCreateTaskResult(r) ? await tasks.result(r) : r;   // the tools/call result
 * ```
 *
 * Rules followed: polling never faster than the task's `pollIntervalMs` (else the option, default
 * 1000 ms) and stopping at a terminal status; the `inputRequests` of an `input_required` task are
 * answered by the client's handlers (`elicitation/create`, `sampling/createMessage`, `roots/list`,
 * only for capabilities it declared), each key once; a `failed` task's error is thrown as an
 * RpcError with its code, message and data; a `cancelled` one as {@link TaskCancelledError}.
 */
import { ErrorCode, type ErrorObject, InvalidResultError, RpcError, validationIssues } from '../jsonrpc/errors.js';
import type { Params } from '../jsonrpc/message.js';
import type { RequestOptions } from '../engine/peer.js';
import type { ProtocolTable } from '../protocol/table.js';
import type { InputHandler, InputResponses } from '../stateless/mrtr.js';
import { answerInputRequests } from '../stateless/input-rounds.js';
import {
  TASK_RESULT_TYPE,
  type CreateTaskResult,
  type DetailedTask,
  type GetTaskResult,
  type TaskAck,
} from './extension-wire.js';
import { sleep } from './handle.js';

/** What the helper needs of a ClientSession (structurally: the session layer is built on this one). */
export interface TasksExtensionSession {
  readonly table: ProtocolTable;
  readonly options: { capabilities?: Record<string, unknown>; handlers?: object };
  extensionRequest<R extends object = Record<string, unknown>>(
    method: string,
    params?: Params,
    options?: RequestOptions,
  ): Promise<R>;
}

/** Options of {@link TasksExtensionClient}. */
export interface TasksExtensionClientOptions {
  /** Poll interval (ms) when the task suggests none (default 1000). */
  pollIntervalMs?: number;
}

/** True for a CreateTaskResult of the tasks extension (`resultType: "task"` with a `taskId`). */
export function isCreateTaskResult(result: unknown): result is CreateTaskResult {
  return (
    typeof result === 'object' &&
    result !== null &&
    (result as Record<string, unknown>).resultType === TASK_RESULT_TYPE &&
    typeof (result as Record<string, unknown>).taskId === 'string'
  );
}

/** The task ended `cancelled`: -32602, as a 2025-11-25 receiver answers `tasks/result` of a cancelled task. */
export class TaskCancelledError extends RpcError {
  constructor(readonly taskId: string) {
    super(ErrorCode.InvalidParams, 'Task was cancelled', { taskId });
    this.name = 'TaskCancelledError';
  }
}

/**
 * The requestor's side of the tasks extension over one client session (see the module doc).
 * Every method rejects with the server's RpcError (-32602 for an unknown or expired task,
 * -32021 when the request did not declare the extension), or the engine's timeout, abort and
 * connection-closed errors.
 */
export class TasksExtensionClient {
  readonly #session: TasksExtensionSession;
  readonly #poll: number;

  constructor(session: TasksExtensionSession, options: TasksExtensionClientOptions = {}) {
    this.#session = session;
    this.#poll = options.pollIntervalMs ?? 1000;
  }

  /** `tasks/get`: the task with what its status carries (`inputRequests`, `result` or `error`). */
  get(taskId: string, options?: RequestOptions): Promise<GetTaskResult> {
    return this.#session.extensionRequest<GetTaskResult>('tasks/get', { taskId }, options);
  }

  /** `tasks/update`: answers some or all of the task's `inputRequests`, keyed alike. */
  update(taskId: string, inputResponses: InputResponses, options?: RequestOptions): Promise<TaskAck> {
    return this.#session.extensionRequest<TaskAck>('tasks/update', { taskId, inputResponses }, options);
  }

  /** `tasks/cancel`: acknowledged once the task is cancelled (a terminal task acks unchanged). */
  cancel(taskId: string, options?: RequestOptions): Promise<TaskAck> {
    return this.#session.extensionRequest<TaskAck>('tasks/cancel', { taskId }, options);
  }

  /**
   * A completed task's `result` checked against the `tools/call` result type of the session's
   * table (`complete`: CallToolResult), as a `tools/call` answer is: InvalidResultError (-32603).
   */
  #checked(result: Record<string, unknown>): Record<string, unknown> {
    const entry = this.#session.table.requests.clientToServer['tools/call'];
    const check = entry?.complete ?? entry?.result;
    if (check && !check(result)) throw new InvalidResultError('tasks/get (tools/call)', validationIssues(check.errors));
    return result;
  }

  /**
   * Polls the task until it is terminal and resolves with its result (the `tools/call` result it
   * stands for, tool execution errors included); answers its `inputRequests` on the way with the
   * session's handlers. `onStatus` sees every state read. Rejects with the RpcError a `failed`
   * task carries, {@link TaskCancelledError}, InputRequestError (-32603) when an input request
   * cannot be answered, or RequestAbortedError when `signal` aborts.
   */
  async result(
    task: CreateTaskResult | string,
    options: { signal?: AbortSignal; onStatus?: (task: DetailedTask) => void } = {},
  ): Promise<Record<string, unknown>> {
    const taskId = typeof task === 'string' ? task : task.taskId;
    let interval = typeof task === 'string' ? undefined : task.pollIntervalMs;
    const answered = new Set<string>();
    // a fresh CreateTaskResult is read again after one interval; a task id, and a task just answered, at once
    let wait = typeof task !== 'string';
    for (;;) {
      if (wait) await sleep(interval ?? this.#poll, options.signal);
      wait = true;
      const t = await this.get(taskId, { signal: options.signal });
      interval = t.pollIntervalMs ?? interval;
      options.onStatus?.(t);
      if (t.status === 'completed') return this.#checked(t.result);
      if (t.status === 'failed') throw RpcError.from(t.error as ErrorObject);
      if (t.status === 'cancelled') throw new TaskCancelledError(taskId);
      if (t.status !== 'input_required') continue; // working
      const open = Object.fromEntries(Object.entries(t.inputRequests).filter(([key]) => !answered.has(key)));
      if (Object.keys(open).length === 0) continue;
      const responses = await answerInputRequests(
        {
          table: this.#session.table,
          method: 'tasks/update',
          handlers: (this.#session.options.handlers ?? {}) as Record<string, InputHandler>,
          capabilities: this.#session.options.capabilities ?? {},
          signal: options.signal,
        },
        open,
      );
      await this.update(taskId, responses, { signal: options.signal });
      for (const key of Object.keys(responses)) answered.add(key);
      wait = false;
    }
  }
}
