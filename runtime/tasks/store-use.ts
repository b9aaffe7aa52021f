/**
 * What the task receiver of handshake revisions (./receiver.ts, with its task context
 * ./context.ts) and the tasks extension of stateless ones (./extension.ts) do alike with a
 * {@link TaskStore} and their options (2025-11-25 basic/utilities/tasks; SEP-2663). Internal:
 * not exported by `@mcpgen/runtime/tasks`.
 */
import { ownValue } from '../jsonrpc/own.js';
import { type TaskStore, TaskNotFoundError, TaskTransitionError, isTerminal } from '../stores/tasks.js';

/**
 * The `.catch` of a store update that may come after cancel, completion or expiry: the store's
 * refusal ({@link TaskTransitionError}, {@link TaskNotFoundError}) is expected and dropped (the
 * change is not applied); anything else is thrown again.
 */
export function ignoreRefusal(e: unknown): void {
  if (e instanceof TaskTransitionError || e instanceof TaskNotFoundError) return;
  throw e;
}

/**
 * Sets the `statusMessage` of task `taskId` of `owner`, keeping its status: true once stored;
 * false when the task is terminal or gone, or the store refused the change.
 */
export async function setStatusMessage(
  store: TaskStore,
  owner: string,
  taskId: string,
  message: string,
): Promise<boolean> {
  const t = await store.get(owner, taskId);
  if (!t || isTerminal(t.status)) return false;
  return store.update(owner, taskId, { status: t.status, statusMessage: message }).then(
    () => true,
    () => false,
  );
}

/**
 * The `execution.taskSupport` (`TaskSupport` of ./receiver.ts, not imported: it imports this
 * module) a `tools` option (by tool name, or a lookup) gives tool `name`;
 * undefined when it names none (an own property only: a tool named `constructor` is none).
 */
export function supportOf<S extends string>(
  tools: Readonly<Record<string, S>> | ((name: string) => S | undefined) | undefined,
  name: string,
): S | undefined {
  return typeof tools === 'function' ? tools(name) : ownValue(tools, name);
}
