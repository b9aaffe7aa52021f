/**
 * The RequestContext a handler gets when it runs as a task (2025-11-25
 * `basic/utilities/tasks.mdx`, "Associating Task-Related Messages" and "Input Required
 * Status"), built by the task receiver:
 * - `signal` aborts on `tasks/cancel`, on expiry of the task's ttl and on `TaskReceiver.close()`
 *   (not when the original request's response went out, nor when the connection closes);
 * - notifications and requests carry `_meta["io.modelcontextprotocol/related-task"]`, and go
 *   (HTTP) with the newest outstanding `tasks/result` of the task when there is one;
 * - while a request on behalf of the task is outstanding, the task is `input_required`; when
 *   the last one settles it is `working` again (unless it became terminal meanwhile);
 * - `sendProgress` keeps using the original request's `progressToken` for the task's lifetime.
 */
import { contextFacts, logForRequest } from '../engine/context.js';
import type { Params, RequestId } from '../jsonrpc/message.js';
import type { Peer, RequestContext, RequestOptions } from '../engine/peer.js';
import { ProgressReporter } from '../engine/progress.js';
import { type TaskStore, isTerminal, relatedTaskMeta } from '../stores/tasks.js';
import { ignoreRefusal, setStatusMessage } from './store-use.js';

/** What a task's handler can do besides the RequestContext (see {@link taskOf}). */
export interface TaskHandlerContext {
  readonly taskId: string;
  /** Sets `statusMessage` without changing the status; resolves false once the task is terminal or gone. */
  setStatusMessage(message: string): Promise<boolean>;
}

/** The receiver's bookkeeping of one running task. */
export interface TaskRun {
  owner: string;
  controller: AbortController;
  /** Outstanding tasks/result requests (HTTP routes the task's messages to the newest). */
  resultRequests: Set<RequestId>;
  /** Requests sent on behalf of the task and not settled yet. */
  outstanding: number;
  /** Its terminal status was notified (from the store's event, while it still ran). */
  terminalNotified?: boolean;
}

const contexts = new WeakMap<RequestContext, TaskHandlerContext>();

/** The task a handler runs for, when it runs as a task (undefined for a plain request). */
export function taskOf(ctx: RequestContext): TaskHandlerContext | undefined {
  return contexts.get(ctx);
}

/**
 * The context of task `taskId` started by the request `ctx` with `params` (see the module doc).
 * @internal used by the task receiver.
 */
export function createTaskContext(
  peer: Peer,
  store: TaskStore,
  ctx: RequestContext,
  params: Params,
  taskId: string,
  run: TaskRun,
): RequestContext {
  const related = (p?: Params): Params => ({
    ...p,
    _meta: { ...(p?._meta as Params | undefined), ...relatedTaskMeta(taskId) },
  });
  const route = () => [...run.resultRequests].pop();
  const progress = new ProgressReporter(
    ProgressReporter.tokenOf(params) ?? ProgressReporter.tokenOf({ _meta: ctx.meta }),
    (p) => peer.notify('notifications/progress', p, { relatedRequestId: route() }),
  );
  const setStatus = async (status: 'working' | 'input_required') => {
    const t = await store.get(run.owner, taskId);
    if (t && !isTerminal(t.status) && t.status !== status)
      await store.update(run.owner, taskId, { status }).catch(ignoreRefusal);
  };
  const context: RequestContext = {
    ...contextFacts(ctx),
    signal: run.controller.signal,
    sendProgress: (value, total, message) =>
      run.controller.signal.aborted ? Promise.resolve() : progress.report(value, total, message),
    sendNotification: (m, p) => peer.notify(m, related(p), { relatedRequestId: route() }),
    log: (level, data, logger) =>
      logForRequest(peer, ctx.meta, level, data, logger, (p) => context.sendNotification('notifications/message', p)),
    sendRequest: async <R>(m: string, p?: Params, o: RequestOptions = {}) => {
      if (run.outstanding++ === 0) await setStatus('input_required');
      try {
        return await peer.request<R>(m, related(p), {
          ...o,
          relatedRequestId: route(),
          signal: o.signal ? AbortSignal.any([o.signal, run.controller.signal]) : run.controller.signal,
        });
      } finally {
        if (--run.outstanding === 0) await setStatus('working');
      }
    },
  };
  contexts.set(context, {
    taskId,
    setStatusMessage: (message) => setStatusMessage(store, run.owner, taskId, message),
  });
  return context;
}
