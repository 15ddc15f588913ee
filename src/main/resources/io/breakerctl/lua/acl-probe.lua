-- acl-probe.lua: breakerctl doctor's check that this user may run every command the scripts run,
-- executing none of them. redis.acl_check_cmd exists from Redis 7.0; on 6.2 the answer is
-- 'unsupported' (the scripts' commands cannot be checked there without writing).
--
-- KEYS[1] a probe key under the prefix (never written)   ARGV[1] the events channel
--
-- Returns the commands refused, comma-separated ('' when every one is permitted), or 'unsupported'.

if not redis.acl_check_cmd then return 'unsupported' end
local k = KEYS[1]
local probes = {{'hset', k, 'f', 'v'}, {'hdel', k, 'f'}, {'hincrby', k, 'f', '1'},
  {'xadd', k, '*', 'f', 'v'}, {'xtrim', k, 'MAXLEN', '1'}, {'zadd', k, '1', 'm'},
  {'zrem', k, 'm'}, {'pexpire', k, '1'}, {'persist', k}, {'del', k},
  {'publish', ARGV[1], 'x'}}
local missing = {}
for _, p in ipairs(probes) do
  if not redis.acl_check_cmd(unpack(p)) then missing[#missing + 1] = p[1] end
end
return table.concat(missing, ',')
