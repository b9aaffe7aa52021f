/**
 * Progress (2025-11-25 `basic/utilities/progress.mdx`): the requester puts a `progressToken` in
 * `params._meta`; the receiver sends `notifications/progress` with that token (echoed exactly)
 * while the request is in progress, with `progress` increasing each time, and stops at
 * completion. A receiver of progress for a token it does not know (never issued, or its request
 * already finished: case 009) drops it: a notification is never answered.
 */
import { exactField, idText, isObject, isRequestId, type Params, type ProgressToken } from '../jsonrpc/message.js';

/** The payload of one progress notification, as delivered to callbacks. */
export interface Progress {
  /** Progress so far (may be fractional). */
  progress: number;
  /** Total, when known. */
  total?: number;
  /** Human-readable status. */
  message?: string;
}

/** Receives progress for one request. Called synchronously; a throw is caught and logged. */
export type ProgressCallback = (progress: Progress) => void;

/** What {@link ProgressRouter.route} did with a notification. */
export type RouteOutcome = 'delivered' | 'unknown-token' | 'malformed';

/**
 * Parses `notifications/progress` params; undefined when malformed (token not a string or an
 * integer, `progress` not a finite number, `total` or `message` of the wrong type).
 */
export function parseProgress(params: unknown): (Progress & { progressToken: ProgressToken }) | undefined {
  if (!isObject(params)) return undefined;
  const { progressToken, progress, total, message } = params;
  // (Number.isFinite is false for anything but a finite number)
  if (!isRequestId(progressToken) || !Number.isFinite(progress)) return undefined;
  if (total !== undefined && !Number.isFinite(total)) return undefined;
  if (message !== undefined && typeof message !== 'string') return undefined;
  const out: Progress & { progressToken: ProgressToken } = { progressToken, progress: progress as number };
  if (total !== undefined) out.total = total as number;
  if (message !== undefined) out.message = message;
  return out;
}

/**
 * Outbound side: maps the tokens of active requests to their callbacks. Tokens compare by type
 * and value (`"1"` is not `1`).
 */
export class ProgressRouter {
  /** Created by the first registration (many connections never ask for progress). */
  private routes: Map<ProgressToken, ProgressCallback> | undefined;

  /** Routes `token` to `callback` until the returned function (or {@link delete}) is called. */
  register(token: ProgressToken, callback: ProgressCallback): () => void {
    const routes = (this.routes ??= new Map());
    if (routes.has(token)) throw new Error(`progress token ${idText(token)} is already in use`);
    routes.set(token, callback);
    return () => {
      if (routes.get(token) === callback) routes.delete(token);
    };
  }

  has(token: ProgressToken): boolean {
    return this.routes?.has(token) ?? false;
  }

  delete(token: ProgressToken): void {
    this.routes?.delete(token);
  }

  clear(): void {
    this.routes?.clear();
  }

  /** Delivers `notifications/progress` params to the token's callback, if the token is active. */
  route(params: unknown, onCallbackError?: (e: unknown) => void): RouteOutcome {
    const p = parseProgress(params);
    if (!p) return 'malformed';
    const cb = this.routes?.get(p.progressToken);
    if (!cb) return 'unknown-token';
    const { progressToken: _, ...payload } = p;
    try {
      cb(payload);
    } catch (e) {
      onCallbackError?.(e);
    }
    return 'delivered';
  }
}

/**
 * Inbound side: the progress reporter of one request being handled. Sends only when the request
 * carried a `progressToken` (echoed exactly), only while the request is active (see
 * {@link ProgressReporter.stop}), and only increasing values: a value not above the previous one
 * is dropped (the spec requires `progress` to increase), as is a non-finite one.
 */
export class ProgressReporter {
  private last = -Infinity;
  private active = true;

  constructor(
    readonly token: ProgressToken | undefined,
    private readonly send: (params: Params) => Promise<void>,
    private readonly onDrop?: (why: string) => void,
  ) {}

  /** Reads `_meta.progressToken` from request params (undefined when absent or malformed). */
  static tokenOf(params: unknown): ProgressToken | undefined {
    if (!isObject(params) || !isObject(params._meta)) return undefined;
    const t = exactField(params._meta, 'progressToken');
    return isRequestId(t) ? t : undefined;
  }

  /** Sends one progress notification, or resolves without sending (see class doc). */
  report(progress: number, total?: number, message?: string): Promise<void> {
    if (this.token === undefined || !this.active) return Promise.resolve();
    if (!Number.isFinite(progress) || progress <= this.last) {
      this.onDrop?.(`progress ${progress} is not above ${this.last}`);
      return Promise.resolve();
    }
    this.last = progress;
    const params: Params = { progressToken: this.token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    return this.send(params);
  }

  /** The request completed or was cancelled: nothing more is sent. */
  stop(): void {
    this.active = false;
  }
}
