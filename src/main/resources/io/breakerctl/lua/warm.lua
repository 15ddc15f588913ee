-- warm.lua: writes the resolved policy into the breaker's hash (fields p.*, policy, policyId,
-- policyVersion) and publishes it so running nodes adopt it without restart; or, in the un-warm
-- mode, takes a removed policy out of the hash again.
--
-- ARGV[3] the policy (prelude header)   ARGV[4] policy id   ARGV[5] version (integer >= 1)
-- ARGV[6] storeFailureMode, or UNWARM for the un-warm mode   ARGV[7] fallbackPolicy
-- ARGV[8] staticDefault (a name; empty or absent: none named, the field is removed)
-- ARGV[9] criticality (NONE, LOW, MEDIUM, HIGH, CRITICAL: a meter tag only)
-- ARGV[10] rateLimited (IGNORE, BACKOFF, COUNT: what a node does with a 429; record.lua only
--          sees its result, a counted failure or a back-off hint)
--
-- Returns {written 0|1, outcome, policyId, policyVersion, epoch}; outcome WARMED | UNWARMED |
-- UNCHANGED | STALE. For the same policy id an older or equal version never overwrites a newer
-- one (appliers racing to warm cannot go backwards). A different policy id is written: the control
-- plane resolved the breaker to it (a more specific policy appeared, or the one in force was
-- removed).
--
-- Un-warm (ARGV[6] = UNWARM; ARGV[5] = the version that removed policy ARGV[4]: its deletion by
-- `policy apply --prune`, or the expired temporary version nothing replaces). Why: when nothing
-- governs the breaker any more, the removed policy must leave the hash, or the keys would enforce
-- it for ever (a node re-resolves only while no policy is warmed). It deletes every p.* field,
-- policy, policyId and policyVersion, so record.lua and acquire.lua fall back to the caller's
-- policy (the node's defaults, stored as nodePolicy), and publishes a policy message so running
-- nodes re-read the hash and go back to their defaults without restart. Monotonic both ways: a
-- hash holding another policy, or a newer version of this one (applied after the removal was
-- read), is left alone (UNCHANGED, STALE); the removal is remembered in `unwarmed`
-- (<policyId>@<version>) so that a warm of that policy at or below that version, read before
-- the removal and arriving after it, is refused as STALE instead of bringing it back.

clock()
load()
local id, version = ARGV[4], tonumber(ARGV[5])
if not version or version < 1 then
  return redis.error_reply('ERR breakerctl warm: version must be an integer >= 1')
end
local held_id, held_version = B.policyId or '', B.policyVersion or '0'
local gone_id, gone_version = string.match(B.unwarmed or '', '^(.*)@(%d+)$')
if ARGV[6] == 'UNWARM' then
  if not B.epoch or not B.policyVersion or held_id ~= id then
    return { 0, 'UNCHANGED', held_id, held_version, B.epoch or '' }
  end
  if tonumber(held_version) > version then
    return { 0, 'STALE', held_id, held_version, B.epoch }
  end
  -- every p.* field the hash holds (whatever fields the policy table grows), and the rest
  local gone = {}
  for f in pairs(B) do
    if string.sub(f, 1, 2) == 'p.' then gone[#gone + 1] = f end
  end
  for _, f in ipairs(gone) do set(f, false) end
  set('policy', false)
  set('policyId', false)
  set('policyVersion', false)
  set('unwarmed', id .. '@' .. tostring(version))
  flush()
  redis.call('PUBLISH', string.match(H, '^(.*):{') .. ':events', cjson.encode({ type = 'policy',
    id = breaker_id(), epoch = B.epoch, policyId = '', policyVersion = '0', unwarmed = id,
    node = NODE, at = NOW }))
  return { 1, 'UNWARMED', '', '0', B.epoch }
end
if gone_id == id and tonumber(gone_version) >= version then
  return { 0, 'STALE', held_id, held_version, B.epoch or '' }
end
if B.policyId == id and B.policyVersion then
  local current = tonumber(B.policyVersion)
  if current > version then
    return { 0, 'STALE', B.policyId, B.policyVersion, B.epoch }
  elseif current == version then
    return { 0, 'UNCHANGED', B.policyId, B.policyVersion, B.epoch }
  end
end
if gone_id == id then set('unwarmed', false) end
ensure_created()
local names = { 'p.failureThreshold', 'p.windowMillis', 'p.failureRate', 'p.minimumCalls',
  'p.slowCallMillis', 'p.openMillis', 'p.maxOpenMillis', 'p.halfOpenPermits',
  'p.probeLeaseMillis', 'p.enabled', 'p.maxProbeMillis' }
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
set('p.criticality', ARGV[9] or 'NONE')
set('p.rateLimited', ARGV[10] or 'IGNORE')
set('policyId', id)
set('policyVersion', tostring(version))
flush()
redis.call('PUBLISH', string.match(H, '^(.*):{') .. ':events', cjson.encode({ type = 'policy',
  id = breaker_id(), epoch = B.epoch, policyId = id, policyVersion = tostring(version),
  node = NODE, at = NOW }))
return { 1, 'WARMED', id, tostring(version), B.epoch }
