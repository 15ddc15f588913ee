-- warm.lua: writes the resolved policy into the breaker's hash (fields p.*, policy, policyId,
-- policyVersion) and publishes it so running nodes adopt it without restart.
--
-- ARGV[3] the policy (prelude header)   ARGV[4] policy id   ARGV[5] version (integer >= 1)
-- ARGV[6] storeFailureMode   ARGV[7] fallbackPolicy   ARGV[8] staticDefault (a name; empty or
-- absent: none named, the field is removed)
--
-- Returns {written 0|1, outcome, policyId, policyVersion, epoch}; outcome WARMED | UNCHANGED |
-- STALE. For the same policy id an older or equal version never overwrites a newer one (appliers
-- racing to warm cannot go backwards). A different policy id is written: the control plane
-- resolved the breaker to it (a more specific policy appeared, or the one in force was removed).

clock()
load()
local id, version = ARGV[4], tonumber(ARGV[5])
if not version or version < 1 then
  return redis.error_reply('ERR breakerctl warm: version must be an integer >= 1')
end
if B.policyId == id and B.policyVersion then
  local current = tonumber(B.policyVersion)
  if current > version then
    return { 0, 'STALE', B.policyId, B.policyVersion, B.epoch }
  elseif current == version then
    return { 0, 'UNCHANGED', B.policyId, B.policyVersion, B.epoch }
  end
end
ensure_created()
local names = { 'p.failureThreshold', 'p.windowMillis', 'p.failureRate', 'p.minimumCalls',
  'p.slowCallMillis', 'p.openMillis', 'p.maxOpenMillis', 'p.halfOpenPermits',
  'p.probeLeaseMillis', 'p.enabled' }
local values = { policy_arg() }
for i, f in ipairs(names) do
  local v = values[i]
  if v == '' then set(f, false) else set(f, v) end
end
-- the same values in the policy argument's format, for record.lua's fast path (one field to read)
set('policy', ARGV[3] or '')
set('p.storeFailureMode', ARGV[6] or 'LOCAL_ONLY')
set('p.fallbackPolicy', ARGV[7] or 'NONE')
if (ARGV[8] or '') == '' then set('p.staticDefault', false) else set('p.staticDefault', ARGV[8]) end
set('policyId', id)
set('policyVersion', tostring(version))
flush()
redis.call('PUBLISH', string.match(H, '^(.*):{') .. ':events', cjson.encode({ type = 'policy',
  id = breaker_id(), epoch = B.epoch, policyId = id, policyVersion = tostring(version),
  node = NODE, at = NOW }))
return { 1, 'WARMED', id, tostring(version), B.epoch }
