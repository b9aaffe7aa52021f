/**
 * The routing of `notifications/tasks/status` (2025-11-25 `basic/utilities/tasks.mdx`, "Task
 * Status Notification") to the requestor's task handles, by `taskId`, then to the session's own
 * handler. Small and loaded with ./requestor.ts, so that it listens from the moment a
 * task-augmented request is sent: a notification that comes before its handle exists (before
 * the CreateTaskResult, or while ./handle.ts is still loading on the first task-augmented
 * request of the process) is kept for the handle.
 *
 * Bounds: notifications are kept only while a task-augmented request of the peer is waiting for
 * its handle, for at most {@link MAX_EARLY_TASKS} task ids (the oldest id is dropped first) and
 * the last {@link MAX_EARLY_PER_TASK} notifications of each; everything kept is dropped when no
 * request is waiting any more. Lookups are by `Map` (a `taskId` of `__proto__` is just a key).
 */
import { isObject } from '../jsonrpc/message.js';
import type { Peer } from '../engine/peer.js';
import type { Task } from '../stores/tasks.js';

/** Task ids whose early notifications are kept per peer. */
export const MAX_EARLY_TASKS = 64;
/** Early notifications kept per task id (the latest ones). */
export const MAX_EARLY_PER_TASK = 8;

const STATUS = 'notifications/tasks/status';

/** What the router needs of a session: its peer and its own notification handlers (structural). */
export interface StatusSession {
  readonly peer: Peer;
  readonly options: { notificationHandlers?: object };
}

/** Routes one peer's notifications/tasks/status to listeners by taskId, keeping early ones. */
export class StatusRouter {
  readonly #listeners = new Map<string, Set<(t: Task) => void>>();
  readonly #early = new Map<string, Task[]>();
  #waiting = 0;

  constructor(peer: Peer, fallback: ((p: unknown) => unknown) | undefined) {
    peer.setNotificationHandler(STATUS, (params: unknown) => {
      if (isObject(params) && typeof params.taskId === 'string') {
        const set = this.#listeners.get(params.taskId);
        if (set) for (const l of [...set]) l(params as unknown as Task);
        else if (this.#waiting > 0) this.#keep(params as unknown as Task);
      }
      return fallback?.(params) as Promise<void> | undefined;
    });
  }

  /** Early notifications kept (all task ids). */
  get kept(): number {
    let n = 0;
    for (const list of this.#early.values()) n += list.length;
    return n;
  }

  #keep(t: Task): void {
    let list = this.#early.get(t.taskId);
    if (!list) {
      if (this.#early.size >= MAX_EARLY_TASKS) this.#early.delete(this.#early.keys().next().value!);
      this.#early.set(t.taskId, (list = []));
    }
    list.push(t);
    if (list.length > MAX_EARLY_PER_TASK) list.shift();
  }

  /**
   * A task-augmented request is about to be sent: keep notifications for unknown task ids until
   * the returned function is called (once its handle exists, or the request failed).
   */
  expect(): () => void {
    this.#waiting++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.#waiting === 0) this.#early.clear();
    };
  }

  /** Calls `listener` with each notification for `taskId` from now on; returns the unsubscribe. */
  listen(taskId: string, listener: (t: Task) => void): () => void {
    let set = this.#listeners.get(taskId);
    if (!set) this.#listeners.set(taskId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(taskId) === set) this.#listeners.delete(taskId);
    };
  }

  /**
   * Hands the notifications kept for `taskId` to its listeners, in arrival order, and forgets
   * them; one whose `lastUpdatedAt` is before `since` (the state the handle starts from) is
   * skipped as stale.
   */
  replay(taskId: string, since: string): void {
    const early = this.#early.get(taskId);
    if (!early) return;
    this.#early.delete(taskId);
    const from = Date.parse(since);
    for (const t of early) {
      if (Date.parse(t.lastUpdatedAt) < from) continue;
      for (const l of [...(this.#listeners.get(taskId) ?? [])]) l(t);
    }
  }
}

const routers = new WeakMap<Peer, StatusRouter>();

/** The router of the session's peer, made (and its notification handler set) on first use. */
export function routerOf(session: StatusSession): StatusRouter {
  const peer = session.peer;
  let r = routers.get(peer);
  if (!r) {
    const own = (
      session.options.notificationHandlers as Record<string, ((p: unknown) => unknown) | undefined> | undefined
    )?.[STATUS];
    routers.set(peer, (r = new StatusRouter(peer, own)));
  }
  return r;
}
