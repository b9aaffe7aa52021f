/**
 * Tasks (2025-11-25 `basic/utilities/tasks.mdx`, experimental): the task state machine and the
 * {@link TaskStore} that keeps tasks, their final outcome and their expiry, scoped by an owner
 * key (a session id or an authorization context) so that one owner never sees another's tasks.
 *
 * Status lifecycle ("Task Status Lifecycle"):
 *
 * ```text
 * working ──► input_required ──► working          (and back, any number of times)
 * working | input_required ──► completed | failed | cancelled   (terminal: final)
 * ```
 *
 * A change out of a terminal status is refused with {@link TaskTransitionError} (-32602) and
 * not applied. A change to the same non-terminal status is allowed (it updates
 * `statusMessage` and `lastUpdatedAt`), since the page only constrains moves between statuses.
 *
 * Times: `ttl` and `pollInterval` are milliseconds; `ttl: null` is unlimited retention.
 * `createdAt` / `lastUpdatedAt` are ISO 8601 strings (`Date#toISOString`).
 */
import { fromBase64Url, toBase64Url, utf8Bytes, utf8Text } from '../codec/bytes.js';
import { ErrorCode, type ErrorObject, RpcError } from '../jsonrpc/errors.js';
import { STATUSES, newTask } from './task-record.js';

/** `Task.status` (schema `TaskStatus`). */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task as it travels (schema `Task`): every required field always present, `ttl` included. */
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601; changes with every applied update. */
  lastUpdatedAt: string;
  /** Retention from creation, ms; null = unlimited. */
  ttl: number | null;
  /** Suggested polling interval, ms. */
  pollInterval?: number;
}

/** `params.task` of a task-augmented request (schema `TaskMetadata`). */
export interface TaskMetadata {
  /** Requested retention from creation, ms. */
  ttl?: number;
}

/** The `_meta` key tying messages to a task (schema `RelatedTaskMetadata`). */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';
/** Optional `_meta` key of a CreateTaskResult for tools/call: text for the model meanwhile. */
export const MODEL_IMMEDIATE_RESPONSE_META = 'io.modelcontextprotocol/model-immediate-response';

/** Statuses a task never leaves: `completed`, `failed`, `cancelled` (basic/utilities/tasks, Task Status). */
export const TERMINAL_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];

/** True for `completed`, `failed` and `cancelled`. */
export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** Whether `from → to` is a legal move (see the module doc): out of `working` or `input_required`, to any status. */
export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return (from === 'working' || from === 'input_required') && STATUSES.includes(to);
}

/** `_meta` value associating a message with `taskId`. */
export function relatedTaskMeta(taskId: string): Record<string, unknown> {
  return { [RELATED_TASK_META]: { taskId } };
}

/**
 * A status change that the lifecycle forbids (out of a terminal status, or an unknown status).
 * An RpcError with -32602 (Invalid params), the code the page gives for cancelling a terminal
 * task, so it can travel as is. `from` / `to` name the statuses.
 */
export class TaskTransitionError extends RpcError {
  constructor(
    readonly taskId: string,
    readonly from: TaskStatus,
    readonly to: TaskStatus,
  ) {
    super(
      ErrorCode.InvalidParams,
      isTerminal(from)
        ? to === 'cancelled'
          ? `Cannot cancel task: already in terminal status '${from}'`
          : `Cannot move task to '${to}': already in terminal status '${from}'`
        : `Illegal task status transition '${from}' → '${to}'`,
      { taskId, from, to },
    );
    this.name = 'TaskTransitionError';
  }
}

/** No task `taskId` for this owner (never existed, expired, deleted, or another owner's): -32602. */
export class TaskNotFoundError extends RpcError {
  constructor(
    readonly taskId: string,
    readonly expired = false,
  ) {
    super(ErrorCode.InvalidParams, `Failed to retrieve task: ${expired ? 'Task has expired' : 'Task not found'}`, {
      taskId,
    });
    this.name = 'TaskNotFoundError';
  }
}

/**
 * A `tasks/list` cursor this store did not issue: -32602, data `{ cursor }`; one longer than 256
 * characters (issued ones stay under 40) is named by its length alone, data `{ length }`.
 */
export class InvalidCursorError extends RpcError {
  constructor(readonly cursor: unknown) {
    const length = typeof cursor === 'string' && cursor.length > 256 ? cursor.length : undefined;
    super(
      ErrorCode.InvalidParams,
      length === undefined
        ? `Invalid cursor: ${JSON.stringify(cursor)}`
        : `Invalid cursor (${length} characters: not one this server issued)`,
      length === undefined ? { cursor } : { length },
    );
    this.name = 'InvalidCursorError';
  }
}

/**
 * The final outcome of the underlying request, what `tasks/result` answers: its result, or
 * the JSON-RPC error it ended with.
 */
export type TaskOutcome = { kind: 'result'; result: Record<string, unknown> } | { kind: 'error'; error: ErrorObject };

/** What {@link TaskStore.create} needs. */
export interface TaskInit {
  /** Retention from creation, ms; null = unlimited. */
  ttl: number | null;
  pollInterval?: number;
  statusMessage?: string;
}

/** One status change; `statusMessage: null` removes the message, undefined keeps it. */
export interface TaskUpdate {
  status: TaskStatus;
  statusMessage?: string | null;
  /** The final outcome; kept only with a terminal status. */
  outcome?: TaskOutcome;
}

/** What a store reports to subscribers. `expired`: deleted because its ttl elapsed. */
export interface TaskEvent {
  type: 'created' | 'updated' | 'deleted' | 'expired';
  owner: string;
  task: Task;
}

/** One page of {@link TaskStore.list}; `nextCursor` is opaque and present while more remain. */
export interface TaskPage {
  tasks: Task[];
  nextCursor?: string;
}

/**
 * Where tasks live. Every method is scoped by `owner`: a task created for one owner is
 * invisible (not found) to every other owner. Implementations must apply the lifecycle rules
 * ({@link canTransition}) atomically per task and report every change to subscribers.
 */
export interface TaskStore {
  /** Creates a `working` task with a fresh, unguessable id. */
  create(owner: string, init: TaskInit): Promise<Task>;
  /** The task, or undefined when this owner has no such (unexpired) task. */
  get(owner: string, taskId: string): Promise<Task | undefined>;
  /**
   * Applies a status change and resolves with the updated task. Rejects with
   * {@link TaskNotFoundError} or {@link TaskTransitionError} (then nothing changed).
   */
  update(owner: string, taskId: string, update: TaskUpdate): Promise<Task>;
  /** The stored outcome of a terminal task; undefined while it is not terminal. */
  outcome(owner: string, taskId: string): Promise<TaskOutcome | undefined>;
  /** This owner's tasks, oldest first. Rejects with {@link InvalidCursorError}. */
  list(owner: string, options?: { cursor?: string; limit?: number }): Promise<TaskPage>;
  /** Deletes a task and its outcome; resolves with whether it existed. */
  delete(owner: string, taskId: string): Promise<boolean>;
  /** Whether `taskId` was deleted because its ttl elapsed (for the error message only). */
  expired?(owner: string, taskId: string): Promise<boolean>;
  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: (event: TaskEvent) => void): () => void;
}

/** Options of {@link InMemoryTaskStore}: page size, clock, and how many expired task ids it remembers. */
export interface InMemoryTaskStoreOptions {
  /** Page size of `list` when none is given (default 50). */
  pageSize?: number;
  /** Clock, for tests (default `Date.now`). */
  now?: () => number;
  /** How many expired ids to remember per store for the "Task has expired" message (default 1000). */
  rememberExpired?: number;
}

interface Entry {
  owner: string;
  seq: number;
  task: Task;
  outcome?: TaskOutcome;
  timer?: ReturnType<typeof setTimeout>;
  expiresAt: number | null;
}

const CURSOR_PREFIX = 'tasks:';

/**
 * The default {@link TaskStore}: a Map in this process. Expiry: each task with a number `ttl`
 * is deleted `ttl` ms after `createdAt` by an unref'd timer (it never keeps the process alive),
 * and lookups treat an overdue task as already gone. Cursors are opaque base64url strings
 * naming the position after the last listed task, so deletions between pages skip nothing.
 */
export class InMemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, Entry>();
  readonly #listeners = new Set<(event: TaskEvent) => void>();
  readonly #expired = new Map<string, string>();
  readonly #pageSize: number;
  readonly #now: () => number;
  readonly #remember: number;
  #seq = 0;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.#pageSize = Math.max(1, Math.floor(options.pageSize ?? 50));
    this.#now = options.now ?? Date.now;
    this.#remember = options.rememberExpired ?? 1000;
  }

  /** Number of tasks held (every owner), for tests and monitoring. */
  get size(): number {
    return this.#tasks.size;
  }

  async create(owner: string, init: TaskInit): Promise<Task> {
    const now = this.#now();
    const task: Task = newTask(init, now);
    const entry: Entry = { owner, seq: ++this.#seq, task, expiresAt: init.ttl === null ? null : now + init.ttl };
    if (init.ttl !== null) {
      entry.timer = setTimeout(() => this.#expire(entry), init.ttl);
      entry.timer.unref?.();
    }
    this.#tasks.set(task.taskId, entry);
    this.#emit({ type: 'created', owner, task: { ...task } });
    return { ...task };
  }

  async get(owner: string, taskId: string): Promise<Task | undefined> {
    const e = this.#entry(owner, taskId);
    return e && { ...e.task };
  }

  async update(owner: string, taskId: string, update: TaskUpdate): Promise<Task> {
    const e = this.#entry(owner, taskId);
    if (!e) throw new TaskNotFoundError(taskId, this.#expired.get(taskId) === owner);
    if (!canTransition(e.task.status, update.status))
      throw new TaskTransitionError(taskId, e.task.status, update.status);
    const task: Task = { ...e.task, status: update.status, lastUpdatedAt: new Date(this.#now()).toISOString() };
    if (update.statusMessage === null) delete task.statusMessage;
    else if (update.statusMessage !== undefined) task.statusMessage = update.statusMessage;
    e.task = task;
    if (isTerminal(update.status) && update.outcome) e.outcome = update.outcome;
    this.#emit({ type: 'updated', owner, task: { ...task } });
    return { ...task };
  }

  async outcome(owner: string, taskId: string): Promise<TaskOutcome | undefined> {
    const e = this.#entry(owner, taskId);
    return e && isTerminal(e.task.status) ? e.outcome : undefined;
  }

  async list(owner: string, options: { cursor?: string; limit?: number } = {}): Promise<TaskPage> {
    let after = 0;
    if (options.cursor !== undefined) {
      const decoded = decodeCursor(options.cursor);
      if (decoded === undefined || decoded > this.#seq) throw new InvalidCursorError(options.cursor);
      after = decoded;
    }
    const limit = Math.max(1, Math.floor(options.limit ?? this.#pageSize));
    const mine: Entry[] = [];
    for (const e of this.#tasks.values()) if (e.owner === owner && e.seq > after && !this.#overdue(e)) mine.push(e);
    mine.sort((a, b) => a.seq - b.seq);
    const page = mine.slice(0, limit);
    const result: TaskPage = { tasks: page.map((e) => ({ ...e.task })) };
    if (mine.length > limit) result.nextCursor = encodeCursor(page[page.length - 1].seq);
    return result;
  }

  async delete(owner: string, taskId: string): Promise<boolean> {
    const e = this.#entry(owner, taskId);
    if (!e) return false;
    this.#remove(e, 'deleted');
    return true;
  }

  async expired(owner: string, taskId: string): Promise<boolean> {
    return this.#expired.get(taskId) === owner;
  }

  subscribe(listener: (event: TaskEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Deletes every task and clears every timer (subscribers hear `deleted`). */
  clear(): void {
    for (const e of [...this.#tasks.values()]) this.#remove(e, 'deleted');
  }

  #entry(owner: string, taskId: string): Entry | undefined {
    const e = this.#tasks.get(taskId);
    if (!e || e.owner !== owner) return undefined;
    if (this.#overdue(e)) {
      this.#expire(e);
      return undefined;
    }
    return e;
  }

  #overdue(e: Entry): boolean {
    return e.expiresAt !== null && this.#now() >= e.expiresAt;
  }

  #expire(e: Entry): void {
    if (this.#tasks.get(e.task.taskId) !== e) return;
    this.#expired.set(e.task.taskId, e.owner);
    if (this.#expired.size > this.#remember) this.#expired.delete(this.#expired.keys().next().value as string);
    this.#remove(e, 'expired');
  }

  #remove(e: Entry, type: 'deleted' | 'expired'): void {
    if (e.timer) clearTimeout(e.timer);
    this.#tasks.delete(e.task.taskId);
    this.#emit({ type, owner: e.owner, task: { ...e.task } });
  }

  #emit(event: TaskEvent): void {
    for (const l of [...this.#listeners]) {
      try {
        l(event);
      } catch {
        // a failing subscriber must not break the store
      }
    }
  }
}

function encodeCursor(seq: number): string {
  return toBase64Url(utf8Bytes(`${CURSOR_PREFIX}${seq}`));
}

function decodeCursor(cursor: unknown): number | undefined {
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let text: string;
  try {
    text = utf8Text(fromBase64Url(cursor));
  } catch {
    return undefined;
  }
  if (!text.startsWith(CURSOR_PREFIX)) return undefined;
  const n = Number(text.slice(CURSOR_PREFIX.length));
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
