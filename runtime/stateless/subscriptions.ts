/**
 * `subscriptions/listen` (draft `basic/patterns/subscriptions.mdx`): a long-lived request whose
 * response is a stream of notifications.
 *
 * Server side, {@link SubscriptionHub} (one per ServerSession): a listen request registers a
 * subscription and sends `notifications/subscriptions/acknowledged` with the granted subset of
 * the requested filter before anything else on it (case 017: every later notification of the
 * subscription is chained behind the acknowledgement, so a change published at once still
 * comes second). {@link SubscriptionHub.publish} sends `notifications/{tools,prompts,resources}/
 * list_changed` and `notifications/resources/updated` only to subscriptions that opted in,
 * each with `_meta["io.modelcontextprotocol/subscriptionId"]` = the listen request's id (same
 * JSON type). Progress and log messages are request-scoped and never published here. The server
 * ends a subscription gracefully by answering the listen request with
 * `{ resultType: "complete", _meta: { subscriptionId } }` ({@link SubscriptionHub.close});
 * the client ends it with `notifications/cancelled` (the hub drops it, nothing more is sent).
 * A server may also tear a stream down with `notifications/cancelled` (`close(id, { graceful:
 * false })`), which the client reports as an ungraceful end by the server.
 *
 * Client side, {@link SubscriptionRouter}: demultiplexes notifications by exact subscription id
 * into the {@link Subscription} objects `ClientSession.listen` returns.
 */
import type { Params, RequestId } from '../jsonrpc/message.js';
import { hasCapability, type Logger, type RequestContext } from '../engine/peer.js';
import { ConnectionClosedError, RequestAbortedError } from '../jsonrpc/errors.js';
import { lookupTable } from '../jsonrpc/own.js';

/** Runs `f` after pending I/O: `setImmediate` where there is one (Node, Bun, Deno), else a 0 ms timer (browsers, workers). */
const later: (f: () => void) => void =
  typeof setImmediate === 'function' ? (f) => void setImmediate(f) : (f) => void setTimeout(f, 0);

/** The `_meta` key that ties a notification (and the closing result) to its subscription. */
export const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** `SubscriptionFilter`: which notification types a listen stream carries. */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
}

/** Notification method → filter flag (resources/updated is matched by URI instead); no prototype. */
const FLAGS: Readonly<Record<string, 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged'>> = lookupTable(
  {
    'notifications/tools/list_changed': 'toolsListChanged',
    'notifications/prompts/list_changed': 'promptsListChanged',
    'notifications/resources/list_changed': 'resourcesListChanged',
  },
);
/** Notifications that travel only on listen streams in stateless revisions. */
export const LISTEN_NOTIFICATIONS: readonly string[] = [...Object.keys(FLAGS), 'notifications/resources/updated'];

/**
 * The subset of `requested` a server with `capabilities` honours: each list flag needs
 * `<feature>.listChanged`, `resourceSubscriptions` needs `resources.subscribe` (and passes
 * `canSubscribe` per URI when given). Fields not granted are omitted.
 */
export function grantFilter(
  requested: SubscriptionFilter | undefined,
  capabilities: Record<string, unknown>,
  canSubscribe?: (uri: string) => boolean,
): SubscriptionFilter {
  const out: SubscriptionFilter = {};
  if (requested?.toolsListChanged === true && hasCapability(capabilities, ['tools', 'listChanged']))
    out.toolsListChanged = true;
  if (requested?.promptsListChanged === true && hasCapability(capabilities, ['prompts', 'listChanged']))
    out.promptsListChanged = true;
  if (requested?.resourcesListChanged === true && hasCapability(capabilities, ['resources', 'listChanged']))
    out.resourcesListChanged = true;
  if (Array.isArray(requested?.resourceSubscriptions) && hasCapability(capabilities, ['resources', 'subscribe'])) {
    const uris = [
      ...new Set(
        requested.resourceSubscriptions.filter((u) => typeof u === 'string' && (!canSubscribe || canSubscribe(u))),
      ),
    ];
    if (uris.length) out.resourceSubscriptions = uris;
  }
  return out;
}

/** True when a notification `method` with `params` is one `filter` opted in to. A URI matches itself and anything below it (`<uri>/…`). */
export function filterAccepts(filter: SubscriptionFilter, method: string, params: Params | undefined): boolean {
  const flag = FLAGS[method];
  if (flag) return filter[flag] === true;
  if (method !== 'notifications/resources/updated' || typeof params?.uri !== 'string') return false;
  const uri = params.uri;
  return (filter.resourceSubscriptions ?? []).some((s) => uri === s || uri.startsWith(s.endsWith('/') ? s : `${s}/`));
}

function tagged(params: Params | undefined, id: RequestId): Params {
  const meta = typeof params?._meta === 'object' && params._meta !== null ? (params._meta as Params) : {};
  return { ...params, _meta: { ...meta, [SUBSCRIPTION_ID]: id } };
}

interface ServerSub {
  id: RequestId;
  filter: SubscriptionFilter;
  ctx: RequestContext;
  tail: Promise<void>;
  resolve(result: Params | undefined): void;
}

/** Options of {@link SubscriptionHub}: the server's capabilities, which resource URIs may be subscribed to, the logger. */
export interface SubscriptionHubOptions {
  /** The server's declared capabilities (read at each listen request). */
  capabilities: () => Record<string, unknown>;
  /** May this listen request (`ctx`: its principal is `ctx.auth`) subscribe to this resource URI? (default: any). */
  canSubscribe?: (uri: string, ctx: RequestContext) => boolean;
  logger?: Logger;
}

/** The server's registry of open listen streams of one connection (see the module doc). */
export class SubscriptionHub {
  readonly #subs = new Map<RequestId, ServerSub>();

  constructor(private readonly options: SubscriptionHubOptions) {}

  /** Number of open subscriptions. */
  get size(): number {
    return this.#subs.size;
  }

  /** The granted filters of the open subscriptions, by listen request id. */
  subscriptions(): Map<RequestId, SubscriptionFilter> {
    return new Map([...this.#subs].map(([id, s]) => [id, s.filter]));
  }

  /**
   * The `subscriptions/listen` request handler: acknowledges at once and stays pending until
   * {@link close} (resolves with the closing result) or the client cancels (no response).
   */
  readonly handler = (params: Params, ctx: RequestContext): Promise<Params | undefined> => {
    const id = ctx.requestId;
    const can = this.options.canSubscribe;
    const filter = grantFilter(
      params.notifications as SubscriptionFilter | undefined,
      this.options.capabilities(),
      can && ((uri) => can(uri, ctx)),
    );
    // a listen request whose carrier is already gone (cancelled before it ran) opens nothing:
    // an abort listener added now would never fire, and the entry would stay for ever
    if (ctx.signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const sub: ServerSub = { id, filter, ctx, tail: Promise.resolve(), resolve };
      sub.tail = this.#send(sub, 'notifications/subscriptions/acknowledged', { notifications: filter });
      this.#subs.set(id, sub);
      ctx.signal.addEventListener(
        'abort',
        () => {
          if (this.#subs.get(id) === sub) this.#subs.delete(id);
          resolve(undefined);
        },
        { once: true },
      );
    });
  };

  #send(sub: ServerSub, method: string, params: Params | undefined): Promise<void> {
    return sub.ctx
      .sendNotification(method, tagged(params, sub.id))
      .catch((e: Error) =>
        this.options.logger?.debug?.('subscription notification not sent', { id: sub.id, method, error: e.message }),
      );
  }

  /**
   * Sends `method` (a list_changed or resources/updated notification) to every open
   * subscription whose filter accepts it, after that subscription's earlier messages. Returns
   * how many subscriptions it was queued for (0 for any other method).
   */
  publish(method: string, params?: Params): number {
    let n = 0;
    for (const sub of this.#subs.values()) {
      if (!filterAccepts(sub.filter, method, params)) continue;
      sub.tail = sub.tail.then(() => this.#send(sub, method, params));
      n++;
    }
    return n;
  }

  /**
   * Ends subscriptions (one `id`, or all), after their queued notifications. Graceful (default,
   * subscriptions page, Graceful Closure): the listen request is answered with
   * `{ resultType: "complete", _meta: { subscriptionId } }`. With `graceful: false` (the
   * cancellation page's server teardown): `notifications/cancelled` referencing the listen
   * request is sent instead and the request gets no response (it ends when the client's own
   * cancel arrives, or with the connection). Resolves once the messages were handed to the engine.
   */
  async close(id?: RequestId, options: { graceful?: boolean; reason?: string } = {}): Promise<void> {
    const subs = id === undefined ? [...this.#subs.values()] : [this.#subs.get(id)].filter((s): s is ServerSub => !!s);
    for (const s of subs) this.#subs.delete(s.id);
    await Promise.all(
      subs.map(async (s) => {
        await s.tail;
        if (options.graceful === false) {
          const params: Params = { requestId: s.id };
          if (options.reason !== undefined) params.reason = options.reason;
          await this.#send(s, 'notifications/cancelled', params);
        } else s.resolve({ resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: s.id } });
      }),
    );
    // the engine sends the response in the continuation of the handler's promise
    await new Promise<void>((r) => later(r));
  }
}

/** How a subscription ended. `by: 'client'` after close(); `'server'` with a result (graceful) or an error / server cancel; `'transport'` when the connection dropped (MAY re-listen). */
export interface SubscriptionEnd {
  by: 'client' | 'server' | 'transport';
  graceful: boolean;
  error?: unknown;
}

/** A client's open listen stream. */
export interface Subscription {
  /** The listen request's JSON-RPC id (= `subscriptionId`). */
  readonly id: RequestId;
  /** What was asked for. */
  readonly requested: SubscriptionFilter;
  /** Resolves with the granted filter (only fields that were asked for); rejects if the stream ends first. */
  readonly acknowledged: Promise<SubscriptionFilter>;
  /** Resolves when the subscription ended, never rejects. */
  readonly closed: Promise<SubscriptionEnd>;
  /** Cancels the listen request (`notifications/cancelled`); resolves once ended. */
  close(reason?: string): Promise<SubscriptionEnd>;
}

/** Options of a client's `subscriptions/listen` (draft): the notification callback and an abort signal. */
export interface ListenOptions {
  /** Receives each notification of this subscription (after the acknowledgement). */
  onNotification?: (method: string, params: Params | undefined) => void;
  /** Aborting closes the subscription like close(). */
  signal?: AbortSignal;
}

/** The granted filter restricted to what was requested (a server may not add types). */
function within(granted: SubscriptionFilter | undefined, requested: SubscriptionFilter): SubscriptionFilter {
  const out: SubscriptionFilter = {};
  for (const k of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
    if (granted?.[k] === true && requested[k] === true) out[k] = true;
  }
  const uris = (granted?.resourceSubscriptions ?? []).filter((u) => requested.resourceSubscriptions?.includes(u));
  if (uris.length) out.resourceSubscriptions = uris;
  return out;
}

class ClientSub implements Subscription {
  granted: SubscriptionFilter | undefined;
  readonly acknowledged: Promise<SubscriptionFilter>;
  readonly closed: Promise<SubscriptionEnd>;
  readonly controller = new AbortController();
  ack!: (f: SubscriptionFilter) => void;
  nack!: (e: unknown) => void;
  end!: (e: SubscriptionEnd) => void;
  ended = false;
  cancelledByServer = false;

  constructor(
    readonly id: RequestId,
    readonly requested: SubscriptionFilter,
    readonly options: ListenOptions,
  ) {
    this.acknowledged = new Promise((res, rej) => {
      this.ack = res;
      this.nack = rej;
    });
    this.acknowledged.catch(() => undefined);
    this.closed = new Promise((res) => (this.end = res));
  }

  close(reason = 'subscription closed by the client'): Promise<SubscriptionEnd> {
    if (!this.ended) this.controller.abort(reason);
    return this.closed;
  }
}

/** Client-side demultiplexer of listen streams (one per ClientSession). */
export class SubscriptionRouter {
  readonly #subs = new Map<RequestId, ClientSub>();

  constructor(private readonly logger?: Logger) {}

  /**
   * Opens a subscription: `send(signal)` must send the listen request (its id must be `id`) and
   * resolve with its result when the server ends it. Returns at once.
   */
  open(
    id: RequestId,
    filter: SubscriptionFilter,
    options: ListenOptions,
    send: (signal: AbortSignal) => Promise<unknown>,
  ): Subscription {
    const sub = new ClientSub(id, filter, options);
    this.#subs.set(id, sub);
    if (options.signal) {
      if (options.signal.aborted) sub.controller.abort(options.signal.reason);
      else options.signal.addEventListener('abort', () => sub.close(), { once: true });
    }
    const finish = (e: SubscriptionEnd) => {
      if (sub.ended) return;
      sub.ended = true;
      this.#subs.delete(id);
      if (!sub.granted)
        sub.nack(e.error ?? new Error(`subscription ${JSON.stringify(id)} ended before it was acknowledged`));
      sub.end(e);
    };
    let sent: Promise<unknown>;
    try {
      sent = send(sub.controller.signal);
    } catch (e) {
      // a send that throws ends the subscription like one that rejects (its entry is released)
      sent = Promise.reject(e);
    }
    sent.then(
      () => finish({ by: 'server', graceful: true }),
      (error: unknown) =>
        finish(
          sub.cancelledByServer
            ? { by: 'server', graceful: false, error }
            : error instanceof RequestAbortedError
              ? { by: 'client', graceful: true }
              : error instanceof ConnectionClosedError
                ? { by: 'transport', graceful: false, error }
                : { by: 'server', graceful: false, error },
        ),
    );
    return sub;
  }

  /**
   * Routes a server notification. Returns true when it belonged to an open subscription
   * (delivered, or dropped as out of order / not granted); false otherwise.
   */
  route(method: string, params: Params | undefined): boolean {
    const meta = params?._meta as Params | undefined;
    if (method === 'notifications/cancelled') {
      const sub = this.#subs.get(params?.requestId as RequestId);
      if (!sub) return false;
      sub.cancelledByServer = true;
      sub.controller.abort('the server cancelled the subscription');
      return true;
    }
    if (!meta || !Object.hasOwn(meta, SUBSCRIPTION_ID)) return false;
    const sub = this.#subs.get(meta[SUBSCRIPTION_ID] as RequestId);
    if (!sub) return false;
    if (method === 'notifications/subscriptions/acknowledged') {
      if (sub.granted) return true;
      sub.granted = within(params?.notifications as SubscriptionFilter | undefined, sub.requested);
      sub.ack(sub.granted);
      return true;
    }
    if (!sub.granted || !filterAccepts(sub.granted, method, params)) {
      this.logger?.debug?.('dropped subscription notification', { id: sub.id, method, acknowledged: !!sub.granted });
      return true;
    }
    try {
      sub.options.onNotification?.(method, params);
    } catch (e) {
      this.logger?.error?.('subscription handler failed', { method, error: String(e) });
    }
    return true;
  }
}
