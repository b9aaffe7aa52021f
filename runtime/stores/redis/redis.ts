// size: the Redis stores (sessions, events, bus) on one connection; split pending (#36)
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
 *   requests, `ss:<session>` the session's stream ids;
 * - `p:<process>` a process's liveness record; channels `ev:<session>:<stream>` (an event was
 *   stored) and `bus` (the notification bus);
 * - `j:<key>` a one-time value (./replay.ts: an accepted DPoP proof's id), until it expires.
 *
 * Connection loss: commands fail at once (no offline queue), and those Redis does not answer
 * within `commandTimeoutMs` fail then, so a request that needs Redis gets a clear error instead
 * of waiting; both connections reconnect by themselves (backoff capped at 1 s) and resubscribe,
 * after which everything works again.
 */
import { randomBytes } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import type { JSONRPCMessage } from '../../jsonrpc/transport.js';
import type { RequestId } from '../../jsonrpc/message.js';
import { serializeMessage } from '../../jsonrpc/message.js';
import { decimal } from '../../jsonrpc/decimal.js';
import type { FollowEnd, SharedEventStore } from '../events.js';
import { SessionLimitError, type SessionRecord, type SessionStore } from '../sessions.js';
import type { BusMessage, NotificationBus } from '../bus.js';
import { RedisTaskStore, type RedisTaskStoreOptions } from './tasks.js';
import { RedisReplayStore } from './replay.js';
import type { ReplayStore } from '../../auth/replay.js';

/** Options of {@link connectRedisStores}. */
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
   * How long a process's liveness record lasts, ms, renewed every third of it. A process whose
   * record is missing at two checks this far apart counts as gone: a client following one of its
   * unfinished streams elsewhere gets error -32000 for the requests left unanswered. Default 3000.
   */
  livenessMs?: number;
  /** How long {@link connectRedisStores} waits for Redis, ms. Default 5000. */
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

// Shared by the session scripts. The last-use score of a session is the Redis server's clock in
// ms (µs in the fraction), or one µs past the most recent score when that is not earlier (ties
// within a µs, the clock stepped back): so the order of the sorted set is the order Redis ran the
// uses in, whichever process sent them and whatever its clock says (a tie would sort by session
// id and evict a random one). A session is busy while a live process marks it (`b:<id>`: process
// → mark expiry, ms by the same Redis clock, so process clocks do not matter here either): a busy
// session neither expires nor is evicted, and its record's TTL is at least `livenessMs` (renewed
// with the marks), so it outlives the beats between renewals.
const COMMON = `
if redis.replicate_commands then redis.replicate_commands() end
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
local function stamp(z, s)
  local top = redis.call('ZRANGE', z, -1, -1, 'WITHSCORES')
  if top[2] and tonumber(top[2]) >= s then s = tonumber(top[2]) + 0.001 end
  return string.format('%.3f', s)
end
local function busy(p, id, now)
  -- now: clock() of the script
  for _, t in ipairs(redis.call('HVALS', p .. 'b:' .. id)) do
    if tonumber(t) > now then return true end
  end
  return false
end
local function idleCut(z, p, idle, now)
  if idle <= 0 then return end
  for _, o in ipairs(redis.call('ZRANGEBYSCORE', z, '-inf', '(' .. string.format('%.3f', clock() - idle))) do
    if not busy(p, o, now) then
      redis.call('ZREM', z, o)
      redis.call('DEL', p .. 's:' .. o, p .. 'b:' .. o)
    end
  end
end`;

// KEYS[1] session record, KEYS[2] sessions zset; ARGV id, idleMs. The record, used now (its TTL
// renewed, never shortened: a busy one's may be longer), or false.
const TOUCH = `${COMMON}
local v = redis.call('GET', KEYS[1])
if not v then redis.call('ZREM', KEYS[2], ARGV[1]) return false end
local idle = tonumber(ARGV[2])
if idle > 0 and redis.call('PTTL', KEYS[1]) < idle then redis.call('PEXPIRE', KEYS[1], idle) end
redis.call('ZADD', KEYS[2], stamp(KEYS[2], clock()), ARGV[1])
return v`;

// KEYS[1] sessions zset; ARGV prefix, idleMs. Drops the records idle too long, returns how many are left.
const SIZE = `${COMMON}
idleCut(KEYS[1], ARGV[1], tonumber(ARGV[2]), clock())
return redis.call('ZCARD', KEYS[1])`;

// KEYS[1] busy marks b:<id>, KEYS[2] its record; ARGV process, livenessMs, idleMs. Marks the session
// busy for this process until livenessMs from now, its record's TTL at least that long.
const MARK = `${COMMON}
local live, idle = tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('HSET', KEYS[1], ARGV[1], string.format('%.3f', clock() + live))
redis.call('PEXPIRE', KEYS[1], live)
if idle > 0 then redis.call('PEXPIRE', KEYS[2], math.max(idle, live)) end
return 0`;

// KEYS[1] sessions zset; ARGV prefix, process, livenessMs, idleMs, ids.
// Renews this process's busy marks of the ids whose records live, their records' TTLs, and their
// last use (busy: in use now).
const RENEW = `${COMMON}
local z, p = KEYS[1], ARGV[1]
local live, idle = tonumber(ARGV[3]), tonumber(ARGV[4])
local at = clock()
local untilAt = string.format('%.3f', at + live)
for i = 5, #ARGV do
  local id = ARGV[i]
  if redis.call('EXISTS', p .. 's:' .. id) == 1 then
    redis.call('HSET', p .. 'b:' .. id, ARGV[2], untilAt)
    redis.call('PEXPIRE', p .. 'b:' .. id, live)
    if idle > 0 then redis.call('PEXPIRE', p .. 's:' .. id, math.max(idle, live)) end
    redis.call('ZADD', z, stamp(z, at), id)
  end
end
return 0`;

// KEYS[1] sessions zset; ARGV prefix, id, process, livenessMs, idleMs. Clears this process's
// busy mark of id; the record counts as used now, its idle time starting now (or stays busy, its
// TTL at least livenessMs, while another process marks it).
const RELEASE = `${COMMON}
local z, p, id = KEYS[1], ARGV[1], ARGV[2]
redis.call('HDEL', p .. 'b:' .. id, ARGV[3])
local k = p .. 's:' .. id
if redis.call('EXISTS', k) == 0 then return 0 end
local idle = tonumber(ARGV[5])
if idle > 0 then
  if busy(p, id, clock()) then redis.call('PEXPIRE', k, math.max(idle, tonumber(ARGV[4])))
  else redis.call('PEXPIRE', k, idle) end
end
redis.call('ZADD', z, stamp(z, clock()), id)
return 1`;

// KEYS[1] sessions zset; ARGV prefix, id ('' only makes room), idleMs, max, record.
// Evicts the least recently used records that are not busy; refuses with MCPFULL, evicting
// nothing, when too few are idle.
const CREATE = `${COMMON}
local z = KEYS[1]
local p = ARGV[1]
local now = clock()
idleCut(z, p, tonumber(ARGV[3]), now)
if ARGV[2] ~= '' then redis.call('ZREM', z, ARGV[2]) end
local need = redis.call('ZCARD', z) - tonumber(ARGV[4]) + 1
local evicted = {}
if need > 0 then
  local victims = {}
  for _, o in ipairs(redis.call('ZRANGE', z, 0, -1)) do
    if #victims >= need then break end
    if not busy(p, o, now) then table.insert(victims, o) end
  end
  if #victims < need then return redis.error_reply('MCPFULL') end
  for _, o in ipairs(victims) do
    redis.call('ZREM', z, o)
    redis.call('DEL', p .. 'b:' .. o)
    if redis.call('DEL', p .. 's:' .. o) == 1 then table.insert(evicted, o) end
  end
end
if ARGV[2] == '' then return evicted end
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', p .. 's:' .. ARGV[2], ARGV[5], 'PX', ARGV[3])
else
  redis.call('SET', p .. 's:' .. ARGV[2], ARGV[5])
end
redis.call('ZADD', z, stamp(z, clock()), ARGV[2])
return evicted`;

// KEYS[1] stream e:<session>:<stream>, KEYS[2] its record m:<session>:<stream>, KEYS[3] the
// session's streams ss:<session>; ARGV maxEvents, ttlMs, owner process, message JSON, token,
// stream id, channel. An event offered again (its first offer got no answer, so Redis may have
// stored it): the ID of the entry with its token among the stream's newest 256, else stored now.
const STORE_AGAIN = `
for _, e in ipairs(redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 256)) do
  local f = e[2]
  for i = 1, #f - 1, 2 do
    if f[i] == 'k' and f[i + 1] == ARGV[5] then return e[1] end
  end
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], '*', 'm', ARGV[4], 'k', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[2], 'owner', ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[6])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
redis.call('PUBLISH', ARGV[7], '1')
return id`;

const XID = /^([0-9]{1,20})-([0-9]{1,20})$/;
const U64_MAX = 2n ** 64n - 1n;

/**
 * Splits an event ID `<streamId>_<redis stream id>`; undefined when it is not one (a Redis
 * stream id is two unsigned 64-bit integers `<ms>-<seq>`: a larger one Redis would refuse).
 */
function parseEventId(eventId: string): { streamId: string; xid: string } | undefined {
  const cut = eventId.lastIndexOf('_');
  if (cut <= 0) return undefined;
  const xid = eventId.slice(cut + 1);
  const m = XID.exec(xid);
  if (!m || BigInt(m[1]) > U64_MAX || BigInt(m[2]) > U64_MAX) return undefined;
  return { streamId: eventId.slice(0, cut), xid };
}

const idKey = (id: RequestId): string => (typeof id === 'number' ? `number:${decimal(id)}` : `${typeof id}:${id}`);

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
  const client = new Redis(url, { ...base, enableOfflineQueue: false, lazyConnect: true });
  const sub = new Redis(url, { ...base, lazyConnect: true });
  // errors surface through the commands that fail; the connection events need a listener. The
  // first error event is kept: a refused AUTH shows there, connect() only says the connection closed
  let refused: Error | undefined;
  const onError = (e: Error): void => {
    if (!refused && AUTH_REFUSED.test(e.message)) refused = e;
  };
  client.on('error', onError);
  sub.on('error', onError);
  const shown = redactRedisUrl(url);
  try {
    await Promise.all([client.connect(), sub.connect()]);
  } catch (e) {
    client.disconnect();
    sub.disconnect();
    const why = refused ?? (AUTH_REFUSED.test((e as Error).message) ? (e as Error) : undefined);
    if (why) throw new RedisAuthenticationError(`Redis at ${shown} refused the credentials: ${why.message}`);
    throw new Error(`cannot reach Redis at ${shown}: ${(e as Error).message}`);
  }
  client.off('error', onError);
  sub.off('error', onError);
  client.on('error', () => undefined);
  sub.on('error', () => undefined);
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

class RedisStoresImpl implements RedisStores {
  readonly processId = randomBytes(9).toString('base64url');
  readonly sessions: SessionStore;
  readonly events: SharedEventStore;
  readonly bus: NotificationBus;
  readonly tasks: RedisTaskStore;
  readonly replay: ReplayStore;
  private readonly prefix: string;
  private readonly livenessMs: number;
  private readonly heartbeat: ReturnType<typeof setInterval>;
  private readonly busyBeat: ReturnType<typeof setInterval>;
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
    this.livenessMs = Math.max(300, options.livenessMs ?? 3000);
    client.defineCommand('mcpTouch', { numberOfKeys: 2, lua: TOUCH });
    client.defineCommand('mcpCreate', { numberOfKeys: 1, lua: CREATE });
    client.defineCommand('mcpSize', { numberOfKeys: 1, lua: SIZE });
    client.defineCommand('mcpRenew', { numberOfKeys: 1, lua: RENEW });
    client.defineCommand('mcpMark', { numberOfKeys: 2, lua: MARK });
    client.defineCommand('mcpRelease', { numberOfKeys: 1, lua: RELEASE });
    client.defineCommand('mcpStoreAgain', { numberOfKeys: 3, lua: STORE_AGAIN });
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
        .set(`${this.prefix}p:${this.processId}`, '1', 'PX', this.livenessMs)
        .catch((e: Error) => options.onError?.(new Error(`redis heartbeat: ${e.message}`)));
    };
    beat();
    this.heartbeat = setInterval(beat, Math.floor(this.livenessMs / 3));
    this.heartbeat.unref?.();
    const sessions = new RedisSessionStore(this, client, this.prefix, options);
    this.sessions = sessions;
    this.busyBeat = setInterval(
      () => {
        sessions.renewBusy().catch((e: Error) => options.onError?.(new Error(`redis busy marks: ${e.message}`)));
      },
      Math.floor(this.livenessMs / 3),
    );
    this.busyBeat.unref?.();
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

  /** Whether process `id` renewed its liveness record within `livenessMs`. */
  async alive(id: string): Promise<boolean> {
    return id === this.processId || (await this.client.exists(`${this.prefix}p:${id}`)) === 1;
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
    if (await this.alive(id)) {
      this.missing.delete(id);
      return false;
    }
    const now = Date.now();
    const since = this.missing.get(id);
    if (since !== undefined) return now - since >= this.livenessMs;
    if (this.missing.size >= MISSING_KEPT) this.missing.delete(this.missing.keys().next().value as string);
    this.missing.set(id, now);
    return false;
  }

  get liveness(): number {
    return this.livenessMs;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    clearInterval(this.busyBeat);
    await this.client.del(`${this.prefix}p:${this.processId}`).catch(() => undefined);
    this.client.disconnect();
    this.sub.disconnect();
  }
}

type TouchCommands = Redis & {
  mcpTouch(k1: string, k2: string, id: string, idle: string): Promise<string | null>;
  mcpCreate(k1: string, prefix: string, id: string, idle: string, max: string, record: string): Promise<string[]>;
  mcpSize(k1: string, prefix: string, idle: string): Promise<number>;
  mcpMark(k1: string, k2: string, process: string, liveness: string, idle: string): Promise<number>;
  mcpRenew(
    k1: string,
    prefix: string,
    process: string,
    liveness: string,
    idle: string,
    ...ids: string[]
  ): Promise<number>;
  mcpRelease(k1: string, prefix: string, id: string, process: string, liveness: string, idle: string): Promise<number>;
  mcpStoreAgain(
    k1: string,
    k2: string,
    k3: string,
    max: string,
    ttl: string,
    owner: string,
    message: string,
    token: string,
    streamId: string,
    channel: string,
  ): Promise<string>;
};

class RedisSessionStore implements SessionStore {
  private readonly idleMs: number;
  private readonly max: number;
  private readonly zset: string;
  /** Sessions this process marked busy (renewed on the heartbeat). */
  private readonly marked = new Set<string>();
  private readonly onError: RedisStoresOptions['onError'];

  constructor(
    private readonly owner: RedisStoresImpl,
    private readonly client: Redis,
    private readonly prefix: string,
    options: RedisStoresOptions,
  ) {
    this.idleMs = Math.max(0, options.sessionIdleMs ?? 30 * 60 * 1000);
    this.max = Math.max(1, options.maxSessions ?? 10_000);
    this.zset = `${prefix}sessions`;
    this.onError = options.onError;
  }

  async create(sessionId: string, record: SessionRecord): Promise<string[]> {
    return this.run(sessionId, JSON.stringify(record));
  }

  async makeRoom(): Promise<string[]> {
    return this.run('', '');
  }

  markBusy(sessionId: string, busy: boolean): void {
    const key = `${this.prefix}b:${sessionId}`;
    const live = this.owner.liveness;
    let sent: Promise<unknown>;
    if (busy) {
      // the record outlives the beats between renewals (its TTL at least livenessMs)
      sent = (this.client as TouchCommands).mcpMark(
        key,
        `${this.prefix}s:${sessionId}`,
        this.owner.processId,
        String(live),
        String(this.idleMs),
      );
      this.marked.add(sessionId);
    } else {
      sent = (this.client as TouchCommands).mcpRelease(
        this.zset,
        this.prefix,
        sessionId,
        this.owner.processId,
        String(live),
        String(this.idleMs),
      );
      this.marked.delete(sessionId);
    }
    sent.catch((e: Error) => this.onError?.(new Error(`redis busy mark: ${e.message}`)));
  }

  /** Renews this process's busy marks (`b:<session>` field `<process>` = mark expiry, ms by the Redis server's clock), their records' TTLs and last use; run on the heartbeat. */
  async renewBusy(): Promise<void> {
    if (this.marked.size === 0) return;
    const live = this.owner.liveness;
    await (this.client as TouchCommands).mcpRenew(
      this.zset,
      this.prefix,
      this.owner.processId,
      String(live),
      String(this.idleMs),
      ...this.marked,
    );
  }

  private async run(sessionId: string, record: string): Promise<string[]> {
    try {
      return await (this.client as TouchCommands).mcpCreate(
        this.zset,
        this.prefix,
        sessionId,
        String(this.idleMs),
        String(this.max),
        record,
      );
    } catch (e) {
      if (/MCPFULL/.test((e as Error).message)) throw new SessionLimitError(this.max, this.owner.liveness);
      throw e;
    }
  }

  async touch(sessionId: string): Promise<SessionRecord | undefined> {
    const v = await (this.client as TouchCommands).mcpTouch(
      `${this.prefix}s:${sessionId}`,
      this.zset,
      sessionId,
      String(this.idleMs),
    );
    if (v === null) return undefined;
    try {
      return JSON.parse(v) as SessionRecord;
    } catch {
      return undefined;
    }
  }

  async delete(sessionId: string): Promise<boolean> {
    this.marked.delete(sessionId);
    const [[, n]] = (await this.client
      .multi()
      .del(`${this.prefix}s:${sessionId}`)
      .zrem(this.zset, sessionId)
      .del(`${this.prefix}b:${sessionId}`)
      .exec()) as [[null, number], [null, number]];
    return n === 1;
  }

  async size(): Promise<number> {
    return (this.client as TouchCommands).mcpSize(this.zset, this.prefix, String(this.idleMs));
  }

  async close(): Promise<void> {
    await this.owner.close();
  }
}

class RedisEventStore implements SharedEventStore {
  private readonly maxEvents: number;
  private readonly ttlMs: number;
  /**
   * Each message's token (field `k` of its entry), so that a message offered again after a
   * command Redis did not answer in time (it may have stored it) is stored once.
   */
  private readonly tokens = new WeakMap<JSONRPCMessage, string>();
  private stored = 0;

  constructor(
    private readonly owner: RedisStoresImpl,
    private readonly client: Redis,
    private readonly prefix: string,
    options: RedisStoresOptions,
  ) {
    this.maxEvents = Math.max(1, options.maxEventsPerStream ?? 1000);
    this.ttlMs = Math.max(1000, options.eventTtlMs ?? 300_000);
  }

  private key(sessionId: string, streamId: string): string {
    return `${this.prefix}e:${sessionId}:${streamId}`;
  }

  private meta(sessionId: string, streamId: string): string {
    return `${this.prefix}m:${sessionId}:${streamId}`;
  }

  private channel(sessionId: string, streamId: string): string {
    return `${this.prefix}ev:${sessionId}:${streamId}`;
  }

  /**
   * Appends `message` (null: a priming event) to the stream's log and returns its event ID. A
   * message offered again (the same object, after a rejection: Redis may have stored it
   * without answering in time) is not stored twice: the ID of its entry is returned.
   */
  async storeEvent(sessionId: string, streamId: string, message: JSONRPCMessage | null): Promise<string> {
    const key = this.key(sessionId, streamId);
    const meta = this.meta(sessionId, streamId);
    const streams = `${this.prefix}ss:${sessionId}`;
    const again = message === null ? undefined : this.tokens.get(message);
    if (again !== undefined) {
      const xid = await (this.client as TouchCommands).mcpStoreAgain(
        key,
        meta,
        streams,
        String(this.maxEvents),
        String(this.ttlMs),
        this.owner.processId,
        serializeMessage(message!),
        again,
        streamId,
        this.channel(sessionId, streamId),
      );
      return `${streamId}_${xid}`;
    }
    const token = message === null ? undefined : `${this.owner.processId}.${(++this.stored).toString(36)}`;
    if (message !== null) this.tokens.set(message, token!);
    const r = await this.client
      .multi()
      .xadd(
        key,
        'MAXLEN',
        String(this.maxEvents),
        '*',
        'm',
        message === null ? '' : serializeMessage(message),
        ...(token === undefined ? [] : ['k', token]),
      )
      .pexpire(key, this.ttlMs)
      .hset(meta, 'owner', this.owner.processId)
      .pexpire(meta, this.ttlMs)
      .sadd(streams, streamId)
      .pexpire(streams, this.ttlMs)
      .publish(this.channel(sessionId, streamId), '1')
      .exec();
    const xid = r?.[0]?.[1];
    if (r === null || r[0][0] || typeof xid !== 'string') throw r?.[0]?.[0] ?? new Error('redis: event not stored');
    return `${streamId}_${xid}`;
  }

  async streamOpened(sessionId: string, streamId: string, requestIds: RequestId[]): Promise<void> {
    const meta = this.meta(sessionId, streamId);
    const ids = requestIds.map((id) => (typeof id === 'bigint' ? { b: String(id) } : id));
    await this.client
      .multi()
      .hset(meta, 'owner', this.owner.processId, 'requests', JSON.stringify(ids))
      .pexpire(meta, this.ttlMs)
      .exec();
  }

  async replayEventsAfter(
    sessionId: string,
    lastEventId: string,
    send: (eventId: string, message: JSONRPCMessage) => void | Promise<void>,
  ): Promise<string | undefined> {
    const parsed = parseEventId(lastEventId);
    if (!parsed) return undefined;
    const key = this.key(sessionId, parsed.streamId);
    if ((await this.client.xrange(key, parsed.xid, parsed.xid)).length === 0) return undefined;
    for (const [xid, fields] of await this.client.xrange(key, `(${parsed.xid}`, '+')) {
      const m = fieldOf(fields, 'm');
      if (m) await send(`${parsed.streamId}_${xid}`, JSON.parse(m) as JSONRPCMessage);
    }
    return parsed.streamId;
  }

  async streamFinished(sessionId: string, streamId: string): Promise<void> {
    const key = this.key(sessionId, streamId);
    await this.client
      .multi()
      .xadd(key, 'MAXLEN', String(this.maxEvents), '*', 'end', '1')
      .pexpire(key, this.ttlMs)
      .publish(this.channel(sessionId, streamId), '1')
      .exec();
  }

  /** Releases everything stored for `sessionId` (the session ended for every process). */
  async dropSession(sessionId: string): Promise<void> {
    const streams = `${this.prefix}ss:${sessionId}`;
    const ids = await this.client.smembers(streams);
    if (ids.length) await this.client.del(...ids.flatMap((s) => [this.key(sessionId, s), this.meta(sessionId, s)]));
    await this.client.del(streams);
  }

  async follow(
    sessionId: string,
    lastEventId: string,
    write: (eventId: string, message: JSONRPCMessage) => void,
    signal: AbortSignal,
  ): Promise<{ streamId: string; ended: Promise<FollowEnd> } | undefined> {
    const parsed = parseEventId(lastEventId);
    if (!parsed) return undefined;
    const { streamId } = parsed;
    const key = this.key(sessionId, streamId);
    if ((await this.client.xrange(key, parsed.xid, parsed.xid)).length === 0) return undefined;
    let cursor = parsed.xid;
    let settle!: (end: FollowEnd) => void;
    const ended = new Promise<FollowEnd>((r) => (settle = r));
    let done = false;
    let running: Promise<void> = Promise.resolve();
    let dirty = false;
    const finish = (end: FollowEnd): void => {
      if (done) return;
      done = true;
      unlisten();
      clearInterval(timer);
      signal.removeEventListener('abort', onAbort);
      settle(end);
    };
    /** Writes what was stored after the cursor; true when the end marker was read. */
    const drain = async (): Promise<boolean> => {
      for (;;) {
        const entries = await this.client.xrange(key, `(${cursor}`, '+', 'COUNT', 500);
        for (const [xid, fields] of entries) {
          cursor = xid;
          if (fieldOf(fields, 'end') !== undefined) return true;
          const m = fieldOf(fields, 'm');
          if (m && !done) write(`${streamId}_${xid}`, JSON.parse(m) as JSONRPCMessage);
        }
        if (entries.length < 500) return false;
      }
    };
    const pull = (checkOwner: boolean): void => {
      if (running !== undefined && dirty) return;
      dirty = true;
      running = running.then(async () => {
        dirty = false;
        if (done) return;
        try {
          if (await drain()) return finish({ reason: 'finished' });
          if (!checkOwner) return;
          const owner = await this.client.hget(this.meta(sessionId, streamId), 'owner');
          if (owner !== null && !(await this.owner.gone(owner))) return;
          // the owner is gone: what it stored before it went, then the requests left unanswered
          if (await drain()) return finish({ reason: 'finished' });
          finish({ reason: 'owner-lost', pending: await this.unanswered(sessionId, streamId) });
        } catch {
          finish({ reason: 'aborted' });
        }
      });
    };
    const onAbort = (): void => finish({ reason: 'aborted' });
    signal.addEventListener('abort', onAbort);
    const unlisten = this.owner.listen(this.channel(sessionId, streamId), () => pull(false));
    const timer = setInterval(() => pull(true), Math.max(100, Math.floor(this.owner.liveness / 2)));
    timer.unref?.();
    if (signal.aborted) onAbort();
    // the owner checked at once too: a client whose connections break sooner than the timer's
    // first check would otherwise resume a stream of a lost process again and again
    pull(true);
    return { streamId, ended };
  }

  /** The requests of a stream whose response is not in its log. */
  private async unanswered(sessionId: string, streamId: string): Promise<RequestId[]> {
    const raw = await this.client.hget(this.meta(sessionId, streamId), 'requests');
    if (!raw) return [];
    const ids = (JSON.parse(raw) as Array<string | number | { b: string }>).map((id) =>
      typeof id === 'object' ? BigInt(id.b) : id,
    );
    const answered = new Set<string>();
    for (const [, fields] of await this.client.xrange(this.key(sessionId, streamId), '-', '+')) {
      const m = fieldOf(fields, 'm');
      if (!m) continue;
      const msg = JSON.parse(m) as JSONRPCMessage;
      if (!('method' in msg) && msg.id !== undefined && msg.id !== null) answered.add(idKey(msg.id as RequestId));
    }
    return ids.filter((id) => !answered.has(idKey(id)));
  }
}

function fieldOf(fields: string[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

class RedisBus implements NotificationBus {
  readonly processId: string;

  constructor(
    private readonly owner: RedisStoresImpl,
    private readonly client: Redis,
    private readonly prefix: string,
  ) {
    this.processId = owner.processId;
  }

  async publish(message: Omit<BusMessage, 'from'>): Promise<void> {
    await this.client.publish(`${this.prefix}bus`, JSON.stringify({ ...message, from: this.processId }));
  }

  subscribe(listener: (message: BusMessage) => void): () => void {
    return this.owner.listen(`${this.prefix}bus`, (text) => {
      let m: BusMessage;
      try {
        m = JSON.parse(text) as BusMessage;
      } catch {
        return;
      }
      if (typeof m?.topic === 'string' && typeof m.sessionId === 'string' && typeof m.from === 'string') listener(m);
    });
  }
}
