-- acquire.lua: asks whether a call may run.
--
-- Returns {allowed 0|1, effectiveState, reason, generation, leaseId, untilMillis, epoch}; on the
-- closed fast path only {1, generation, epoch} (a shorter reply is a cheaper one to build and to
-- decode).
-- reason: CLOSED | FORCED_CLOSED | DISABLED | METRICS_ONLY | POLICY_DISABLED | PROBE (allowed
-- with a lease) | OPEN | FORCED_OPEN | PROBES_BUSY (rejected). untilMillis: the lease's expiry
-- for PROBE, when a rejection may end otherwise (0 unknown).
--
-- Closed fast path: one HMGET and no TIME, no write (the common case costs the least CPU). It
-- runs before the prelude's definitions (inserted at the marker line below), which cost ~2 us.
-- The lean form: a caller that last saw the breaker CLOSED sends only KEYS[1] and no ARGV (every
-- key and argument costs the client an encoding and Redis a Lua string, ~0.3-0.5 us of latency
-- each on a busy machine); when the breaker is not closed that call answers {-1} and changes
-- nothing, and the caller sends the full form (every key, ARGV as in the prelude header) at once.
-- Otherwise the breaker is settled (time-based transitions recorded) and, in HALF_OPEN, at most
-- halfOpenPermits leases exist fleet-wide per generation: live leases plus probes already
-- succeeded. Expired leases are removed first, so a dead or frozen prober's slot returns after
-- probeLeaseMillis; a live prober keeps its lease alive while its call runs (renew.lua), up to
-- maxProbeMillis. A grant records its start in the hash ('lease.<member>', prelude). Lease ids come from the leaseSeq counter (math.random is not random on 6.2),
-- or from the caller: ARGV[4], when given, is the id the lease gets if one is granted (it must not
-- contain '|', the member separator). A node names its lease so that it can give it back unseen:
-- an acquire whose answer timed out may still have run here and granted a lease nobody holds, and
-- the whole fleet would then wait probeLeaseMillis (10 s by default) for a probe; the node sends a
-- release (record.lua with the lease and no outcome) after it on the same connection, so the
-- release always runs after the acquire (measured: 2 of 6 runs of a 20-node fleet on a loaded
-- 2-core machine sat HALF_OPEN for the lease's 10 s after acquires timed out at a window end).

local fast = redis.call('HMGET', KEYS[1], 'state', 'override', 'generation', 'epoch')
if not fast[2] and (not fast[1] or fast[1] == 'CLOSED') then
  return { 1, fast[3] or '0', fast[4] or '' }
end
if #ARGV == 0 then
  return { -1 }
end
if ARGV[4] and string.find(ARGV[4], '|', 1, true) then
  return redis.error_reply('ERR breakerctl acquire: a lease id must not contain |')
end

--@prelude

clock()
load()
local p = policy()
local state = settle()
local allowed, reason, lease, until_ms = 0, state, '', 0

if state == 'FORCED_OPEN' then
  until_ms = num('overrideUntil', 0)
elseif state == 'FORCED_CLOSED' or state == 'DISABLED' or state == 'METRICS_ONLY'
    or state == 'CLOSED' then
  allowed = 1
elseif not p.enabled then
  allowed, reason = 1, 'POLICY_DISABLED'
elseif state == 'OPEN' then
  until_ms = num('openUntil', 0)
elseif state == 'HALF_OPEN' then
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', LEASES, '-inf', NOW)) do drop_lease(m) end
  if redis.call('ZCARD', LEASES) + num('halfOpenSuccesses', 0) < p.permits then
    local id = ARGV[4] or ''
    if id == '' then
      id = num('leaseSeq', 0) + 1
      set('leaseSeq', tostring(id))
    end
    until_ms = NOW + p.lease
    redis.call('ZADD', LEASES, until_ms, id .. '|' .. NODE)
    set(lease_field(id .. '|' .. NODE), NOW .. ':0')
    allowed, reason, lease = 1, 'PROBE', tostring(id)
  else
    reason = 'PROBES_BUSY'
    local first = redis.call('ZRANGE', LEASES, 0, 0, 'WITHSCORES')
    if first[2] then until_ms = tonumber(first[2]) end
  end
end

flush()
return { allowed, state, reason, B.generation, lease, until_ms, B.epoch }
