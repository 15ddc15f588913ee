-- record.lua: records call outcomes and trips, closes or reopens the breaker.
--
-- ARGV[4] failures (count)   ARGV[5] successes (count; a node flushes its successes in batches)
-- ARGV[6] duration in ms of the one call reported ('' for batches): a call at least
--         slowCallMillis slow counts as a failure
-- ARGV[7] generation the caller was admitted in ('' unknown)   ARGV[8] probe lease id ('' none)
-- ARGV[9] the node's heartbeat (its report on this breaker) as a JSON object ('' none): written
--          with the node's batched flush to KEYS[4]/KEYS[5] with the Redis time added as "at". A
--          node sends it when what it reports changes and at least every 10 heartbeat intervals
--          (at most 10 minutes); whether the node still runs is its liveness (alive.lua), which
--          readers apply. Reports not renewed for NODE_GONE (30 minutes) are pruned here (at most
--          10 per call, at most once every 10 minutes: nodesPrunedAt; with reports every 10
--          minutes, pruning once a minute sent nearly every report down the full path: 113 us of
--          Redis CPU each in scripts/bench scale), so there are no per-node keys to expire. The heartbeat keys get the hash's expiry when created and
--          whenever the full path refreshes or pins the breaker's keys.
-- ARGV[10] the dependency's back-off hint in ms ('' or '0' none): 1 to 86400000 (one day), whole
--          ms; anything else is an error before anything is written   ARGV[11] its source
--          (RETRY_AFTER, GRPC_PUSHBACK, CALLER, CLASSIFIER)
--
-- Back-off hints (issue 33): a dependency that answers "come back in N s" (HTTP Retry-After, gRPC
-- grpc-retry-pushback-ms, a caller's or classifier's value) has told the whole fleet, not one node.
-- Any outcome carrying a hint sets the shared open window to
--     max(current end, now + min(hint, maxOpenMillis))
-- with no override in force and the policy enabled (an operator's override and enabled=false win):
--   * CLOSED or HALF_OPEN: opens for the capped hint (BACKOFF_REQUESTED), whatever the counts: one
--     node's answer is enough, the dependency said so itself. A trip or a failed probe that comes
--     with a hint opens for the capped hint instead of openMillis or the doubled backoff (cause
--     FAILURE_*/PROBE_*), so its window is the dependency's word, not our guess.
--   * OPEN: lengthens the window only when now + hint ends later (OPEN > OPEN BACKOFF_REQUESTED, a
--     new generation, so nodes learn the new end by pub/sub); a shorter hint changes nothing.
-- Why max and not the newest hint: the window is shared, and a node's shorter hint must not let
-- the whole fleet in early while another node was told to wait longer; why capped by
-- maxOpenMillis: a hint is upstream input, and the policy owner's bound on how long the fleet may
-- stay shut holds whatever a dependency (or a bug in it) asks.
-- A probe answered promptly with a hint (a 429 or 503 with Retry-After) proves the dependency is
-- up and says when it wants traffic again: the breaker reopens for the capped hint, NOT the
-- doubled window, and that window (openMillis) is the base of the next doubling. A probe failing
-- without a hint backs off by doubling, as before. The event of every transition a hint shaped
-- carries hintMillis (asked, before the cap) and hintSource; the hash keeps hintMillis,
-- hintSource and hintUntil (the end it set) for describe and the metrics ("hint in force" while
-- hintUntil is ahead of Redis time).
--
-- Returns {effectiveState, windowFailures, windowCalls, transitioned 0|1, generation, eventId,
--          epoch, accepted 0|1, reason, openUntil}; the fast path only {windowFailures,
--          windowCalls, generation, epoch}: CLOSED, not transitioned, accepted, COUNTED, no
--          openUntil (a stored CLOSED never has one).
--
-- The window is time-bucketed: BUCKETS buckets of windowMillis/BUCKETS. winFailures/winCalls are
-- maintained totals, curFailures/curCalls the newest bucket (number winBucket); older buckets
-- live in ring fields w0..w9 as "failures:calls" and are read only when the bucket number moves.
-- failuresTotal counts every failure received, counted in the window or not. A result from an
-- older generation (admitted before a trip or an override) changes no state. In HALF_OPEN only a
-- result carrying a live lease of this generation and owner counts: halfOpenPermits successes
-- close, one failure reopens with the open window doubled up to maxOpenMillis, and a result that
-- arrives maxProbeMillis or more after its lease was granted counts as failed whatever it says
-- (PROBE_TIMED_OUT, as renew.lua decides at that moment). A lease with no
-- outcome (0 failures, 0 successes) is given back unused: this owner's lease is removed in any
-- state and generation (RELEASED; STALE_LEASE when it holds none), so another node may probe at
-- once instead of after probeLeaseMillis. A node sends it when its acquire's answer was lost (see
-- acquire.lua) and when the probe's call ended in an outcome that counts neither way.
--
-- While no policy is warmed, the caller's policy argument is stored as `nodePolicy` (the node's
-- registry defaults, shown by status and describe); a call whose argument differs from it takes
-- the full path, which writes it.
--
-- Fast path (ahead of the prelude's definitions, which cost ~2.5 us per call): the common cases,
-- a CLOSED breaker without override counting a result in the newest bucket without tripping, and
-- a node's batched flush with its heartbeat, take TIME + one HMGET (15 fields, not the whole
-- hash) + one HSET (+ ZADD and HSET of the heartbeat): 14-15 us and ~16 us of Redis CPU against
-- 22-26 and ~32 on the full path (scripts/bench scripts, record and flush). A moved bucket stays
-- on the fast path (one more HMGET of the ring fields that left the window, an HDEL, the newest
-- bucket into the ring): a node flushes every flushInterval (10 s) and sends an idle breaker's
-- heartbeat every heartbeatInterval (60 s), both longer than a bucket of the default window (6 s),
-- so without it nearly every flush took the full path (scripts/bench scale: busy 9.2 us per pair
-- and second, idle 1.9). Anything else (no keys yet, a lease, a stale generation, a bucket moved
-- backwards, a trip, a TTL refresh or node pruning due, bad counts, ring or heartbeat, other node
-- defaults than the stored `nodePolicy`) falls through to the full path below, which decides from scratch: the fast path changes
-- nothing before it commits. It must stay equivalent to the full path for the cases it takes
-- (RecordFastPathIT feeds both the same calls and pins each fall-through).
local A = ARGV
if A[8] == '' and (A[10] or '') == '' then
  local t = redis.call('TIME')
  local now = t[1] * 1000 + math.floor(t[2] / 1000)
  local f = redis.call('HMGET', KEYS[1], 'state', 'override', 'generation', 'epoch', 'winBucket',
    'curFailures', 'curCalls', 'winFailures', 'winCalls', 'failuresTotal', 'successesTotal',
    'ttlAt', 'policyVersion', 'policy', 'nodesPrunedAt', 'nodePolicy')
  local fails, succ = tonumber(A[4]), tonumber(A[5])
  local ttl = tonumber(f[12])
  -- the idle TTL: ARGV[2] is "<idle>" or "<idle>:<hold>" (a declared history destination)
  local idle = tonumber(A[2]) or tonumber(string.match(A[2], '^(%d+):'))
  -- the policy in force, in the policy argument's format: the warmed copy (warm.lua writes it as
  -- `policy` next to the p.* fields), else the caller's
  local pol = A[3]
  if f[13] then pol = f[14] end
  -- the heartbeat, taken here when it is a non-empty JSON object ending in '}' without "at" of
  -- its own (the runtime's), and pruning is not due: "at" is appended, no re-encoding
  local beat = A[9]
  local beat_ok = beat == ''
  if not beat_ok and now - (tonumber(f[15]) or 0) < 600000 and string.sub(beat, -1) == '}' then
    local ok, hb = pcall(cjson.decode, beat)
    beat_ok = ok and type(hb) == 'table' and hb.at == nil and next(hb) ~= nil
  end
  -- a malformed count falls through to the full path, whose num() names key and field
  local counts_ok = tonumber(f[6]) and tonumber(f[7]) and tonumber(f[8]) and tonumber(f[9])
    and tonumber(f[10] or 0) and tonumber(f[11] or 0)
  if counts_ok and beat_ok and pol and (f[13] or f[16] == A[3]) and f[1] == 'CLOSED'
      and not f[2] and (A[7] == '' or A[7] == f[3]) and fails
      and succ and fails >= 0 and succ >= 0 and f[5] and ttl
      and idle and (ttl == -1 or now - ttl < idle / 8) then
    -- as policy() in the prelude; a malformed value leaves threshold nil and falls through to
    -- the full path, which reports it
    local t, w, r, m, s, e = '', '', '', '', '', ''
    if pol ~= '' then
      t, w, r, m, s, e = string.match(pol,
        '^([%d.]*),([%d.]*),([%d.]*),([%d.]*),([%d.]*),[%d.]*,[%d.]*,[%d.]*,[%d.]*,([01]?),?[%d.]*$')
    end
    local threshold = t and (tonumber(t) or 5)
    local window, rate, min_calls = tonumber(w) or 60000, tonumber(r), tonumber(m) or 20
    local slow, enabled = tonumber(s), e ~= '0'
    local duration = tonumber(A[6])
    if slow and duration and duration >= slow and succ > 0 and fails == 0 then
      succ, fails = succ - 1, 1
    end
    local wf, wc = f[8] + fails, f[9] + fails + succ
    local bucket = math.floor(now / math.max(1, math.floor(window / 10)))
    local b0 = tonumber(f[5])
    -- the bucket moved (a flush every flushInterval, a heartbeat every heartbeatInterval: both
    -- longer than a bucket of the default window): as the full path, the buckets that left the
    -- window are read from the ring and taken off the totals; the newest goes into the ring.
    -- Read only; it is written below once the call is known not to trip.
    local expired, ring_cur = nil, nil
    if threshold and b0 and bucket > b0 then
      wf, wc = fails, fails + succ
      if bucket - b0 < 10 then
        wf, wc = f[8] + fails, f[9] + fails + succ
        expired = {}
        for k = b0 + 1, bucket do expired[#expired + 1] = 'w' .. (k % 10) end
        for _, v in ipairs(redis.call('HMGET', KEYS[1], unpack(expired))) do
          if v then
            local ef, ec = string.match(v, '^(%d+):(%d+)$')
            if not ef then threshold = nil break end -- malformed: the full path names it
            wf, wc = wf - tonumber(ef), wc - tonumber(ec)
          end
        end
        if tonumber(f[7]) > 0 then ring_cur = 'w' .. (b0 % 10) end
      elseif tonumber(f[9]) > 0 then
        expired = {}
        for k = 0, 9 do expired[#expired + 1] = 'w' .. k end
      end
    end
    if threshold and b0 and bucket >= b0
        and not (enabled and fails > 0 and (wf >= threshold
          or (rate and wc >= min_calls and wf * 100 >= rate * wc))) then
      if bucket > b0 then
        if expired then redis.call('HDEL', KEYS[1], unpack(expired)) end
        if ring_cur then redis.call('HSET', KEYS[1], ring_cur, f[6] .. ':' .. f[7]) end
        local w = { 'winBucket', bucket, 'curFailures', fails, 'curCalls', fails + succ,
          'winFailures', wf, 'winCalls', wc }
        if fails > 0 then
          w[#w + 1] = 'failuresTotal'
          w[#w + 1] = (f[10] or 0) + fails
        end
        if succ > 0 then
          w[#w + 1] = 'successesTotal'
          w[#w + 1] = (f[11] or 0) + succ
        end
        redis.call('HSET', KEYS[1], unpack(w))
      elseif fails > 0 and succ > 0 then
        redis.call('HSET', KEYS[1], 'curFailures', f[6] + fails, 'curCalls', f[7] + fails + succ,
          'winFailures', wf, 'winCalls', wc, 'failuresTotal', (f[10] or 0) + fails,
          'successesTotal', (f[11] or 0) + succ)
      elseif fails > 0 then
        redis.call('HSET', KEYS[1], 'curFailures', f[6] + fails, 'curCalls', f[7] + fails,
          'winFailures', wf, 'winCalls', wc, 'failuresTotal', (f[10] or 0) + fails)
      elseif succ > 0 then
        redis.call('HSET', KEYS[1], 'curCalls', f[7] + succ, 'winCalls', wc,
          'successesTotal', (f[11] or 0) + succ)
      end
      if beat ~= '' then
        local added = redis.call('ZADD', KEYS[4], now, A[1])
        redis.call('HSET', KEYS[5], A[1], string.sub(beat, 1, -2) .. ',"at":' .. now .. '}')
        if added == 1 and ttl ~= -1 then
          redis.call('PEXPIRE', KEYS[4], idle)
          redis.call('PEXPIRE', KEYS[5], idle)
        end
      end
      return { wf, wc, f[3], f[4] }
    end
  end
end

--@prelude

clock()
load()
local failures = tonumber(ARGV[4]) or 0
local successes = tonumber(ARGV[5]) or 0
local duration = tonumber(ARGV[6])
local seen_gen = ARGV[7] or ''
local lease = ARGV[8] or ''
if failures < 0 or successes < 0 then
  return redis.error_reply('ERR breakerctl record: counts must be >= 0')
end
-- the hint, checked before anything is written (a bad one writes nothing)
local hint, hint_src = ARGV[10] or '', ARGV[11] or ''
if hint ~= '' then
  local h = tonumber(hint)
  if not h or h ~= math.floor(h) or h < 0 or h > 86400000 then
    return redis.error_reply("ERR breakerctl record: hint must be whole ms from 0 to 86400000 but was '"
      .. string.gsub(string.sub(hint, 1, 32), '%c', '?') .. "'")
  end
  if not string.match(hint_src, '^[A-Z_]+$') or #hint_src > 32 then
    return redis.error_reply("ERR breakerctl record: hint source must be a name like RETRY_AFTER but was '"
      .. string.gsub(string.sub(hint_src, 1, 32), '%c', '?') .. "'")
  end
  hint = h > 0 and h or nil
else
  hint = nil
end
local beat, hb = ARGV[9] or '', nil
if beat ~= '' then
  local ok
  ok, hb = pcall(cjson.decode, beat)
  if not ok or type(hb) ~= 'table' then
    return redis.error_reply('ERR breakerctl record: heartbeat is not a JSON object')
  end
end
local p = policy()
-- the window a hint asks for (capped), and the event fields that say so; marks the hash
local function hinted(om, extra)
  if not hint then return om end
  local w = math.min(hint, p.maxOpen)
  set('hintMillis', tostring(hint))
  set('hintSource', hint_src)
  set('hintUntil', tostring(NOW + w))
  extra[#extra + 1] = 'hintMillis'
  extra[#extra + 1] = hint
  extra[#extra + 1] = 'hintSource'
  extra[#extra + 1] = hint_src
  return w
end
-- the caller's policy (its registry defaults) is recorded while none is warmed, so readers show
-- the threshold the fleet runs with (`nodePolicy`, the policy argument's format)
if not B.policyVersion and B.nodePolicy ~= (ARGV[3] or '') then set('nodePolicy', ARGV[3] or '') end
local slow = 0
if p.slow and duration and duration >= p.slow and successes > 0 and failures == 0 then
  successes, failures, slow = successes - 1, 1, 1
end
ensure_created()
if failures > 0 then set('failuresTotal', tostring(num('failuresTotal', 0) + failures)) end
if successes > 0 then set('successesTotal', tostring(num('successesTotal', 0) + successes)) end

local state = settle()
local gen = B.generation
local accepted, reason, event = 0, 'COUNTED', ''
local wf, wc = num('winFailures', 0), num('winCalls', 0)

if lease ~= '' and failures == 0 and successes == 0 then
  local member = lease .. '|' .. NODE
  if redis.call('ZSCORE', LEASES, member) then
    drop_lease(member)
    accepted, reason = 1, 'RELEASED'
  else
    reason = 'STALE_LEASE'
  end
elseif lease ~= '' then
  local member = lease .. '|' .. NODE
  local expiry = state == 'HALF_OPEN' and seen_gen == gen and redis.call('ZSCORE', LEASES, member)
  if not expiry then
    reason = 'STALE_LEASE'
  elseif tonumber(expiry) <= NOW then
    reason = 'LEASE_EXPIRED'
  else
    local start = lease_info(member)
    drop_lease(member)
    accepted = 1
    if p.maxProbe > 0 and NOW - start >= p.maxProbe then
      -- the probe ran past maxProbeMillis under a live lease (its renewal was not yet due):
      -- failed whatever it answered, as renew.lua decides
      local extra = { 'lease', lease, 'probeMillis', NOW - start }
      event = open_for(hinted(backoff(), extra), 'HALF_OPEN', 'PROBE_TIMED_OUT', extra)
      state = 'OPEN'
    elseif failures > 0 then
      local extra = { 'lease', lease, 'slow', slow }
      event = open_for(hinted(backoff(), extra), 'HALF_OPEN', 'PROBE_FAILED', extra)
      state = 'OPEN'
    else
      local ok = num('halfOpenSuccesses', 0) + 1
      if ok >= p.permits then
        set('state', 'CLOSED')
        set('openMillis', false)
        set('openUntil', false)
        event = transition('HALF_OPEN', 'CLOSED', 'PROBES_SUCCEEDED',
          { 'lease', lease, 'successes', ok, 'permits', p.permits })
        clear_window()
        state = 'CLOSED'
        wf, wc = 0, 0
      else
        set('halfOpenSuccesses', tostring(ok))
      end
    end
  end
elseif seen_gen ~= '' and seen_gen ~= gen then
  reason = 'STALE_GENERATION'
elseif state == 'CLOSED' or state == 'FORCED_CLOSED' or state == 'METRICS_ONLY' then
  accepted = 1
  local bucket_ms = math.max(1, math.floor(p.window / BUCKETS))
  local b = math.floor(NOW / bucket_ms)
  local b0 = num('winBucket', nil)
  local cf, cc = num('curFailures', 0), num('curCalls', 0)
  if b0 == nil or b < b0 or b - b0 >= BUCKETS then
    if wc > 0 then
      local ring = {}
      for i = 0, BUCKETS - 1 do ring[#ring + 1] = 'w' .. i end
      redis.call('HDEL', H, unpack(ring))
    end
    wf, wc, cf, cc = 0, 0, 0, 0
  elseif b > b0 then
    local expired = {}
    for k = b0 + 1, b do expired[#expired + 1] = 'w' .. (k % BUCKETS) end
    for _, v in ipairs(redis.call('HMGET', H, unpack(expired))) do
      if v then
        local f, c = string.match(v, '^(%d+):(%d+)$')
        wf, wc = wf - tonumber(f), wc - tonumber(c)
      end
    end
    redis.call('HDEL', H, unpack(expired))
    if cc > 0 then set('w' .. (b0 % BUCKETS), cf .. ':' .. cc) end
    cf, cc = 0, 0
  end
  cf, cc = cf + failures, cc + failures + successes
  wf, wc = wf + failures, wc + failures + successes
  set('winBucket', tostring(b))
  set('curFailures', tostring(cf))
  set('curCalls', tostring(cc))
  set('winFailures', tostring(wf))
  set('winCalls', tostring(wc))
  if state == 'CLOSED' and p.enabled and failures > 0 then
    local cause = nil
    if wf >= p.threshold then
      cause = 'FAILURE_THRESHOLD'
    elseif p.rate and wc >= p.minCalls and wf * 100 >= p.rate * wc then
      cause = 'FAILURE_RATE'
    end
    if cause then
      local extra = { 'failures', wf, 'calls', wc, 'threshold', p.threshold,
        'failureRate', p.rate or '', 'minimumCalls', p.minCalls, 'slow', slow }
      event = open_for(hinted(p.open, extra), 'CLOSED', cause, extra)
      state = 'OPEN'
      clear_window()
    end
  end
else
  reason = 'NOT_COUNTED'
end

-- a hint this outcome's own transition did not take: max(current end, now + capped hint)
if hint and event == '' and p.enabled and STORED[state] then
  local w = math.min(hint, p.maxOpen)
  if state ~= 'OPEN' or NOW + w > num('openUntil', 0) then
    local extra = { 'failures', wf, 'calls', wc }
    event = open_for(hinted(w, extra), state, 'BACKOFF_REQUESTED', extra)
    accepted = 1
    if state == 'CLOSED' then
      clear_window()
      wf, wc = 0, 0
    end
    state = 'OPEN'
  end
end

if hb then set('nodesPrunedAt', tostring(NOW)) end
flush()
if hb then
  hb.at = NOW
  redis.call('ZADD', NODES, NOW, NODE)
  redis.call('HSET', NODEINFO, NODE, cjson.encode(hb))
  local gone = redis.call('ZRANGEBYSCORE', NODES, '-inf', NOW - NODE_GONE, 'LIMIT', 0, 10)
  if #gone > 0 then
    redis.call('ZREM', NODES, unpack(gone))
    redis.call('HDEL', NODEINFO, unpack(gone))
  end
  if num('ttlAt', 0) ~= -1 then
    redis.call('PEXPIRE', NODES, IDLE_TTL)
    redis.call('PEXPIRE', NODEINFO, IDLE_TTL)
  end
end
return { state, wf, wc, event ~= '' and 1 or 0, B.generation, event, B.epoch, accepted, reason,
  num('openUntil', 0) }
