-- forwarder-lease.lua: elects the fleet's history forwarder among the nodes.
--
-- KEYS[1] <prefix>:forwarder (a string key, outside any breaker's hash tag)
-- ARGV[1] the node asking   ARGV[4] the lease length in ms
--
-- Returns {held 0|1, holder}. A node holds the lease while it renews it within the lease length;
-- when the holder dies the key expires and the next node to ask takes over. One key, one slot.

local holder = redis.call('GET', H)
if not holder or holder == NODE then
  redis.call('SET', H, NODE, 'PX', tonumber(ARGV[4]))
  return { 1, NODE }
end
return { 0, holder }
