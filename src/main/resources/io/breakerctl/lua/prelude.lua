-- prelude.lua: shared by every breakerctl script.
--
-- BreakerScript.body() inserts this file into each script (at its `--@prelude` line, else at the
-- top), so the state function, the event writer and the expiry rules exist once. The combined body
-- is fixed per build (never generated from run-time values) and is what EVALSHA's SHA names.
--
-- Protocol schema version: 2 (src/docs/protocol.md carries the same number; ProtocolDocTest).
--
-- KEYS (every script, all in one hash tag, so one cluster slot):
--   KEYS[1] <prefix>:{<id>}          the state hash (layout in src/docs/protocol.md, "Keys")
--   KEYS[2] <prefix>:{<id>}:ev       the event stream
--   KEYS[3] <prefix>:{<id>}:leases   live probe leases: member "<leaseId>|<owner>", score = expiry ms
--   KEYS[4] <prefix>:{<id>}:nodes    heartbeats: member node id, score = last heartbeat (Redis ms)
--   KEYS[5] <prefix>:{<id>}:nodeinfo heartbeats: node id -> JSON {state, policyId, policyVersion,
--                                    degraded, at} as the node reported it (at = Redis ms)
--   KEYS[6] <prefix>:{<id>}:unfwd    present exactly while the stream holds events beyond
--                                    `forwarded` (value: lastEvent); see "Unforwarded marker"
-- ARGV (every script):
--   ARGV[1] node id or actor
--   ARGV[2] idle TTL of the keys in ms; "<idle>:<hold>" also declares that this deployment
--           forwards its history, holding unforwarded events at most <hold> ms (see "History
--           destination" below)
--   ARGV[3] the caller's policy, used while none is warmed: eleven comma-separated values,
--           each empty for its default (and '' for all defaults): failureThreshold,
--           windowMillis, failureRate, minimumCalls, slowCallMillis, openMillis, maxOpenMillis,
--           halfOpenPermits, probeLeaseMillis, enabled (1|0), maxProbeMillis (0: no bound; the
--           ten values of a node built before it still match). One argument rather than ten:
--           each argument costs the client an encoding (ten cost ~2 us of a call's latency on a
--           busy machine), while the one string.match that splits it costs Redis ~0.8 us, about
--           what nine more ARGV strings did.
--   ARGV[4..] the script's own arguments
--
-- Time comes only from redis.call('TIME'): client clocks never enter a decision.
-- Performance (see src/docs/performance.md; measured with scripts/bench scripts and INFO
-- commandstats): a redis.call costs ~1-1.5 us of Redis CPU before its own work (a 4-field HMGET
-- ~2.5 us, an 11-field HGETALL ~3.6 us), and these definitions ~2.5 us per call. So the common
-- cases run ahead of them, with as few calls as they need: acquire's closed path (one HMGET) and
-- record's CLOSED count (TIME + one HMGET + one HSET, 22 -> 14-15 us). The full path loads the
-- hash with one HGETALL (cheaper than an HMGET naming 34 fields: a small hash is a listpack
-- scanned per name), writes with one HSET, and touches old window buckets only when the bucket
-- number moves. Script CPU is fleet-wide capacity.

local H, EV, LEASES = KEYS[1], KEYS[2], KEYS[3]
local NODES, NODEINFO, UNFWD = KEYS[4], KEYS[5], KEYS[6]
local NODE = ARGV[1]
local IDLE_TTL = tonumber(ARGV[2])
local DECLARED_HOLD = nil   -- the caller's history hold (ms) when it declares a destination
if not IDLE_TTL and ARGV[2] then
  local idle, hold = string.match(ARGV[2], '^(%d+):(%d+)$')
  IDLE_TTL, DECLARED_HOLD = tonumber(idle), tonumber(hold)
end
local DEFAULT_HOLD = 604800000 -- 7 days: how long unforwarded events hold the keys at most
local BUCKETS = 10          -- the sliding window's resolution (Policy.WINDOW_BUCKETS)
local HARD_CAP = 10000      -- most events a stream may hold; beyond it the oldest are dropped and counted
local RETAIN = 100          -- forwarded events kept as the stream tail for readers
local NODE_GONE = 1800000   -- a report not renewed this long (ms) is pruned from the heartbeat keys

local B = {}       -- fields as loaded (strings; nil when absent, false once deleted)
local DIRTY = {}   -- fields to write with the final HSET
local NOW, NOW_SEC, NOW_USEC

-- A field no script writes (openUntil=notanumber, state=BOGUS) stops the script with an error
-- naming key and field, before anything is written (MalformedBreakerException in Java).
-- (A string, not an {err = ...} table: Redis 6.2's error handler cannot take a table raised
-- from a nested call.)
local function malformed(f, v, what)
  error('breakerctl: malformed breaker hash ' .. H .. ': field ' .. f .. ' is not ' .. what
    .. ": '" .. string.gsub(string.sub(v, 1, 64), '%c', '?') .. "'", 0)
end

local STORED = { CLOSED = true, OPEN = true, HALF_OPEN = true }
local OVERRIDES = { FORCED_OPEN = true, FORCED_CLOSED = true, DISABLED = true, METRICS_ONLY = true }

local function load()
  local all = redis.call('HGETALL', H)
  for i = 1, #all, 2 do B[all[i]] = all[i + 1] end
  if B.state and not STORED[B.state] then malformed('state', B.state, 'CLOSED, OPEN or HALF_OPEN') end
  if B.override and not OVERRIDES[B.override] then malformed('override', B.override, 'an override') end
end

local function set(f, v)
  B[f] = v
  DIRTY[f] = v
end

local function num(f, default)
  local v = B[f]
  if not v or v == '' then return default end
  local n = tonumber(v)
  if not n then malformed(f, v, 'a number') end
  return n
end

local function clock()
  local t = redis.call('TIME')
  NOW_SEC, NOW_USEC = t[1], t[2]
  NOW = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  return NOW
end

-- Mirrors io.breakerctl.runtime.model.EffectiveState.of: the one state function.
local function effective_state(stored, open_until, override, override_until, now)
  if override and not (override_until > 0 and now >= override_until) then
    return override
  end
  if stored == 'OPEN' and now >= open_until then
    return 'HALF_OPEN'
  end
  return stored
end

local function effective()
  return effective_state(B.state or 'CLOSED', num('openUntil', 0), B.override,
    num('overrideUntil', 0), NOW)
end

-- The caller's policy argument (ARGV[3]) as ten strings ('' = default); record.lua's fast path
-- matches the same pattern. A malformed argument is an error, never a silent default.
local POLICY_ARG = '^([%d.]*),([%d.]*),([%d.]*),([%d.]*),([%d.]*),([%d.]*),([%d.]*),([%d.]*),'
  .. '([%d.]*),([01]?)'
local function policy_arg()
  local arg = ARGV[3] or ''
  if arg == '' then return '', '', '', '', '', '', '', '', '', '', '' end
  local a, b, c, d, e, f, g, h, i, j = string.match(arg, POLICY_ARG .. '$')
  local k = ''
  if not a then
    a, b, c, d, e, f, g, h, i, j, k = string.match(arg, POLICY_ARG .. ',([%d.]*)$')
  end
  if not a then error('breakerctl: bad policy argument ' .. arg) end
  return a, b, c, d, e, f, g, h, i, j, k
end

-- The policy in force: the warmed copy when present, else the caller's (ARGV[3]), else
-- defaults.
local POLICY
local function policy()
  if POLICY then return POLICY end
  if B.policyVersion then
    POLICY = {
      threshold = num('p.failureThreshold', 5), window = num('p.windowMillis', 60000),
      rate = num('p.failureRate', nil), minCalls = num('p.minimumCalls', 20),
      slow = num('p.slowCallMillis', nil), open = num('p.openMillis', 30000),
      maxOpen = num('p.maxOpenMillis', 300000), permits = num('p.halfOpenPermits', 1),
      lease = num('p.probeLeaseMillis', 10000), enabled = (B['p.enabled'] ~= '0'),
      maxProbe = num('p.maxProbeMillis', 30000), id = B.policyId or '', version = B.policyVersion }
    return POLICY
  end
  local t, w, r, m, s, o, mo, p, l, e, mp = policy_arg()
  POLICY = { threshold = tonumber(t) or 5, window = tonumber(w) or 60000, rate = tonumber(r),
    minCalls = tonumber(m) or 20, slow = tonumber(s), open = tonumber(o) or 30000,
    maxOpen = tonumber(mo) or 300000, permits = tonumber(p) or 1, lease = tonumber(l) or 10000,
    enabled = (e ~= '0'), maxProbe = tonumber(mp) or 30000, id = '', version = '0' }
  return POLICY
end

-- Creates the breaker's keys when absent: a new epoch (Redis time in microseconds) marks the new
-- incarnation, so (id, epoch, stream id) names an event for ever.
local function ensure_created()
  if not B.epoch then
    set('epoch', NOW_SEC .. string.format('%06d', tonumber(NOW_USEC)))
    set('state', 'CLOSED')
    set('generation', '0')
  end
end

local function stream_id_less(a, b)
  local am, as = string.match(a, '^(%d+)-(%d+)$')
  local bm, bs = string.match(b, '^(%d+)-(%d+)$')
  am, bm = tonumber(am), tonumber(bm)
  if am ~= bm then return am < bm end
  return tonumber(as) < tonumber(bs)
end

local function breaker_id()
  return string.match(H, '{(.+)}$')
end

-- History destination (issue 41). A deployment either forwards its history to MongoDB (a control
-- plane with a forwarder) or keeps none; the hash says which, so every script and reader of one
-- breaker decides alike without reading a key outside the breaker's hash tag:
--   history      'forward' once a caller declared a destination (ARGV[2] "<idle>:<hold>": a node
--                with a control plane) or a forwarder stored the breaker's events (forwarded.lua);
--                absent: no destination
--   historyHold  the hold in ms (DEFAULT_HOLD when none was declared)
--   unfwdSince   Redis ms of the oldest event the forwarder has not stored; unfwdCount how many
--   streamLength the stream's length after the last script that changed it (readers need no XLEN)
--   eventsExpired, expiredAt  events given up unforwarded when their hold ended, and when
-- Without a destination the stream is a bounded tail of RETAIN events (XADD MAXLEN, nothing
-- counted as dropped: nobody was to receive them), no marker is written and events hold nothing,
-- so an idle breaker's keys expire after the idle TTL. With one, unforwarded events hold the keys
-- (see flush) until unfwdSince + historyHold at most: a stopped forwarder does not pin Redis for
-- ever. The first full-path script after that gives the events up (release_unforwarded: counted
-- in eventsExpired, the cursor moved past them, the tail kept), and the idle TTL applies again.
-- None of this runs on the hot paths (acquire's closed path, record's CLOSED count): only
-- append_event and flush read it, and they add a redis.call only where a stream is trimmed.
-- Why a declaration in ARGV and a field, not a key of the deployment: a script may read only its
-- breaker's slot, and a node knows whether it has a control plane; the field lets callers that
-- declare nothing (the CLI, an older node) and readers decide alike. Callers declaring different
-- holds: the last full-path script's wins (configure one per deployment).
local function forwards()
  if DECLARED_HOLD then
    if B.history ~= 'forward' then set('history', 'forward') end
    if B.historyHold ~= tostring(DECLARED_HOLD) then set('historyHold', tostring(DECLARED_HOLD)) end
    return true
  end
  return B.history == 'forward'
end

-- Unforwarded marker (KEYS[6]): how the history forwarder finds the breakers with events to
-- forward without reading every breaker. A script may touch only its own slot, so there can be no
-- fleet-wide "dirty set" written here; a key per breaker in the breaker's slot can be, and SCAN
-- MATCH <prefix>:{*}:unfwd on each master lists them (HistoryForwarder's Javadoc says why this
-- and not pub/sub). append_event, the only writer of the stream, SETs it (with a destination) in
-- the same atomic script that appends the event; forwarded.lua DELs it in the same script that
-- moves `forwarded` up to `lastEvent`, release_unforwarded when the hold ends. So the marker
-- exists exactly while an event awaits the forwarder; it expires with the held keys (KEEPTTL here,
-- flush gives it their expiry). Callers that pass no KEYS[6] (older clients) write no marker; the
-- forwarder's slow full sweep finds their events.
local function mark_unforwarded(id)
  if UNFWD then redis.call('SET', UNFWD, id, 'KEEPTTL') end
end

-- Appends one event to the stream and publishes it on <prefix>:events. With a destination, never
-- trims an event that was not forwarded, except at HARD_CAP, where each dropped unforwarded event
-- is counted in eventsDropped; without one, keeps the newest RETAIN.
-- The stream gone while the hash says events await the forwarder: Redis lost it alone (evicted
-- under a maxmemory policy, deleted by hand) with unfwdCount events in it (issue 44: an override's
-- only audit went with an evicted stream, leaving no count, no gap and nothing for a forwarder to
-- find). They are counted in eventsDropped, so the forwarder records a gap the timeline shows, and
-- the cursor moves past them so the keys are not held for events that no longer exist. Called
-- where the stream's length is read anyway (append_event, forwarded.lua's ack).
local function count_lost_stream(len)
  if len == 0 and B.lastEvent and (B.forwarded or '') ~= B.lastEvent then
    set('eventsDropped', tostring(num('eventsDropped', 0) + num('unfwdCount', 1)))
    set('forwarded', B.lastEvent)
    set('unfwdCount', false)
    set('unfwdSince', false)
    if UNFWD then redis.call('DEL', UNFWD) end
  end
end

local function append_event(ev)
  local fwd = forwards()
  local len
  if fwd then
    len = redis.call('XLEN', EV)
    count_lost_stream(len)
    if len >= HARD_CAP then
      local drop = len - HARD_CAP + 1
      local done = B.forwarded or '0-0'
      local lost = 0
      for _, e in ipairs(redis.call('XRANGE', EV, '-', '+', 'COUNT', drop)) do
        if stream_id_less(done, e[1]) then lost = lost + 1 end
      end
      redis.call('XTRIM', EV, 'MAXLEN', HARD_CAP - 1)
      len = HARD_CAP - 1
      if lost > 0 then
        set('eventsDropped', tostring(num('eventsDropped', 0) + lost))
        set('unfwdCount', tostring(math.max(0, num('unfwdCount', 0) - lost)))
      end
    end
  elseif B.streamLength then
    len = math.min(num('streamLength', 0), RETAIN - 1)
  else
    len = math.min(redis.call('XLEN', EV), RETAIN - 1)
  end
  local flat = {}
  for i = 1, #ev, 2 do
    flat[#flat + 1] = ev[i]
    flat[#flat + 1] = tostring(ev[i + 1])
  end
  local id
  if fwd then
    local waiting = num('unfwdCount', 0)
    if (B.lastEvent or '') == (B.forwarded or '') then
      set('unfwdSince', tostring(NOW))
      waiting = 0
    elseif not B.unfwdSince or not B.unfwdCount then
      -- events that waited before a destination was declared (or before these fields existed):
      -- counted once, the hold starting at the oldest of them
      local rest = redis.call('XRANGE', EV, '(' .. (B.forwarded or '0-0'), '+')
      waiting = #rest
      set('unfwdSince', #rest > 0 and string.match(rest[1][1], '^(%d+)') or tostring(NOW))
    end
    id = redis.call('XADD', EV, '*', unpack(flat))
    set('unfwdCount', tostring(waiting + 1))
    mark_unforwarded(id)
  else
    id = redis.call('XADD', EV, 'MAXLEN', RETAIN, '*', unpack(flat))
  end
  set('lastEvent', id)
  set('streamLength', tostring(len + 1))
  local msg = { type = 'transition', id = breaker_id(), streamId = id }
  for i = 1, #flat, 2 do msg[flat[i]] = flat[i + 1] end
  redis.call('PUBLISH', string.match(H, '^(.*):{') .. ':events', cjson.encode(msg))
  return id
end

-- Trims the stream to its RETAIN newest events once none older is owed to the forwarder.
local function trim_to_tail()
  local removed = redis.call('XTRIM', EV, 'MAXLEN', RETAIN)
  if removed > 0 or not B.streamLength then
    set('streamLength', tostring(redis.call('XLEN', EV)))
  end
end

-- The hold ended with events unforwarded: they are given up (counted in eventsExpired, the
-- cursor moved past them so a forwarder that returns does not store them after the count; the
-- newest RETAIN stay readable) and hold the keys no longer.
local function release_unforwarded()
  local n = num('unfwdCount', nil)
  if not n then
    n = #redis.call('XRANGE', EV, '(' .. (B.forwarded or '0-0'), '+')
  end
  set('eventsExpired', tostring(num('eventsExpired', 0) + n))
  set('expiredAt', tostring(NOW))
  set('forwarded', B.lastEvent)
  set('unfwdCount', false)
  set('unfwdSince', false)
  if UNFWD then redis.call('DEL', UNFWD) end
  trim_to_tail()
end

-- Probe leases: a live lease is a member "<leaseId>|<owner>" of KEYS[3] scored by its expiry,
-- and a hash field 'lease.<member>' = "<grantedAt>:<renewals>" (Redis ms, count) says when its
-- probe started and how often its node renewed it (renew.lua): maxProbeMillis is measured from
-- grantedAt, and describe shows both. The field leaves with its member (a result, a release, an
-- expiry noticed by acquire, a transition).
local function lease_field(member)
  return 'lease.' .. member
end

-- The lease's start and renewals; a member without its field (granted by a node built before
-- renewals) reads as started now with none, so it is never timed out by an unknown age.
local function lease_info(member)
  local v = B[lease_field(member)]
  local start, renewals = string.match(v or '', '^(%d+):(%d+)$')
  return tonumber(start) or NOW, tonumber(renewals) or 0
end

local function drop_lease(member)
  redis.call('ZREM', LEASES, member)
  if B[lease_field(member)] then set(lease_field(member), false) end
end

-- Records a transition: bumps the generation (results and leases of the old one become stale),
-- drops live leases, appends the event. extra: more field/value pairs for the event.
local function transition(from, to, cause, extra)
  local gen = num('generation', 0) + 1
  set('generation', tostring(gen))
  set('lastTransitionAt', tostring(NOW))
  set('halfOpenSuccesses', '0')
  redis.call('DEL', LEASES)
  for f, v in pairs(B) do
    if v and string.sub(f, 1, 6) == 'lease.' then set(f, false) end
  end
  local p = policy()
  local ev = { 'epoch', B.epoch, 'from', from, 'to', to, 'cause', cause, 'generation', gen,
    'policyId', p.id, 'policyVersion', p.version, 'node', NODE, 'at', NOW }
  if extra then
    for i = 1, #extra do ev[#ev + 1] = extra[i] end
  end
  return append_event(ev)
end

-- Opens from the current machine state for `om` ms (a trip, a failed or timed-out probe);
-- returns the event's stream id.
local function open_for(om, from, cause, extra)
  set('state', 'OPEN')
  set('openMillis', tostring(om))
  set('openUntil', tostring(NOW + om))
  set('openedAt', tostring(NOW))
  extra[#extra + 1] = 'openMillis'
  extra[#extra + 1] = om
  extra[#extra + 1] = 'until'
  extra[#extra + 1] = NOW + om
  return transition(from, 'OPEN', cause, extra)
end

-- The open window after a failed probe: the last one doubled, up to maxOpenMillis.
local function backoff()
  local p = policy()
  return math.min(num('openMillis', p.open) * 2, p.maxOpen)
end

local function clear_window()
  set('winFailures', '0')
  set('winCalls', '0')
  set('curFailures', '0')
  set('curCalls', '0')
  set('winBucket', tostring(math.floor(NOW / math.max(1, math.floor(policy().window / BUCKETS)))))
  for i = 0, BUCKETS - 1 do set('w' .. i, false) end
end

-- Removes the override; returns the state the machine resumes in. An open window that ended
-- while the override was in force resumes as HALF_OPEN (stored, so leases can be granted).
local function end_override()
  for _, f in ipairs({'override', 'overrideUntil', 'overrideActor', 'overrideReason',
      'overrideAt', 'overrideCorrelationId'}) do
    set(f, false)
  end
  local to = effective()
  if to ~= (B.state or 'CLOSED') then set('state', to) end
  return to
end

-- Applies the changes time made on its own (override expired, open window ended) and records
-- them; returns the effective state. The first script to notice wins: it runs atomically.
local function settle()
  if B.override and num('overrideUntil', 0) > 0 and NOW >= num('overrideUntil', 0) then
    local was, actor, reason = B.override, B.overrideActor or '', B.overrideReason or ''
    local to = end_override()
    transition(was, to, 'OVERRIDE_EXPIRED', { 'actor', actor, 'reason', reason })
    return to
  end
  local eff = effective()
  if eff == 'HALF_OPEN' and B.state == 'OPEN' and not B.override then
    set('state', 'HALF_OPEN')
    transition('OPEN', 'HALF_OPEN', 'OPEN_WINDOW_ENDED', { 'until', num('openUntil', 0) })
  end
  return eff
end

-- Keys expire when unused, but never while the breaker is open or half-open or an override is
-- live (ttlAt = -1 marks persisted keys), and, with a history destination, not before
-- unfwdSince + historyHold while an event awaits the forwarder: such keys carry that end plus
-- the idle TTL as their expiry (heldUntil = that end), so even a breaker no script touches again
-- is released, and the first full-path script past it gives the events up. Otherwise the TTL is
-- refreshed at most every IDLE_TTL/8 (so a busy breaker does not pay a PEXPIRE per call).
-- flush() writes the changed fields with one HSET (and one HDEL for removed ones), then applies
-- this rule.
local function flush()
  local hold_until = nil
  if forwards() and (B.lastEvent or '') ~= (B.forwarded or '') then
    hold_until = num('unfwdSince', NOW) + num('historyHold', DEFAULT_HOLD)
    if NOW >= hold_until then
      release_unforwarded()
      hold_until = nil
    end
  end
  local pinned = (B.state and B.state ~= 'CLOSED') or (B.override and true)
  local ttl_at = num('ttlAt', nil)
  local expiry = nil
  if pinned then
    if ttl_at ~= -1 then
      set('ttlAt', '-1')
      expiry = 'PERSIST'
    end
  elseif hold_until then
    if B.heldUntil ~= tostring(hold_until) or ttl_at == nil or ttl_at == -1
        or NOW - ttl_at >= IDLE_TTL / 8 then
      set('heldUntil', tostring(hold_until))
      set('ttlAt', tostring(NOW))
      expiry = 'HOLD'
    end
  elseif B.heldUntil or ttl_at == nil or ttl_at == -1 or NOW - ttl_at >= IDLE_TTL / 8 then
    set('heldUntil', false)
    set('ttlAt', tostring(NOW))
    expiry = 'PEXPIRE'
  end
  local args, gone = {}, {}
  for f, v in pairs(DIRTY) do
    if v then
      args[#args + 1] = f
      args[#args + 1] = v
    else
      gone[#gone + 1] = f
    end
  end
  if #args > 0 then redis.call('HSET', H, unpack(args)) end
  if #gone > 0 then redis.call('HDEL', H, unpack(gone)) end
  -- every key, the marker (KEYS[6]) included: one left by a caller of another kind expires with
  -- the keys instead of outliving them
  if expiry == 'PERSIST' then
    for _, k in ipairs(KEYS) do redis.call('PERSIST', k) end
  elseif expiry == 'HOLD' then
    for _, k in ipairs(KEYS) do redis.call('PEXPIRE', k, hold_until - NOW + IDLE_TTL) end
  elseif expiry == 'PEXPIRE' then
    for _, k in ipairs(KEYS) do redis.call('PEXPIRE', k, IDLE_TTL) end
  end
end
