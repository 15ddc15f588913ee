-- record.lua: records call outcomes and trips, closes or reopens the breaker.
--
-- ARGV[13] failures (count)   ARGV[14] successes (count; a node flushes its successes in batches)
-- ARGV[15] duration in ms of the one call reported ('' for batches): a call at least
--         slowCallMillis slow counts as a failure
-- ARGV[16] generation the caller was admitted in ('' unknown)   ARGV[17] probe lease id ('' none)
-- ARGV[18] the node's heartbeat as a JSON object ('' none): written with the node's batched flush
--          to KEYS[4]/KEYS[5] with the Redis time added as "at"; nodes silent for NODE_GONE are
--          pruned here (at most 10 per call), so there are no per-node keys to expire.
--
-- Returns {effectiveState, windowFailures, windowCalls, transitioned 0|1, generation, eventId,
--          epoch, accepted 0|1, reason, openUntil}.
--
-- The window is time-bucketed: BUCKETS buckets of windowMillis/BUCKETS. winFailures/winCalls are
-- maintained totals, curFailures/curCalls the newest bucket (number winBucket); older buckets
-- live in ring fields w0..w9 as "failures:calls" and are read only when the bucket number moves,
-- so the common path is TIME + HGETALL + HSET.
-- failuresTotal counts every failure received, counted in the window or not. A result from an
-- older generation (admitted before a trip or an override) changes no state. In HALF_OPEN only a
-- result carrying a live lease of this generation and owner counts: halfOpenPermits successes
-- close, one failure reopens with the open window doubled up to maxOpenMillis.

clock()
load()
local failures = tonumber(ARGV[13]) or 0
local successes = tonumber(ARGV[14]) or 0
local duration = tonumber(ARGV[15])
local seen_gen = ARGV[16] or ''
local lease = ARGV[17] or ''
if failures < 0 or successes < 0 then
  return redis.error_reply('ERR breakerctl record: counts must be >= 0')
end
local p = policy()
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

local function open_for(om, from, cause, extra)
  set('state', 'OPEN')
  set('openMillis', tostring(om))
  set('openUntil', tostring(NOW + om))
  set('openedAt', tostring(NOW))
  extra[#extra + 1] = 'openMillis'
  extra[#extra + 1] = om
  extra[#extra + 1] = 'until'
  extra[#extra + 1] = NOW + om
  event = transition(from, 'OPEN', cause, extra)
  state = 'OPEN'
end

if lease ~= '' then
  local member = lease .. '|' .. NODE
  local expiry = state == 'HALF_OPEN' and seen_gen == gen and redis.call('ZSCORE', LEASES, member)
  if not expiry then
    reason = 'STALE_LEASE'
  elseif tonumber(expiry) <= NOW then
    reason = 'LEASE_EXPIRED'
  else
    redis.call('ZREM', LEASES, member)
    accepted = 1
    if failures > 0 then
      open_for(math.min(num('openMillis', p.open) * 2, p.maxOpen), 'HALF_OPEN', 'PROBE_FAILED',
        { 'lease', lease, 'slow', slow })
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
      open_for(p.open, 'CLOSED', cause, { 'failures', wf, 'calls', wc, 'threshold', p.threshold,
        'failureRate', p.rate or '', 'minimumCalls', p.minCalls, 'slow', slow })
      clear_window()
    end
  end
else
  reason = 'NOT_COUNTED'
end

flush()
local beat = ARGV[18] or ''
if beat ~= '' then
  local ok, hb = pcall(cjson.decode, beat)
  if not ok or type(hb) ~= 'table' then
    return redis.error_reply('ERR breakerctl record: heartbeat is not a JSON object')
  end
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
