/**
 * The options of the Redis stores (./redis.ts), and what the stores of one process share.
 */
import type { RedisOptions } from 'ioredis';
import type { RedisTaskStoreOptions } from './tasks.js';

/** Options of `connectRedisStores` (./redis.ts). */
export interface RedisStoresOptions {
  /** Key and channel prefix, so that several deployments can share one Redis. Default `mcp:`. */
  prefix?: string;
  /**
   * A session record idle this long (untouched, and no live process marked it busy), ms,
   * expires. 0: never. Default 1 800 000 (30 minutes).
   */
  sessionIdleMs?: number;
  /**
   * Most session records; a new one evicts the least recently used idle one (no live process
   * marked it busy), and is refused with `SessionLimitError` (the
   * endpoint's 503) when none is idle. Default 10 000.
   */
  maxSessions?: number;
  /** Events kept per stream (older ones are trimmed). Default 1000. */
  maxEventsPerStream?: number;
  /** How long a stream's events stay replayable after its last event, ms. Default 300 000 (5 minutes). */
  eventTtlMs?: number;
  /**
   * Request claims (request replay: `RedisEventStore.claimRequest`) live at once per session
   * (those of requests still running, or whose process is gone until their lease lapses; a
   * finished request's claim holds no slot); past it a new request is refused
   * (`ClaimLimitError`, the endpoint's 503 with `Retry-After` the time until the soonest of
   * their leases ends, 1 to 30 s) rather than a claim forgotten. Default 10 000.
   */
  maxClaims?: number;
  /**
   * How long a process's liveness record lasts, ms, renewed every third of it. A process whose
   * record is missing at two checks this far apart counts as gone: a client following one of its
   * unfinished streams elsewhere gets error -32000 for the requests left unanswered. Default 3000.
   */
  livenessMs?: number;
  /** How long `connectRedisStores` waits for Redis, ms. Default 5000. */
  connectTimeoutMs?: number;
  /**
   * How long a command waits for its reply, ms, before it fails (a Redis that is connected but
   * does not answer: stalled, paused, overloaded), so that a request needing it gets 503
   * rather than waiting. Default 5000.
   */
  commandTimeoutMs?: number;
  /** Problems with no caller to tell (a failed heartbeat or bus delivery). */
  onError?(error: Error): void;
  /** Extra ioredis options (both connections). */
  redis?: RedisOptions;
  /** Bounds of the task store (its prefix is `prefix`). */
  tasks?: Omit<RedisTaskStoreOptions, 'prefix'>;
}

/**
 * What the stores of one process share (the object `connectRedisStores` makes for them):
 * the process's id and liveness, and the subscriber connection's channels.
 */
export interface RedisProcess {
  /** This process's id (liveness record, bus `from`, event tokens). */
  readonly processId: string;
  /** `livenessMs`: a process that has not renewed its liveness record for this long, ms, counts as gone. */
  readonly liveness: number;
  /** Listens on `channel` (subscribing on first use); returns the unsubscribe. */
  listen(channel: string, listener: (message: string) => void): () => void;
  /** Whether process `id` is gone: its liveness record missing at two checks `livenessMs` apart. */
  gone(id: string): Promise<boolean>;
  /** Stops the heartbeat and closes both connections. */
  close(): Promise<void>;
}
