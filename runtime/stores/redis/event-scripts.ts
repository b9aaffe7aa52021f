/**
 * The Lua scripts of the Redis event store (./events.ts): storing an event offered again, and
 * claiming and releasing a request (request replay), each one atomic step on the Redis server.
 */

// KEYS[1] stream e:<session>:<stream>, KEYS[2] its record m:<session>:<stream>, KEYS[3] the
// session's streams ss:<session>; ARGV maxEvents, ttlMs, owner process, message JSON, token,
// stream id, channel. An event offered again (its first offer got no answer, so Redis may have
// stored it): the ID of the entry with its token among the stream's newest 256, else stored now.
// 256 is more than enough: only the events of a POST stream are offered again (the session's kept
// events, ../../transport/http/session/session-streams.ts), and from its failed offer until it is
// offered again nothing else is stored on that stream (the events after it are kept behind it,
// in order), so its entry, if there is one, is the stream's newest.
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

// KEYS[1] stream e:<session>:<stream>; ARGV token, maxEvents. An event whose store got no answer
// (Redis may have stored it) that went out without an ID: the entry with its token deleted, so
// that no replay gives it again; 1 when there was one, else 0. The stream is looked through from
// its newest entry back, 256 at a time, at most maxEvents entries: all of it (every XADD trims
// it to exactly maxEvents), so the entry is found however many events were stored after it (by
// other processes on the shared standalone stream, or by this one before a retried discard); the
// cost, at most maxEvents entries read, is paid only after a store failed.
export const DISCARD = `
local from, seen, most = '+', 0, tonumber(ARGV[2])
while seen < most do
  local batch = redis.call('XREVRANGE', KEYS[1], from, '-', 'COUNT', 257)
  local first = 1
  if from ~= '+' then first = 2 end
  for j = first, #batch do
    local f = batch[j][2]
    for i = 1, #f - 1, 2 do
      if f[i] == 'k' and f[i + 1] == ARGV[1] then return redis.call('XDEL', KEYS[1], batch[j][1]) end
    end
  end
  if #batch < 257 then return 0 end
  seen = seen + #batch - first + 1
  from = batch[#batch][1]
end
return 0`;

// A claim's value is `<claim text>\n<owner process id>`; its lease is its score in the session's
// claims rqs:<session> (a sorted set of request keys by when the lease ends, ms, so that the
// session's end finds them and the live ones are counted). A finished request's claim is there
// with a negative score, minus when it expires (its answer is on its stream: never taken over,
// and it holds no slot of the live ones). The key itself is held `hold` ms
// (as long as a session may stay idle) while its request runs, with its stream's events and
// record, so that a Redis stall longer than the lease cannot drop the claim of a request still
// running (rqs:<session> itself expires with the TTL: a lease it no longer holds counts as lapsed): only a lapsed lease whose
// owner process is gone lets another claim take it over (./events.ts claimRequest).

// KEYS[1] the claim rq:<session>:<request key>, KEYS[2] rqs:<session>, KEYS[3] and KEYS[4] the
// claim's stream e:<session>:<stream> and its record m:<session>:<stream> (held with the claim);
// ARGV value, lease ttlMs, now (ms), most claims, request key, hold ms. This very value (its
// maker's retry after a lost reply): claimed again by this call, false. Another: {value, 1 when its
// lease lapsed (or it holds none) else 0; 0 when its request finished}. None, and the session
// holds as many live leases as allowed: how long until the soonest of them ends, ms, at least 1
// (nothing claimed). Else this one set, false. Before the count, the lapsed leases (0 < score <=
// now) and the finished claims expired (-now <= score < 0) go.
export const CLAIM = `
local now, ttl = tonumber(ARGV[3]), tonumber(ARGV[2])
local prior = redis.call('GET', KEYS[1])
if prior == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
  redis.call('ZADD', KEYS[2], now + ttl, ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('PEXPIRE', KEYS[3], ARGV[6])
  redis.call('PEXPIRE', KEYS[4], ARGV[6])
  return false
end
if prior then
  local lease = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[5]))
  if lease and (lease < 0 or lease > now) then return {prior, 0} end
  return {prior, 1}
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], -now, now)
if redis.call('ZCOUNT', KEYS[2], '(0', '+inf') >= tonumber(ARGV[4]) then
  local first = redis.call('ZRANGEBYSCORE', KEYS[2], '(0', '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if first[2] == nil then return 1 end
  return math.max(1, tonumber(first[2]) - now)
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[6])
redis.call('ZADD', KEYS[2], now + ttl, ARGV[5])
redis.call('PEXPIRE', KEYS[2], ttl)
redis.call('PEXPIRE', KEYS[3], ARGV[6])
redis.call('PEXPIRE', KEYS[4], ARGV[6])
return false`;

// KEYS[1] the claim, KEYS[2] rqs:<session>, KEYS[3] and KEYS[4] the new claim's stream and its
// record; ARGV the lapsed value taken over, the new value,
// lease ttlMs, now (ms), request key, hold ms. When the claim still holds that value (or none):
// the new one set, false; else the value it holds now.
export const TAKE_OVER = `
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return cur end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[6])
redis.call('ZADD', KEYS[2], tonumber(ARGV[4]) + tonumber(ARGV[3]), ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[6])
redis.call('PEXPIRE', KEYS[4], ARGV[6])
return false`;

// No keys (they are made from ARGV, as the session scripts do); ARGV prefix, lease ttlMs, now
// (ms), hold ms, then for each claim of a stream live on this process: session, stream, request
// key, value. Renews each lease and holds the claim, its stream's events and record; a claim
// that lapsed (a Redis stall longer than its lease, a restart) is set again with its value,
// unless another value took its place. Returns the (1-based) numbers of the claims another
// value holds.
export const RENEW = `
local p, ttl, now, hold = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local lost = {}
for i = 5, #ARGV - 3, 4 do
  local s, stream, rk, value = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local k, claims = p .. 'rq:' .. s .. ':' .. rk, p .. 'rqs:' .. s
  local cur = redis.call('GET', k)
  if cur and cur ~= value then
    lost[#lost + 1] = (i - 1) / 4
  else
    redis.call('SET', k, value, 'PX', hold)
    redis.call('ZADD', claims, now + ttl, rk)
    redis.call('PEXPIRE', claims, ttl)
    redis.call('PEXPIRE', p .. 'e:' .. s .. ':' .. stream, hold)
    redis.call('PEXPIRE', p .. 'm:' .. s .. ':' .. stream, hold)
    redis.call('PEXPIRE', p .. 'ss:' .. s, ttl)
  end
end
return lost`;

// KEYS[1] the stream e:<session>:<stream>, KEYS[2] the claim, KEYS[3] rqs:<session>, KEYS[4] the
// stream's record m:<session>:<stream>; ARGV maxEvents, ttlMs, channel, the claim's value, now
// (ms), request key. The stream's end stored, the stream and its record expiring the TTL from
// now; the claim, when it still holds that value, too, marked finished in rqs:<session> (minus
// when it expires: no live slot), which is kept at least as long.
export const FINISH = `
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], '*', 'end', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[4], ARGV[2])
redis.call('PUBLISH', ARGV[3], '1')
if redis.call('GET', KEYS[2]) == ARGV[4] then
  local ttl = tonumber(ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('ZADD', KEYS[3], 'XX', -(tonumber(ARGV[5]) + ttl), ARGV[6])
  if redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
end
return 1`;

// KEYS[1] the claim, KEYS[2] rqs:<session>, KEYS[3] the claim's stream e:<session>:<stream>;
// ARGV claim value, request key, answer JSON, maxEvents, ttlMs, channel. When the claim has that
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
