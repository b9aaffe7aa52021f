/**
 * Wire shapes of the tasks extension `io.modelcontextprotocol/tasks` (SEP-2663, "Tasks
 * Extension"), which the revision schemas do not define: the extension's `Task`, the
 * CreateTaskResult a `tools/call` may be answered with, the DetailedTask of `tasks/get`, the
 * params of `tasks/get`, `tasks/update` and `tasks/cancel`, and the conversions from the
 * {@link TaskStore} record of ./tasks.ts.
 *
 * Units: `ttlMs` and `pollIntervalMs` are integer milliseconds (`ttlMs: null` = unlimited);
 * `createdAt` and `lastUpdatedAt` are ISO 8601 strings. The extension's Task carries no
 * `requestState` and no related-task `_meta` (those belong to multi round-trip requests and to
 * the 2025-11-25 tasks); there is no `tasks/result` and no `tasks/list` (both -32601).
 */
import { ErrorCode, type ErrorObject, RpcError } from '../jsonrpc/errors.js';
import type { InputRequests, InputResponses } from '../stateless/mrtr.js';
import type { Task as StoredTask, TaskOutcome, TaskStatus } from '../stores/tasks.js';
import { isObject } from '../jsonrpc/message.js';

/** The extension identifier, a key of `capabilities.extensions` on both sides (SEP-2663, Extension Identifier). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** The methods the extension adds, client→server (SEP-2663, Task Polling, Task Update Requests, Task Cancellation). */
export const TASKS_METHODS: readonly string[] = ['tasks/get', 'tasks/update', 'tasks/cancel'];
/** `resultType` of a CreateTaskResult (SEP-2663, Polymorphic Results); reserved for this extension. */
export const TASK_RESULT_TYPE = 'task';

type Obj = Record<string, unknown>;

/** The extension's `Task` (SEP-2663, Tasks): the fields every task-bearing message carries. */
export interface ExtensionTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601; changes with every status change. */
  lastUpdatedAt: string;
  /** Retention from `createdAt`, integer ms; null = unlimited. */
  ttlMs: number | null;
  /** Suggested polling interval, integer ms. */
  pollIntervalMs?: number;
}

/** `CreateTaskResult` = Result & Task, flat (no `task` wrapper), `resultType: "task"`; never `result`, `error` or `inputRequests`. */
export interface CreateTaskResult extends ExtensionTask {
  resultType: 'task';
  _meta?: Obj;
}

/**
 * `DetailedTask`: the Task plus what its status carries: `inputRequests` (input_required, the
 * outstanding requests by key), `result` (completed: the result the request would have had,
 * tool execution errors included), `error` (failed: the JSON-RPC error it ended with).
 */
export type DetailedTask =
  | (ExtensionTask & { status: 'working' | 'cancelled' })
  | (ExtensionTask & { status: 'input_required'; inputRequests: InputRequests })
  | (ExtensionTask & { status: 'completed'; result: Obj })
  | (ExtensionTask & { status: 'failed'; error: ErrorObject });

/** `GetTaskResult` = Result & DetailedTask, `resultType: "complete"`. */
export type GetTaskResult = DetailedTask & { resultType: 'complete' };

/** `UpdateTaskResult` and `CancelTaskResult`: an empty acknowledgement. */
export interface TaskAck {
  resultType: 'complete';
  _meta?: Obj;
}

/** Params of `tasks/get` and `tasks/cancel`. */
export interface TaskIdParams {
  taskId: string;
  _meta?: Obj;
}
/** Params of `tasks/update`: responses keyed like the task's `inputRequests`. */
export interface UpdateTaskParams extends TaskIdParams {
  inputResponses: InputResponses;
}

const invalid = (message: string, data?: unknown) => new RpcError(ErrorCode.InvalidParams, message, data);

/** Reads `params.taskId`; -32602 when it is not a non-empty string. */
export function readTaskId(params: unknown, method: string): string {
  const id = isObject(params) ? params.taskId : undefined;
  if (typeof id !== 'string' || id === '')
    throw invalid(`Invalid params for ${method}: taskId must be a non-empty string`, { field: 'taskId' });
  return id;
}

/** Reads `params.inputResponses` of `tasks/update`; -32602 when it is missing or not an object of objects. */
export function readInputResponses(params: unknown): InputResponses {
  const r = isObject(params) ? params.inputResponses : undefined;
  if (!isObject(r))
    throw invalid('Invalid params for tasks/update: inputResponses must be an object', { field: 'inputResponses' });
  for (const [key, v] of Object.entries(r)) {
    if (!isObject(v))
      throw invalid(`Invalid params for tasks/update: inputResponses.${key} must be an object`, {
        field: 'inputResponses',
        key,
      });
  }
  return r as InputResponses;
}

/** The extension's Task of a stored one (`ttl` → `ttlMs`, `pollInterval` → `pollIntervalMs`). */
export function toExtensionTask(t: StoredTask): ExtensionTask {
  const out: ExtensionTask = {
    taskId: t.taskId,
    status: t.status,
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttlMs: t.ttl,
  };
  if (t.statusMessage !== undefined) out.statusMessage = t.statusMessage;
  if (t.pollInterval !== undefined) out.pollIntervalMs = t.pollInterval;
  return out;
}

/** The CreateTaskResult announcing a freshly stored task. */
export function createTaskResult(t: StoredTask): CreateTaskResult {
  return { resultType: 'task', ...toExtensionTask(t) };
}

/**
 * The `tasks/get` answer for a stored task: `inputRequests` only while input_required (from
 * `pending`, an empty object when nothing is outstanding yet), `result` only when completed,
 * `error` only when failed (from the stored outcome).
 */
export function detailedTask(
  t: StoredTask,
  outcome: TaskOutcome | undefined,
  pending: InputRequests | undefined,
): GetTaskResult {
  const base = { resultType: 'complete' as const, ...toExtensionTask(t) };
  switch (t.status) {
    case 'input_required':
      return { ...base, status: 'input_required', inputRequests: pending ?? {} };
    case 'completed':
      return {
        ...base,
        status: 'completed',
        result: outcome?.kind === 'result' ? outcome.result : { resultType: 'complete', content: [] },
      };
    case 'failed':
      return {
        ...base,
        status: 'failed',
        error: outcome?.kind === 'error' ? outcome.error : { code: ErrorCode.InternalError, message: 'Task failed' },
      };
    default:
      return { ...base, status: t.status };
  }
}
