/**
 * The Lua scripts of the Redis event store (./events.ts): storing an event offered again, and
 * claiming and releasing a request (request replay), each one atomic step on the Redis server.
 */

// KEYS[1] stream e:<session>:<stream>, KEYS[2] its record m:<session>:<stream>, KEYS[3] the
// session's streams ss:<session>; ARGV maxEvents, ttlMs, owner process, message JSON, token,
// stream id, channel. An event offered again (its first offer got no answer, so Redis may have
// stored it): the ID of the entry with its token among the stream's newest 256, else stored now.
export const STORE_AGAIN = `
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

// KEYS[1] the claim rq:<session>:<request key>, KEYS[2] the session's claims rqs:<session> (a
// sorted set of request keys by when each claim expires, so that the session's end finds them
// and they are counted); ARGV claim text, ttlMs, now (ms), most claims, request key. The earlier
// claim (unless it is this very text: its maker's retry after a lost reply, claimed by this
// call); else, when the session holds as many live claims as allowed, 0 (nothing claimed); else
// this one set (expiring after the TTL unless renewed) and false.
export const CLAIM = `
local prior = redis.call('GET', KEYS[1])
if prior == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('ZADD', KEYS[2], tonumber(ARGV[3]) + tonumber(ARGV[2]), ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return false
end
if prior then return prior end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], tonumber(ARGV[3]) + tonumber(ARGV[2]), ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return false`;

// KEYS[1] the claim, KEYS[2] rqs:<session>, KEYS[3] the claim's stream e:<session>:<stream>;
// ARGV claim text, request key, answer JSON, maxEvents, ttlMs, channel. When the claim has that
// text: deleted, the answer and the end stored on the stream (if it is still kept), 1; else 0.
export const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('XADD', KEYS[3], 'MAXLEN', ARGV[4], '*', 'm', ARGV[3])
  redis.call('XADD', KEYS[3], 'MAXLEN', ARGV[4], '*', 'end', '1')
  redis.call('PEXPIRE', KEYS[3], ARGV[5])
  redis.call('PUBLISH', ARGV[6], '1')
end
return 1`;
