/**
 * The Redis {@link SessionStore} of ./redis.ts: its Lua scripts (each one atomic on the Redis
 * server) and the store that runs them.
 */
import type { Redis } from 'ioredis';
import { SessionLimitError, type SessionRecord, type SessionStore } from '../sessions.js';
import type { RedisProcess, RedisStoresOptions } from './options.js';

// Shared by the session scripts. The last-use score of a session is the Redis server's clock in
// ms (µs in the fraction), or one µs past the most recent score when that is not earlier (ties
// within a µs, the clock stepped back): so the order of the sorted set is the order Redis ran the
// uses in, whichever process sent them and whatever its clock says (a tie would sort by session
// id and evict a random one). A session is busy while a live process marks it (`b:<id>`: process
// → mark expiry, ms by the same Redis clock, so process clocks do not matter here either): a busy
// session neither expires nor is evicted, and its record's TTL is at least `livenessMs` (renewed
// with the marks), so it outlives the beats between renewals. busy() and idleCut() take `now` as
// the script's clock().
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

type SessionCommands = Redis & {
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
};

/**
 * The session records of a deployment on Redis (keys `s:<session>`, `sessions`, `b:<session>`,
 * see ./redis.ts): idle expiry and the least-recently-used cap by the Redis server's clock, a
 * session busy while a live process marks it.
 */
export class RedisSessionStore implements SessionStore {
  private readonly idleMs: number;
  private readonly max: number;
  private readonly zset: string;
  /** Sessions this process marked busy (renewed on the heartbeat). */
  private readonly marked = new Set<string>();
  private readonly onError: RedisStoresOptions['onError'];

  constructor(
    private readonly owner: RedisProcess,
    private readonly client: Redis,
    private readonly prefix: string,
    options: RedisStoresOptions,
  ) {
    client.defineCommand('mcpTouch', { numberOfKeys: 2, lua: TOUCH });
    client.defineCommand('mcpCreate', { numberOfKeys: 1, lua: CREATE });
    client.defineCommand('mcpSize', { numberOfKeys: 1, lua: SIZE });
    client.defineCommand('mcpRenew', { numberOfKeys: 1, lua: RENEW });
    client.defineCommand('mcpMark', { numberOfKeys: 2, lua: MARK });
    client.defineCommand('mcpRelease', { numberOfKeys: 1, lua: RELEASE });
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
      sent = (this.client as SessionCommands).mcpMark(
        key,
        `${this.prefix}s:${sessionId}`,
        this.owner.processId,
        String(live),
        String(this.idleMs),
      );
      this.marked.add(sessionId);
    } else {
      sent = (this.client as SessionCommands).mcpRelease(
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
    await (this.client as SessionCommands).mcpRenew(
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
      return await (this.client as SessionCommands).mcpCreate(
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
    const v = await (this.client as SessionCommands).mcpTouch(
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
    return (this.client as SessionCommands).mcpSize(this.zset, this.prefix, String(this.idleMs));
  }

  async close(): Promise<void> {
    await this.owner.close();
  }
}
