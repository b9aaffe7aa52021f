/**
 * The requestor's handle on one task (2025-11-25 `basic/utilities/tasks.mdx`, experimental):
 * {@link TaskHandle} (status, updates, cancel, result) and the routing of
 * `notifications/tasks/status` to handles (./status-router.ts). ./requestor.ts builds it (`callWithTask`) and imports
 * this module on the first task-augmented request of the process, so an application that never
 * sends one does not load it (a bundler puts it in a chunk of its own).
 */
import {
  ConnectionClosedError,
  ErrorCode,
  InvalidResultError,
  RequestAbortedError,
  type RpcError,
  validationIssues,
} from '../jsonrpc/errors.js';
import type { Peer } from '../engine/peer.js';
import type { MethodEntry, ProtocolTable } from '../protocol/table.js';
import { type Task, TaskTransitionError, isTerminal } from '../stores/tasks.js';
import { routerOf } from './status-router.js';
import { isObject } from '../jsonrpc/message.js';

/** What callWithTask and a TaskHandle need of a ClientSession or ServerSession (structurally: the sessions are built on this layer). */
export interface RequestorSession {
  readonly peer: Peer;
  readonly table: ProtocolTable;
  readonly options: { enforceCapabilities?: boolean; notificationHandlers?: object };
  readonly server?: { capabilities: Record<string, unknown> } | undefined;
  readonly client?: { capabilities: Record<string, unknown> } | undefined;
}

/**
 * Resolves after `ms` milliseconds, or when `wake.fn` (set while it waits) is called; rejects
 * with RequestAbortedError('tasks/get') when `signal` aborts (at once when it already has).
 * The poll wait of {@link TaskHandle} and of the tasks extension's client.
 */
export const sleep = (ms: number, signal: AbortSignal | undefined, wake: { fn?: () => void } = {}): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      wake.fn = undefined;
    };
    const onAbort = () => {
      done();
      reject(new RequestAbortedError('tasks/get', signal!.reason));
    };
    const timer = setTimeout(() => (done(), resolve()), ms);
    wake.fn = () => (done(), resolve());
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * A task on the receiver, as the requestor sees it. `R` is the original method's result type
 * (e.g. CallToolResult for tools/call). Errors: RpcError from the receiver (-32602 for an
 * unknown, expired or terminal-and-cancelled task), the engine's timeout / abort /
 * connection-closed errors, InvalidResultError when `result()` does not match the method's
 * own result schema (`MethodEntry.complete`: e.g. CallToolResult, not its union with
 * CreateTaskResult).
 */
export class TaskHandle<R = unknown> {
  #task: Task;
  /** When the state was last read (the CreateTaskResult counts): polls wait a pollInterval from it. */
  #lastPoll = Date.now();
  #immediate: { result: R } | undefined;
  #stopProgress: (() => void) | undefined;
  /** Listening to notifications/tasks/status for this task, from creation until it is terminal. */
  #unlisten: (() => void) | undefined;
  readonly #iterators = new Set<(t: Task) => void>();

  /** @internal built by callWithTask. */
  constructor(
    private readonly session: RequestorSession,
    readonly method: string,
    /** The CreateTaskResult as received (its `_meta` may carry model-immediate-response text). */
    readonly created: Record<string, unknown>,
    private readonly entry: MethodEntry | undefined,
    private readonly options: { pollInterval?: number; validateResult?: boolean },
    stopProgress?: () => void,
  ) {
    this.#stopProgress = stopProgress;
    if (isObject(created.task)) {
      this.#task = created.task as unknown as Task;
      const router = routerOf(session);
      // every notification updates the state (`task`), whether or not an updates() loop runs
      this.#unlisten = router.listen(this.#task.taskId, (t) => {
        const seen = this.#observe(t);
        for (const l of this.#iterators) l(seen);
      });
      // what came before this handle existed (the module loading, the CreateTaskResult's turn)
      router.replay(this.#task.taskId, this.#task.lastUpdatedAt);
    } else {
      const now = new Date().toISOString();
      this.#task = { taskId: '', status: 'completed', createdAt: now, lastUpdatedAt: now, ttl: null };
      this.#immediate = { result: created as R };
      this.#stopProgress?.();
    }
  }

  get taskId(): string {
    return this.#task.taskId;
  }
  /** The latest known state (from the CreateTaskResult, a poll, a notification or cancel). */
  get task(): Task {
    return { ...this.#task };
  }
  /** The receiver's suggested interval, else the option, else 1000 ms. */
  get pollInterval(): number {
    return this.#task.pollInterval ?? this.options.pollInterval ?? 1000;
  }

  /** `tasks/get`: the current state. */
  async status(options: { signal?: AbortSignal; timeout?: number } = {}): Promise<Task> {
    if (this.#immediate) return this.task;
    this.#lastPoll = Date.now();
    const t = await this.session.peer.request<Task>('tasks/get', { taskId: this.taskId }, options);
    return this.#observe(t);
  }

  /** `tasks/cancel`: resolves with the cancelled task; a terminal one rejects with -32602. */
  async cancel(options: { signal?: AbortSignal; timeout?: number } = {}): Promise<Task> {
    if (this.#immediate) throw new TaskTransitionError(this.taskId, 'completed', 'cancelled');
    return this.#observe(await this.session.peer.request<Task>('tasks/cancel', { taskId: this.taskId }, options));
  }

  /**
   * The statuses of the task, each change once, starting with the latest known state and
   * ending after a terminal one. Sources: notifications/tasks/status (each one kept, in
   * order) and `tasks/get` polls at `pollInterval`. Throws when a poll fails (e.g. the task
   * expired) or `signal` aborts.
   */
  async *updates(options: { signal?: AbortSignal } = {}): AsyncGenerator<Task, void, undefined> {
    let last = this.task;
    yield last;
    if (isTerminal(last.status)) return;
    const queue: Task[] = [];
    const wake: { fn?: () => void } = {};
    const listener = (t: Task) => {
      queue.push(t);
      wake.fn?.();
    };
    this.#iterators.add(listener);
    const changed = (t: Task) =>
      t.status !== last.status || t.lastUpdatedAt !== last.lastUpdatedAt || t.statusMessage !== last.statusMessage;
    try {
      for (;;) {
        let next = queue.shift();
        if (!next) {
          const wait = this.#lastPoll + this.pollInterval - Date.now();
          if (wait > 0) {
            await sleep(wait, options.signal, wake);
            continue;
          }
          next = await this.status({ signal: options.signal });
        }
        if (!changed(next)) continue;
        last = next;
        yield next;
        if (isTerminal(next.status)) return;
      }
    } finally {
      this.#iterators.delete(listener);
    }
  }

  /** Resolves with the terminal task (polling as {@link updates} does). */
  async wait(options: { signal?: AbortSignal } = {}): Promise<Task> {
    let last = this.task;
    for await (const t of this.updates(options)) last = t;
    return last;
  }

  /**
   * `tasks/result`: the original request's result once the task is terminal (the receiver
   * blocks until then), or its JSON-RPC error (a cancelled task: -32602). `timeout` (ms)
   * bounds each `tasks/result` attempt; after a timeout the handle polls until terminal and
   * asks again.
   */
  async result(options: { signal?: AbortSignal; timeout?: number } = {}): Promise<R> {
    if (this.#immediate) return this.#immediate.result;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const r = await this.session.peer.request<R>(
            'tasks/result',
            { taskId: this.taskId },
            { ...options, validateResult: false },
          );
          // the original method's own result type (a CreateTaskResult is no answer to tasks/result)
          const check = this.entry?.complete ?? this.entry?.result;
          if (this.options.validateResult !== false && check && !check(r)) {
            throw new InvalidResultError(`tasks/result (${this.method})`, validationIssues(check.errors));
          }
          return r;
        } catch (e) {
          if (
            options.signal?.aborted ||
            e instanceof ConnectionClosedError ||
            e instanceof InvalidResultError ||
            e instanceof RequestAbortedError
          )
            throw e;
          const t = await this.status({ signal: options.signal }).catch(() => undefined);
          if (!t) throw e;
          if (isTerminal(t.status)) {
            if ((e as RpcError).code === ErrorCode.RequestTimeout && attempt < 3) continue;
            throw e;
          }
          await this.wait({ signal: options.signal });
        }
      }
    } finally {
      this.#stopProgress?.();
    }
  }

  #observe(t: Task): Task {
    if (!isTerminal(this.#task.status) || isTerminal(t.status)) this.#task = { ...t };
    if (isTerminal(t.status)) {
      this.#stopProgress?.();
      this.#unlisten?.();
    }
    return { ...t };
  }
}
