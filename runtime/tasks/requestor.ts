/**
 * The requestor side of tasks (2025-11-25 `basic/utilities/tasks.mdx`, experimental): sends a
 * task-augmented request and returns a {@link TaskHandle} for polling, waiting, cancelling and
 * fetching the result.
 *
 * ```ts
 * const handle = await callWithTask(client, 'tools/call', { name: 'long_job', arguments: {} }, { task: { ttl: 60_000 } });
 * for await (const t of handle.updates()) console.log(t.status);   // ends at a terminal status
 * const result = await handle.result();                              // CallToolResult (or its JSON-RPC error)
 * // or, in one call through the generated client:
 * const same = await client.callTool(params, { task: { ttl: 60_000 }, onTask: (h) => ... });
 * ```
 *
 * Rules followed: the receiver must have declared `tasks.requests.<method path>` (else
 * {@link TaskNotSupportedError}, -32601, unless the session's `enforceCapabilities` is false);
 * polling (`tasks/get`) is never faster than the task's `pollInterval` (else the `pollInterval`
 * option, default 1000 ms) and stops at a terminal status; `notifications/tasks/status` are
 * used when they come (those before the handle exists included) but never relied on. `result()` calls `tasks/result`; when that fails
 * with anything but the task's final error (a timeout, say) it goes back to `tasks/get` until
 * the task is terminal and asks again (case 020). A receiver that answered the request with
 * a plain result (it may ignore `params.task` when it does not support tasks for the method)
 * gives a handle that is already `completed`, with an empty `taskId`.
 */
import { CapabilityNotDeclaredError } from '../jsonrpc/errors.js';
import { lazy } from '../jsonrpc/lazy.js';
import { type Params, isObject } from '../jsonrpc/message.js';
import { type RequestOptions, hasCapability } from '../engine/peer.js';
import type { ProgressCallback } from '../engine/progress.js';
import type { ClientParams, ProtocolMaps } from '../protocol/table.js';
import type { TaskMetadata } from '../stores/tasks.js';
import type { RequestorSession, TaskHandle } from './handle.js';
import { routerOf } from './status-router.js';

/** Options of a task-augmented request: the request's own, plus `task` and polling. */
export interface TaskRequestOptions extends RequestOptions {
  /** `params.task` to send (`ttl` in ms; `{}` lets the receiver choose). */
  task?: TaskMetadata;
  /** Shorthand for `task: { ttl }` (ms). */
  ttl?: number;
  /** Poll interval (ms) when the receiver suggests none (default 1000). */
  pollInterval?: number;
}

/**
 * The receiver did not declare task support for the method (`tasks.requests.<method path>`,
 * 2025-11-25 basic/utilities/tasks, "Capabilities"): -32601, nothing was sent.
 */
export class TaskNotSupportedError extends CapabilityNotDeclaredError {
  constructor(method: string, capability: readonly string[]) {
    super(
      method,
      capability,
      'receiver',
      `${method}: the receiver did not declare capability ${capability.join('.')} (task-augmented ${method})`,
    );
    this.name = 'TaskNotSupportedError';
  }
}
export type { RequestorSession, TaskHandle } from './handle.js';

/** A `ClientSession<P>` as callWithTask types it: `side` tells it from a server session, `protocolMaps` carries `P`. */
export interface ClientRequestorSession<P extends ProtocolMaps> extends RequestorSession {
  readonly side: 'client';
  readonly protocolMaps?: P;
}

/** A `ServerSession<P>` as callWithTask types it. */
export interface ServerRequestorSession<P extends ProtocolMaps> extends RequestorSession {
  readonly side: 'server';
  readonly protocolMaps?: P;
}

type HandleModule = typeof import('./handle.js');
/** ./handle.ts, imported by the first task-augmented request of the process (a failed import is tried again by the next). */
const handleModule = lazy(() => import('./handle.js'));

/**
 * Sends `method` with `params.task = options.task ?? {}` and resolves with a TaskHandle as soon
 * as the receiver answers its CreateTaskResult. Rejects with TaskNotSupportedError (nothing
 * sent) when the method is not task-augmentable or the receiver did not declare it, else as
 * the request would (the receiver's -32601 for a tool whose `taskSupport` is forbidden).
 * `onProgress` keeps receiving the task's progress until it is terminal. The request goes out
 * in the calling turn; the first one of the process also waits for ./handle.ts (TaskHandle) to
 * load. A `notifications/tasks/status` that comes before the handle exists (before the
 * CreateTaskResult, or while the module loads) is kept and handed to it (./status-router.ts).
 */
export function callWithTask<P extends ProtocolMaps, M extends keyof P['clientRequests'] & string>(
  session: ClientRequestorSession<P>,
  method: M,
  params: ClientParams<P['clientRequests'][M]['params']>,
  options?: TaskRequestOptions,
): Promise<TaskHandle<P['clientRequests'][M]['result']>>;
export function callWithTask<P extends ProtocolMaps, M extends keyof P['serverRequests'] & string>(
  session: ServerRequestorSession<P>,
  method: M,
  params: P['serverRequests'][M]['params'],
  options?: TaskRequestOptions,
): Promise<TaskHandle<P['serverRequests'][M]['result']>>;
export function callWithTask(
  session: RequestorSession,
  method: string,
  params: unknown,
  options?: TaskRequestOptions,
): Promise<TaskHandle<unknown>>;
export async function callWithTask(
  session: RequestorSession,
  method: string,
  params: unknown,
  options: TaskRequestOptions = {},
): Promise<TaskHandle<unknown>> {
  const peer = session.peer;
  const entry = session.table.requests[peer.side === 'client' ? 'clientToServer' : 'serverToClient'][method];
  const capability = ['tasks', 'requests', ...method.split('/')];
  if (!entry?.taskAugmentable) throw new TaskNotSupportedError(method, capability);
  // the method's own capability is checked by the engine, as for every outbound request
  // (Peer.request: CapabilityNotDeclaredError, nothing sent); task support is checked here
  const caps = peer.side === 'client' ? session.server?.capabilities : session.client?.capabilities;
  if (session.options.enforceCapabilities !== false && caps && !hasCapability(caps, capability))
    throw new TaskNotSupportedError(method, capability);
  const { task, ttl, pollInterval, onProgress, ...rest } = options;
  const p: Params = { ...(params as Params | undefined), task: { ...(ttl === undefined ? {} : { ttl }), ...task } };
  // the progress route is this handle's, not the request's: it outlives the CreateTaskResult
  let stop: (() => void) | undefined;
  if (onProgress) {
    const given = isObject(p._meta) ? p._meta.progressToken : undefined;
    const token = typeof given === 'string' || typeof given === 'number' ? given : globalThis.crypto.randomUUID();
    p._meta = { ...(p._meta as Params | undefined), progressToken: token };
    const off = peer.onProgressToken(token, onProgress as ProgressCallback);
    stop = () => {
      off();
      stop = undefined;
    };
  }
  let created: Record<string, unknown>;
  // notifications/tasks/status from now on reach the handle, even those before it exists
  const received = routerOf(session).expect();
  // sent now, in this turn; the handle's module loads meanwhile (once per process)
  let sent: Promise<Record<string, unknown>>;
  try {
    sent = peer.request<Record<string, unknown>>(method, p, rest);
  } catch (e) {
    received();
    throw e;
  }
  const loading = handleModule.load();
  loading.catch(() => undefined); // a failed import is reported below, once the answer came
  let mod: HandleModule;
  try {
    created = await sent;
    mod = await loading;
  } catch (e) {
    received();
    stop?.();
    throw e;
  }
  const { TaskHandle } = mod;
  try {
    return new TaskHandle(
      session,
      method,
      created,
      entry,
      { pollInterval, validateResult: options.validateResult },
      () => stop?.(),
    );
  } finally {
    received();
  }
}

/**
 * The one-call form behind `session.request(method, params, { task })`: runs the task to its
 * end and resolves with the original method's result (or rejects with its error); `onTask`
 * receives the handle as soon as the task exists (for status, updates or cancel).
 */
export async function requestAsTask(
  session: RequestorSession,
  method: string,
  params: unknown,
  options: TaskRequestOptions & { onTask?: (handle: TaskHandle<unknown>) => void },
): Promise<never> {
  const { onTask, ...rest } = options;
  const handle = await callWithTask(session, method, params, rest);
  onTask?.(handle);
  return (await handle.result({ signal: options.signal })) as never;
}
