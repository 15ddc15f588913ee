-- alive.lua: a node's liveness for the fleet view, one write per node per heartbeatInterval.
--
-- KEYS[1] <prefix>:alive (a sorted set outside any breaker's hash tag: one key, one slot): member
--         the node id, score the Redis time (ms) until which the node counts as alive
-- ARGV[1] the node   ARGV[4] how long this beat keeps it alive, in ms (the node sends three
--         heartbeat intervals); 0 marks it gone now (it closed: kept, not removed, so readers
--         know it left rather than take it for a node that never wrote its liveness)
-- KEYS[2] (optional) <prefix>:calls:{<prefix>:alive}:<node>: the node's call counts per breaker over the
--         window since its previous beat (NodeCallCounts JSON), for the fleet's calls/s,
--         rejected/s and fallback/s. Its hash tag is KEYS[1]'s whole name, so both keys share
--         one slot on Redis Cluster. Kept as long as the liveness (PX), deleted when the node leaves.
-- ARGV[5] (with KEYS[2]) that JSON
-- KEYS[3] (optional) <prefix>:sessions:{<prefix>:alive}: node id -> its current session (random
--         per registry instance), in the same slot. ARGV[6] the session ('' none). Reports carry
--         their session, and readers count a node's reports only of the session named here: a
--         process that reuses a node id (a restarted pod keeps its name) never opened some of the
--         breakers its predecessor reported on, and those reports kept the breakers "disputed"
--         for up to 30 minutes (the reports' prune, record.lua's NODE_GONE).
--
-- Returns the Redis time (ms). Members whose time ran out a day ago are dropped here, so the set
-- holds the nodes of about the last day and needs no expiry of its own.
--
-- Why one key per fleet and not a heartbeat per breaker: an unchanged per-breaker heartbeat every
-- interval made an idle (node, breaker) pair cost Redis about 1 us a second (a record script per
-- pair and minute), so an idle fleet's cost grew with nodes x breakers. Now a node sends this once
-- per heartbeatInterval, and its per-breaker report (record.lua's heartbeat) only when it changes
-- and at least every 10 heartbeat intervals (at most 10 minutes); readers count a node's reports
-- only while it is alive here (FleetReader, NodeLiveness), so a dead node leaves the fleet view
-- within three heartbeat intervals.

clock()
local valid = tonumber(ARGV[4])
if not valid or valid < 0 then
  return redis.error_reply('ERR breakerctl alive: ARGV[4] must be a count of ms >= 0')
end
redis.call('ZADD', H, NOW + valid, NODE)
if KEYS[2] then
  if valid == 0 or not ARGV[5] or ARGV[5] == '' then
    redis.call('DEL', KEYS[2])
  else
    redis.call('SET', KEYS[2], ARGV[5], 'PX', valid)
  end
end
local session = ARGV[6] or ''
if KEYS[3] and session ~= '' and valid > 0 then
  redis.call('HSET', KEYS[3], NODE, session)
end
if KEYS[3] then
  local gone = redis.call('ZRANGEBYSCORE', H, '-inf', NOW - 86400000)
  if #gone > 0 then redis.call('HDEL', KEYS[3], unpack(gone)) end
end
redis.call('ZREMRANGEBYSCORE', H, '-inf', NOW - 86400000)
return { NOW }
