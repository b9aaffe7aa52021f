/**
 * The Redis stores of a deployment of several server processes: session records, the event
 * log of resumable streams, the notification bus and tasks (./tasks.ts), over two ioredis connections (commands,
 * and one subscriber). Every key expires (sessions when idle, events and stream records after
 * `eventTtlMs`, a process's liveness record `livenessMs` after its last beat) and every
 * collection is capped, so Redis holds bounded state whatever the clients do.
 *
 * Keys, under `prefix` (default `mcp:`):
 * - `s:<session>` the session's record (JSON), `sessions` a sorted set of session ids by last use
 *   (the Redis server's clock, ms, strictly increasing),
 *   `b:<session>` its busy marks (process → mark expiry, ms by the Redis server's clock; set and
 *   cleared as work starts and ends, renewed every third of `livenessMs`);
 * - `e:<session>:<stream>` a Redis stream of the stream's events (`m`: the message's JSON, empty
 *   for a priming event; `end`: the stream finished), `m:<session>:<stream>` its owner process and
 *   requests, `ss:<session>` the session's stream ids; `rq:<session>:<request key>` a request's
 *   claim (request replay: its digest, priming event ID and owner process; the key is a hash of
 *   the request id), held while its stream is live (as long as a session may stay idle, so that
 *   a Redis stall does not drop it), expiring with the events after it finished; its lease is
 *   its score in `rqs:<session>` (a sorted set of request keys by lease end, at most
 *   `maxClaims` live; a finished request's claim by minus its expiry: no slot, never taken
 *   over), renewed while its stream is live;
 * - `p:<process>` a process's liveness record; channels `ev:<session>:<stream>` (an event was
 *   stored) and `bus` (the notification bus);
 * - `j:<key>` a one-time value (./replay.ts: an accepted DPoP proof's id), until it expires.
 *
 * Connection loss: commands fail at once (no offline queue), and those Redis does not answer
 * within `commandTimeoutMs` fail then, so a request that needs Redis gets a clear error instead
 * of waiting; a command in flight when the connection dropped is not sent again (it may have run
 * already: a failed command may have run, none runs twice) and fails when `commandTimeoutMs`
 * ends; both connections reconnect by themselves (backoff capped at 1 s) and resubscribe, after
 * which everything works again.
 *
 * This file connects and holds what the stores share (the process's liveness record, the
 * subscriber's channels); the stores are ./sessions.ts, ./events.ts and ./bus.ts, their options
 * ./options.ts.
 */
import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import type { SharedEventStore } from '../events.js';
import type { SessionStore } from '../sessions.js';
import type { NotificationBus } from '../bus.js';
import type { ReplayStore } from '../../auth/replay.js';
import { RedisTaskStore } from './tasks.js';
import { RedisReplayStore } from './replay.js';
import type { RedisProcess, RedisStoresOptions } from './options.js';
import { RedisSessionStore } from './sessions.js';
import { RedisEventStore } from './events.js';
import { RedisBus } from './bus.js';

export type { RedisStoresOptions } from './options.js';

/** The three Redis stores of one process, over shared connections. */
export interface RedisStores {
  readonly sessions: SessionStore;
  readonly events: SharedEventStore;
  readonly bus: NotificationBus;
  /** Tasks (./tasks.ts), shared by every process. */
  readonly tasks: RedisTaskStore;
  /**
   * One-time values (./replay.ts): give it to the token check of every process as the DPoP
   * replay store (`bearerAuth({ dpop: { replay } })`), so that a proof is accepted once by the
   * whole deployment.
   */
  readonly replay: ReplayStore;
  /** This process's id (liveness record, bus `from`). */
  readonly processId: string;
  /** The command connection (for diagnostics and tests). */
  readonly client: Redis;
  /** Stops the heartbeat and closes both connections (followers end as `aborted`). */
  close(): Promise<void>;
}

/**
 * The database number of a `redis://` or `rediss://` URL's path (`/3`), undefined when it names
 * none (no path, `/`).
 * @throws Error naming the URL when the path is anything else, or the URL has a query string.
 */
function databaseOf(url: string): number | undefined {
  let path: string;
  try {
    const u = new URL(url);
    if (!/^rediss?:$/.test(u.protocol)) return undefined;
    // ioredis would take options from the query (db, keyPrefix: keys these stores could not find)
    if (u.search !== '')
      throw new Error(
        `bad Redis URL ${redactRedisUrl(url)}: no query string (${u.search}); give the database as the path (/0), other ioredis options as \`redis\``,
      );
    path = u.pathname;
  } catch (e) {
    if (e instanceof TypeError) return undefined; // not a URL: left to ioredis
    throw e;
  }
  if (path === '' || path === '/') return undefined;
  const m = /^\/([0-9]{1,9})$/.exec(path);
  if (!m)
    throw new Error(`bad Redis URL ${redactRedisUrl(url)}: its path must be a database number (as /0), got ${path}`);
  return Number(m[1]);
}

/** What Redis answers to a refused `AUTH` (a wrong password or user, or none where one is required). */
const AUTH_REFUSED = /WRONGPASS|NOAUTH|invalid password|invalid username-password|AUTH failed|ERR AUTH/i;

/** Redis refused the credentials of the URL (wrong password or user, or none given where required). */
export class RedisAuthenticationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisAuthenticationError';
  }
}

/**
 * A Redis URL fit to print: its password (and a user name) replaced by `***`
 * (`redis://:***@host:6379/0`); a string that is no URL is shown only up to its last `@`,
 * which is replaced by `***@`.
 */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    if (u.username) u.username = '***';
    return u.href;
  } catch {
    const at = url.lastIndexOf('@');
    return at < 0 ? url : `***${url.slice(at)}`;
  }
}

/**
 * Connects to the Redis at `url` (`redis://[user:password@]host:port/db`) and returns the
 * stores. Rejects with an Error naming the URL (its credentials redacted, {@link redactRedisUrl})
 * when Redis cannot be reached within `connectTimeoutMs`, when the URL's path is not a database
 * number or it has a query string, or when that database does not exist there; with a
 * {@link RedisAuthenticationError} when Redis refuses the credentials.
 */
export async function connectRedisStores(url: string, options: RedisStoresOptions = {}): Promise<RedisStores> {
  const db = databaseOf(url);
  const base: RedisOptions = {
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(times * 100, 1000),
    connectTimeout: options.connectTimeoutMs ?? 5000,
    commandTimeout: options.commandTimeoutMs ?? 5000,
    ...options.redis,
  };
  // no offline queue, and a command in flight when the connection drops is not sent again on the
  // next one (it may have run: the stores handle a failed command that may have run, not one run twice)
  const client = new Redis(url, {
    ...base,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    lazyConnect: true,
  });
  const sub = new Redis(url, { ...base, lazyConnect: true });
  // errors surface through the commands that fail; the connection events need a listener. The
  // first error event is kept: a refused AUTH shows there, connect() only says the connection closed
  let refused: Error | undefined;
  const onError = (e: Error): void => {
    if (!refused && AUTH_REFUSED.test(e.message)) refused = e;
  };
  // onError stays their 'error' listener once connected (an 'error' event with no listener would
  // throw; ioredis reconnects by itself, and `refused` is no longer read)
  client.on('error', onError);
  sub.on('error', onError);
  const shown = redactRedisUrl(url);
  try {
    await Promise.all([client.connect(), sub.connect()]);
  } catch (e) {
    client.disconnect();
    sub.disconnect();
    const why = refused ?? (AUTH_REFUSED.test((e as Error).message) ? (e as Error) : undefined);
    // NOAUTH: a command sent with no AUTH where Redis requires one (ioredis sends AUTH whenever a password is given)
    if (why)
      throw new RedisAuthenticationError(
        /NOAUTH/.test(why.message)
          ? `Redis at ${shown} requires a password and none was given: ${why.message}`
          : `Redis at ${shown} refused the credentials: ${why.message}`,
      );
    throw new Error(`cannot reach Redis at ${shown}: ${(e as Error).message}`);
  }
  // ioredis selects the URL's database as it connects, but goes on in database 0 when that fails
  if (db !== undefined) {
    try {
      await client.select(db);
    } catch (e) {
      client.disconnect();
      sub.disconnect();
      throw new Error(`Redis at ${shown} has no database ${db}: ${(e as Error).message}`);
    }
  }
  return new RedisStoresImpl(client, sub, options);
}

/** Processes remembered as seen without a liveness record (see RedisStoresImpl.gone). */
const MISSING_KEPT = 256;

class RedisStoresImpl implements RedisStores, RedisProcess {
  readonly processId = randomBytes(9).toString('base64url');
  readonly sessions: SessionStore;
  readonly events: RedisEventStore;
  readonly bus: NotificationBus;
  readonly tasks: RedisTaskStore;
  readonly replay: ReplayStore;
  private readonly prefix: string;
  readonly liveness: number;
  private readonly heartbeat: ReturnType<typeof setInterval>;
  private readonly channels = new Map<string, Set<(message: string) => void>>();
  /** Processes whose liveness record a check found missing, and when first (ms): see {@link gone}. */
  private readonly missing = new Map<string, number>();
  private closed = false;

  constructor(
    readonly client: Redis,
    private readonly sub: Redis,
    private readonly options: RedisStoresOptions,
  ) {
    this.prefix = options.prefix ?? 'mcp:';
    this.liveness = Math.max(300, options.livenessMs ?? 3000);
    sub.on('message', (channel: string, message: string) => {
      for (const l of this.channels.get(channel) ?? []) {
        try {
          l(message);
        } catch (e) {
          options.onError?.(e as Error);
        }
      }
    });
    const beat = (): void => {
      client
        .set(`${this.prefix}p:${this.processId}`, '1', 'PX', this.liveness)
        .catch((e: Error) => options.onError?.(new Error(`redis heartbeat: ${e.message}`)));
    };
    beat();
    const sessions = new RedisSessionStore(this, client, this.prefix, options);
    this.sessions = sessions;
    // every third of livenessMs: the liveness record, then the busy marks of this process's sessions
    this.heartbeat = setInterval(
      () => {
        beat();
        sessions.renewBusy().catch((e: Error) => options.onError?.(new Error(`redis busy marks: ${e.message}`)));
      },
      Math.floor(this.liveness / 3),
    );
    this.heartbeat.unref?.();
    this.events = new RedisEventStore(this, client, this.prefix, options);
    this.bus = new RedisBus(this, client, this.prefix);
    this.replay = new RedisReplayStore(client, this.prefix);
    this.tasks = new RedisTaskStore(client, (channel, listener) => this.listen(channel, listener), {
      ...options.tasks,
      prefix: this.prefix,
    });
  }

  /** Listens on `channel` (subscribing on first use); returns the unsubscribe. */
  listen(channel: string, listener: (message: string) => void): () => void {
    let set = this.channels.get(channel);
    if (!set) {
      set = new Set();
      this.channels.set(channel, set);
      this.sub
        .subscribe(channel)
        .catch((e: Error) => this.options.onError?.(new Error(`redis subscribe: ${e.message}`)));
    }
    set.add(listener);
    return () => {
      const s = this.channels.get(channel);
      if (!s?.delete(listener) || s.size > 0) return;
      this.channels.delete(channel);
      if (!this.closed) this.sub.unsubscribe(channel).catch(() => undefined);
    };
  }

  /**
   * Whether process `id` is gone: its liveness record was missing at a check, and again at one
   * at least `livenessMs` later, with none in between finding it (the checks of every follower in
   * this process count, so a client whose resumed connections each last less than that still
   * learns it). One missing record is not enough: after a Redis pause or restart longer than
   * `livenessMs` every process's record has lapsed until its next beat. The processes seen
   * missing are remembered, the newest {@link MISSING_KEPT}.
   */
  async gone(id: string): Promise<boolean> {
    // its liveness record renewed within livenessMs (this process: alive)
    if (id === this.processId || (await this.client.exists(`${this.prefix}p:${id}`)) === 1) {
      this.missing.delete(id);
      return false;
    }
    const now = Date.now();
    const since = this.missing.get(id);
    if (since !== undefined) return now - since >= this.liveness;
    if (this.missing.size >= MISSING_KEPT) this.missing.delete(this.missing.keys().next().value as string);
    this.missing.set(id, now);
    return false;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.events.stopRenewing();
    await this.client.del(`${this.prefix}p:${this.processId}`).catch(() => undefined);
    this.client.disconnect();
    this.sub.disconnect();
  }
}
