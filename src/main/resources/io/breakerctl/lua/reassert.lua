-- reassert.lua: a node puts back a trip or an override that Redis lost, or publishes a trip it made
-- while it could not reach Redis.
--
-- Redis replication is asynchronous: a master that dies right after a trip can hand its slot to a
-- replica that never saw it, and a FLUSHALL (or a failover to an empty replica) loses every key.
-- Every node would then adopt CLOSED from what Redis now holds and the fleet would send traffic to
-- a dependency it had just found down. A node whose view is newer (the same epoch at a higher
-- generation, or an older epoch while Redis holds a new one) keeps its view and calls this script
-- with what it knows; the first such node writes it, every later one finds it done. The script
-- decides from what Redis holds, never from the caller's clock: times are Redis times the node
-- read before.
--
-- ARGV[4] REASSERT (only when Redis is behind the caller's view) | DEGRADED_TRIP (a trip the
--         caller's local machine made while Redis was unreachable: written whenever the breaker
--         is CLOSED without override)
-- ARGV[5] what to put back: OPEN | FORCED_OPEN | FORCED_CLOSED | DISABLED | METRICS_ONLY
-- ARGV[6] the epoch the caller saw it in   ARGV[7] the generation the caller saw it at
-- ARGV[8] until (Redis ms): the open window's end, or the override's expiry (0 = until cleared)
-- ARGV[9] the open window's length in ms (OPEN; '' for the policy's openMillis)
-- ARGV[10] the cause the caller knows ('' unknown)   ARGV[11] failures at the trip ('' unknown)
-- ARGV[12] override actor   ARGV[13] override reason   ARGV[14] override correlation id
-- ARGV[15] '1' when the caller saw the lost incarnation stored HALF_OPEN (probes may be running)
--
-- Returns {written 0|1, outcome, effectiveState, generation, epoch}; outcome REASSERTED |
-- CURRENT (Redis is not behind the caller) | ENDED (the override, or a degraded trip's window, is
-- over by Redis time) |
-- ALREADY (Redis already enforces it, or holds something else the operator or the fleet set since).
-- A REASSERT writes its event with cause REASSERTED (CLOSED -> OPEN, or any state -> the override)
-- and the fields lostEpoch, lostGeneration, reassertedCause; the generation becomes at least the
-- caller's plus one, so every node adopts the result instead of calling again. A DEGRADED_TRIP
-- writes a FAILURE_THRESHOLD trip marked degraded=1.
--
-- A REASSERT of OPEN whose window already ended by Redis time is written too, and settled at once
-- to HALF_OPEN (events REASSERTED, then OPEN_WINDOW_ENDED): the fleet had not seen the dependency
-- recover (no probe closed the breaker), so a flush at a window's end must leave one probe per
-- permit, not a CLOSED breaker every caller passes (a FLUSHALL about 1 s before a window ended let
-- 8 calls reach the dependency where one probe may go).
--
-- A flush while the breaker was half-open loses the probe leases with it, while their probes may
-- still run (a slow dependency: issue 40's probes renew their leases for as long as they run).
-- Settled to HALF_OPEN with free slots, the fleet would send a second probe next to the one in
-- flight. So when the caller saw the lost incarnation stored HALF_OPEN (ARGV[15]), every slot is
-- held for one probeLeaseMillis by a lease of owner '(lost)': the same bound as a prober that
-- stopped renewing, after which the slots return. The old prober's result, from another
-- incarnation, counts for nothing (record.lua: STALE_GENERATION). A caller that saw the window
-- OPEN, not yet settled, knows no probe was granted (a grant settles first), and nothing is held.
-- Not covered: a lost probe still running one lease after the re-assertion (its renewals find no
-- lease and stop, as a dead prober's); a second probe may then go next to it
-- (FlushDuringProbeIT shows the lease held: the next probe 2,008 ms after the flush, lease 2 s).
--
-- Back in time. A Redis restarted from an older RDB (a crash between `save` snapshots, a restore
-- from backup) or failed over to a replica that missed writes holds the same incarnation at a lower
-- generation than the caller saw, or an older incarnation (a smaller epoch: epochs are Redis time
-- at creation, Epoch.before in Java). Its state is older, not absent: an OPEN whose window a failed
-- probe has since doubled, a shorter override. Adopted, it sent 1-2 probes per breaker about 43 s
-- early and reused generation numbers, so a late result from before the rewind could meet a
-- generation it was not issued for. So a REASSERT against a rewound Redis writes what the caller
-- knows over the older state (an OPEN window ending no earlier than the one held, an override
-- other than the one held) at a generation above the caller's, and gives the keys a new epoch: a
-- late result or lease renewal from a generation the caller saw is stale (record.lua and renew.lua
-- compare generations), and every node and reader sees another incarnation (nodes report again:
-- the fleet view showed reports restored with the snapshot for 25 s). The rewind is judged by
-- the generation stored before settle(), which may itself write the next generation. The events:
-- REASSERTED from OPEN or HALF_OPEN to OPEN, or from one override to another (model/Transitions).

-- Epoch.before in Java: whether epoch a (decimal Redis microseconds) names an older incarnation
-- than b; never for an empty or non-numeric epoch
local function epoch_before(a, b)
  if not (a and b and string.match(a, '^%d+$') and string.match(b, '^%d+$')) then return false end
  if #a ~= #b then return #a < #b end
  return a < b
end

clock()
load()
local mode, kind = ARGV[4], ARGV[5]
local seen_epoch, seen_gen = ARGV[6] or '', tonumber(ARGV[7]) or 0
local until_ms, open_ms = tonumber(ARGV[8]) or 0, tonumber(ARGV[9])
local known_cause, failures = ARGV[10] or '', ARGV[11] or ''
if mode ~= 'REASSERT' and mode ~= 'DEGRADED_TRIP' then
  return redis.error_reply('ERR breakerctl reassert: unknown mode ' .. tostring(mode))
end
if kind ~= 'OPEN' and kind ~= 'FORCED_OPEN' and kind ~= 'FORCED_CLOSED' and kind ~= 'DISABLED'
    and kind ~= 'METRICS_ONLY' then
  return redis.error_reply('ERR breakerctl reassert: cannot reassert ' .. tostring(kind))
end
if mode == 'DEGRADED_TRIP' and kind ~= 'OPEN' then
  return redis.error_reply('ERR breakerctl reassert: a degraded trip opens the breaker')
end
ensure_created()
local stored_gen = num('generation', 0)
local rewound = mode == 'REASSERT'
  and ((B.epoch == seen_epoch and stored_gen < seen_gen) or epoch_before(B.epoch, seen_epoch))
local state = settle()
local gen = num('generation', 0)
-- a rewound Redis gets a new incarnation (see Back in time above)
local function new_epoch()
  if rewound then set('epoch', NOW_SEC .. string.format('%06d', tonumber(NOW_USEC))) end
end
local function answer(written, outcome)
  flush()
  return { written, outcome, effective(), B.generation, B.epoch }
end

if mode == 'REASSERT' and not rewound and B.epoch == seen_epoch and gen >= seen_gen then
  return answer(0, 'CURRENT')
end
if (kind == 'OPEN' and mode == 'DEGRADED_TRIP' and until_ms <= NOW)
    or (kind ~= 'OPEN' and until_ms > 0 and until_ms <= NOW) then
  return answer(0, 'ENDED')
end
if kind == 'OPEN' then
  if state ~= 'CLOSED' and not (rewound and not B.override and num('openUntil', 0) <= until_ms) then
    return answer(0, 'ALREADY')
  end
  local om = open_ms or policy().open
  set('state', 'OPEN')
  set('openMillis', tostring(om))
  set('openUntil', tostring(until_ms))
  set('openedAt', tostring(NOW))
  if mode == 'DEGRADED_TRIP' then
    transition('CLOSED', 'OPEN', 'FAILURE_THRESHOLD', { 'failures', failures,
      'threshold', policy().threshold, 'degraded', '1', 'openMillis', om, 'until', until_ms })
  else
    if gen < seen_gen then set('generation', tostring(seen_gen)) end
    new_epoch()
    transition(state, 'OPEN', 'REASSERTED', { 'lostEpoch', seen_epoch,
      'lostGeneration', seen_gen, 'reassertedCause', known_cause, 'openMillis', om,
      'until', until_ms })
  end
  clear_window()
  -- a window that ended already: half-open now (OPEN_WINDOW_ENDED), its probes leased
  if settle() == 'HALF_OPEN' and ARGV[15] == '1' then
    local p = policy()
    for i = 1, p.permits do
      local member = 'lost-' .. i .. '|(lost)'
      redis.call('ZADD', LEASES, NOW + p.lease, member)
      set(lease_field(member), NOW .. ':0')
    end
  end
  return answer(1, 'REASSERTED')
end
if B.override and not (rewound and (B.override ~= kind or num('overrideUntil', 0) ~= until_ms)) then
  return answer(0, 'ALREADY')
end
if gen < seen_gen then set('generation', tostring(seen_gen)) end
new_epoch()
set('override', kind)
set('overrideUntil', tostring(until_ms))
set('overrideActor', ARGV[12] or '')
set('overrideReason', ARGV[13] or '')
set('overrideAt', tostring(NOW))
set('overrideCorrelationId', ARGV[14] or '')
transition(state, kind, 'REASSERTED', { 'actor', ARGV[12] or '', 'reason', ARGV[13] or '',
  'correlationId', ARGV[14] or '', 'until', until_ms, 'lostEpoch', seen_epoch,
  'lostGeneration', seen_gen, 'reassertedCause', known_cause })
return answer(1, 'REASSERTED')
