-- restore.lua: rebuilds a breaker's keys from the control plane's history after Redis lost them
-- (FLUSHALL, a failover to an empty or stale replica), as one new incarnation (a new epoch).
--
-- ARGV[1] the actor
-- ARGV[4] stored machine state (CLOSED | OPEN | HALF_OPEN)   ARGV[5] openUntil (ms, 0 none)
-- ARGV[6] openMillis (the open window's length, for the probe-failure backoff; '' none)
-- ARGV[7] live override ('' none)   ARGV[8] overrideUntil (ms, 0 = until cleared)
-- ARGV[9] override actor   ARGV[10] override reason   ARGV[11] override correlation id
-- ARGV[12] source epoch   ARGV[13] source stream id: the newest transition in history
-- ARGV[14] source Redis time (ms) of that transition   ARGV[15] its generation
-- ARGV[16] reason   ARGV[17] correlation id of the restore
--
-- Returns {restored 0|1, outcome, effectiveState, epoch, eventId, generation, previousEpoch}
-- outcome:
--   INTACT            the keys hold the source transition's incarnation, not behind it
--   ALREADY_RESTORED  a restore from the same source transition already ran (idempotent)
--   MOVED_ON          the keys hold a transition at or after the source's time: the breaker
--                     moved on since the loss and is never set back
--   RESTORED          the keys now hold the history's state under a new epoch
-- Keys a node re-created after the loss without a transition (counting calls, warming a
-- policy) are rebuilt; their window counts start again. The restore appends one RESTORED event
-- (stored state, open window, override with its expiry, source) and publishes it like every
-- transition, so running nodes adopt the new incarnation without restart. Time comes only from
-- TIME (clock()); an override's expiry and an open window's end stay the absolute Redis times the
-- history recorded, so the remaining time is what is left of them. The new incarnation starts
-- with no loss counted (eventsDropped, eventsExpired) and declares a history destination (see
-- "History destination" in the prelude), so its RESTORED event is marked for the forwarder.

clock()
load()
local stored, open_until, open_ms = ARGV[4], tonumber(ARGV[5]) or 0, ARGV[6] or ''
local override, override_until = ARGV[7] or '', tonumber(ARGV[8]) or 0
local src_epoch, src_id, src_at = ARGV[12], ARGV[13], tonumber(ARGV[14])
local src_gen = tonumber(ARGV[15]) or 0
local reason, corr = ARGV[16] or '', ARGV[17] or ''
if stored ~= 'CLOSED' and stored ~= 'OPEN' and stored ~= 'HALF_OPEN' then
  return redis.error_reply('ERR breakerctl restore: bad stored state ' .. tostring(stored))
end
if override ~= '' and override ~= 'FORCED_OPEN' and override ~= 'FORCED_CLOSED'
    and override ~= 'DISABLED' and override ~= 'METRICS_ONLY' then
  return redis.error_reply('ERR breakerctl restore: bad override ' .. tostring(override))
end
if not string.match(src_id or '', '^%d+%-%d+$') or not src_at or (src_epoch or '') == '' then
  return redis.error_reply('ERR breakerctl restore: bad source transition')
end
local source = src_epoch .. '|' .. src_id
local previous = B.epoch or ''
if B.epoch == src_epoch and not stream_id_less(B.lastEvent or '0-0', src_id) then
  return { 0, 'INTACT', effective(), previous, '', B.generation or '0', previous }
end
if B.restoredFrom == source then
  return { 0, 'ALREADY_RESTORED', effective(), previous, '', B.generation or '0', previous }
end
if B.lastTransitionAt and tonumber(B.lastTransitionAt) >= src_at then
  return { 0, 'MOVED_ON', effective(), previous, '', B.generation or '0', previous }
end

local before = effective()
local usec = tonumber(NOW_USEC)
local epoch = NOW_SEC .. string.format('%06d', usec)
if epoch == previous then epoch = NOW_SEC .. string.format('%06d', usec + 1) end
set('epoch', epoch)
set('generation', tostring(math.max(num('generation', 0), src_gen)))
set('state', stored)
if stored == 'OPEN' then
  set('openUntil', tostring(open_until))
  set('openedAt', tostring(NOW))
else
  set('openUntil', false)
  set('openedAt', false)
end
if open_ms ~= '' then set('openMillis', open_ms) else set('openMillis', false) end
if override ~= '' then
  set('override', override)
  set('overrideUntil', tostring(override_until))
  set('overrideActor', ARGV[9] or '')
  set('overrideReason', ARGV[10] or '')
  set('overrideAt', tostring(NOW))
  set('overrideCorrelationId', ARGV[11] or '')
else
  for _, f in ipairs({'override', 'overrideUntil', 'overrideActor', 'overrideReason',
      'overrideAt', 'overrideCorrelationId'}) do
    set(f, false)
  end
end
set('eventsDropped', false)
set('eventsExpired', false)
set('expiredAt', false)
-- rebuilt from the control plane's history: this breaker's history has a destination (the hold
-- stays the one declared before, else the default)
if B.history ~= 'forward' then set('history', 'forward') end
set('restoredFrom', source)
set('restoredAt', tostring(NOW))
clear_window()
local to = effective()
local until_ms = 0
if override ~= '' then until_ms = override_until elseif stored == 'OPEN' then until_ms = open_until end
local ev = transition(before, to, 'RESTORED', { 'actor', NODE, 'reason', reason,
  'correlationId', corr, 'stored', stored, 'openUntil', open_until, 'openMillis', open_ms,
  'override', override, 'overrideUntil', override_until, 'overrideActor', ARGV[9] or '',
  'overrideReason', ARGV[10] or '', 'overrideCorrelationId', ARGV[11] or '', 'until', until_ms,
  'restoredFrom', source, 'previousEpoch', previous })
flush()
return { 1, 'RESTORED', to, epoch, ev, B.generation, previous }
