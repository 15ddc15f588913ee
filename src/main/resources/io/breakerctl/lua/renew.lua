-- renew.lua: keeps a running probe's lease alive, or ends a probe that ran past maxProbeMillis.
--
-- ARGV[4] the lease id (as acquire.lua granted it to ARGV[1])   ARGV[5] the generation it was
-- granted in
--
-- Returns {effectiveState, reason, generation, untilMillis, epoch, renewals}; reason:
--   RENEWED          the lease now expires at untilMillis (NOW + probeLeaseMillis); renewals counts
--   PROBE_TIMED_OUT  the probe started maxProbeMillis or more ago: it counts as failed, the breaker
--                    reopens with backoff (HALF_OPEN > OPEN PROBE_TIMED_OUT) and every slot is
--                    freed; untilMillis is the new open window's end
--   LEASE_EXPIRED    the lease's expiry passed before this renewal: its slot may already be another
--                    node's, so the node no longer holds a lease (its result will not count)
--   STALE_LEASE      no such lease of this node in this generation (a transition, a release)
--
-- Why: a lease that lives probeLeaseMillis from its grant frees its slot while a slow probe still
-- runs; with a dependency that hangs longer than the lease, every lease bought a new probe (up to 4
-- in flight with a 1 s lease and a 3.5 s hang) and each late failure was ignored, so the breaker
-- never left HALF_OPEN. A node renews only the probes it is running, every probeLeaseMillis / 3
-- and once at maxProbeMillis: one small write per probe and renewal, never per call (cost in
-- scripts/bench scripts: about what an acquire costs). A dead or frozen prober stops renewing and
-- its slot returns within one lease, as before. A renewal never creates keys, and one that fails or
-- is lost leaves Redis as it was: the node then believes only the expiry Redis last confirmed.
--
-- maxProbeMillis is measured from the grant ('lease.<member>' in the hash, prelude); 0 sets no
-- bound. It is enforced here and in record.lua, so the bound holds whichever arrives first.

local lease = ARGV[4] or ''
if lease == '' or string.find(lease, '|', 1, true) then
  return redis.error_reply('ERR breakerctl renew: a lease id is required and must not contain |')
end

--@prelude

clock()
load()
if not B.epoch then
  return { 'CLOSED', 'STALE_LEASE', '0', 0, '', 0 }
end
local p = policy()
local state = settle()
local member = lease .. '|' .. NODE
local expiry = state == 'HALF_OPEN' and (ARGV[5] or '') == B.generation
  and redis.call('ZSCORE', LEASES, member)
local reason, until_ms, renewals = 'STALE_LEASE', 0, 0
if expiry and tonumber(expiry) <= NOW then
  reason = 'LEASE_EXPIRED'
elseif expiry then
  local start, n = lease_info(member)
  if p.maxProbe > 0 and NOW - start >= p.maxProbe then
    open_for(backoff(), 'HALF_OPEN', 'PROBE_TIMED_OUT',
      { 'lease', lease, 'probeMillis', NOW - start })
    reason, state, until_ms, renewals = 'PROBE_TIMED_OUT', 'OPEN', num('openUntil', 0), n
  else
    until_ms = NOW + p.lease
    renewals = n + 1
    redis.call('ZADD', LEASES, 'XX', until_ms, member)
    set(lease_field(member), start .. ':' .. renewals)
    reason = 'RENEWED'
  end
end
flush()
return { state, reason, B.generation, until_ms, B.epoch, renewals }
