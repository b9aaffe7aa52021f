/**
 * The sessions' way to a task-augmented request (2025-11-25 basic/utilities/tasks): ./requestor.ts
 * is imported when such a request is made (it goes out once the module is in: loaded by the first
 * one, at once for later ones), so that a client or server that never requests a task does not
 * carry it (a bundler puts it, with ./status-router.ts, in a chunk of its own).
 */
type Requestor = typeof import('./requestor.js');

/**
 * ./requestor.ts `requestAsTask` once the module is loaded: the method's own result once the task
 * is terminal. @throws (rejects with) what it rejects with, or the import's error.
 */
export function requestAsTask(...args: Parameters<Requestor['requestAsTask']>): Promise<never> {
  return import('./requestor.js').then((m) => m.requestAsTask(...args));
}
