/**
 * What the task stores (./tasks.ts in memory, ./redis/tasks.ts) share when a task is made.
 */

/** Every `Task.status` (schema `TaskStatus`), the order of the task lifecycle. */
export const STATUSES: readonly ('working' | 'input_required' | 'completed' | 'failed' | 'cancelled')[] = [
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
];

/** A new task's fields (a `Task` of ./tasks.ts in status `working`; typed here so that this module imports nothing of ./tasks.ts, which imports it). */
export interface NewTask {
  taskId: string;
  status: 'working';
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  statusMessage?: string;
  pollInterval?: number;
}

/**
 * A new task in status `working`, created and last updated at `now` (ms since the epoch), with
 * a random UUID as its id and `init`'s ttl (ms, or null: unlimited), statusMessage and
 * pollInterval. @throws RangeError when `init.ttl` is neither null nor a finite number ≥ 0.
 */
export function newTask(
  init: { ttl: number | null; statusMessage?: string; pollInterval?: number },
  now: number,
): NewTask {
  if (init.ttl !== null && !(Number.isFinite(init.ttl) && init.ttl >= 0))
    throw new RangeError(`ttl must be a non-negative number of ms or null, got ${init.ttl}`);
  const iso = new Date(now).toISOString();
  const task: NewTask = {
    taskId: globalThis.crypto.randomUUID(),
    status: 'working',
    createdAt: iso,
    lastUpdatedAt: iso,
    ttl: init.ttl,
  };
  if (init.statusMessage !== undefined) task.statusMessage = init.statusMessage;
  if (init.pollInterval !== undefined) task.pollInterval = init.pollInterval;
  return task;
}
