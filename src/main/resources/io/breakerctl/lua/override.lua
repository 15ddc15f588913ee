-- override.lua: sets, changes or clears an operator override.
--
-- ARGV[1] is the actor. ARGV[4] FORCED_OPEN | FORCED_CLOSED | DISABLED | METRICS_ONLY | CLEAR
-- ARGV[5] reason   ARGV[6] duration in ms (0 or '' = until cleared)   ARGV[7] correlation id
-- ARGV[8] '1' = keep: when the same override, set by the same actor with the same reason, is in
--         force, change nothing (UNCHANGED, its expiry kept); otherwise ('' or absent) update it
--
-- Returns {changed 0|1, effectiveState, outcome, eventId, generation, epoch, previousState,
--          overrideUntil (Redis ms, 0 = until cleared or none)}
-- outcome: SET | UPDATED | UNCHANGED | CLEARED | NOT_OVERRIDDEN.
-- Works on a breaker no node has used yet (creates its keys): that is how an operator pre-empts
-- an incident. Every change appends one event carrying actor, reason, expiry and correlation id,
-- so the audit rides in the stream when MongoDB is down. The other scripts enforce the override
-- and record its expiry (prelude settle()).

clock()
load()
ensure_created()
local kind, reason, corr = ARGV[4], ARGV[5] or '', ARGV[7] or ''
local duration = tonumber(ARGV[6]) or 0
if kind ~= 'CLEAR' and kind ~= 'FORCED_OPEN' and kind ~= 'FORCED_CLOSED' and kind ~= 'DISABLED'
    and kind ~= 'METRICS_ONLY' then
  return redis.error_reply('ERR breakerctl override: unknown override ' .. tostring(kind))
end
if duration < 0 then
  return redis.error_reply('ERR breakerctl override: duration must be >= 0')
end
local state = settle()
local previous = state

if kind == 'CLEAR' then
  if not B.override then
    flush()
    return { 0, state, 'NOT_OVERRIDDEN', '', B.generation, B.epoch, previous, 0 }
  end
  local was = B.override
  local extra = { 'actor', NODE, 'reason', reason, 'correlationId', corr,
    'previousActor', B.overrideActor or '' }
  local to = end_override()
  local ev = transition(was, to, 'OVERRIDE_CLEARED', extra)
  flush()
  return { 1, to, 'CLEARED', ev, B.generation, B.epoch, previous, 0 }
end

if ARGV[8] == '1' and B.override == kind and (B.overrideActor or '') == NODE
    and (B.overrideReason or '') == reason then
  flush()
  return { 0, state, 'UNCHANGED', '', B.generation, B.epoch, previous, num('overrideUntil', 0) }
end

local until_ms = 0
if duration > 0 then until_ms = NOW + duration end
local cause, outcome = 'OVERRIDE_SET', 'SET'
if B.override == kind then cause, outcome = 'OVERRIDE_UPDATED', 'UPDATED' end
set('override', kind)
set('overrideUntil', tostring(until_ms))
set('overrideActor', NODE)
set('overrideReason', reason)
set('overrideAt', tostring(NOW))
set('overrideCorrelationId', corr)
local ev = transition(state, kind, cause, { 'actor', NODE, 'reason', reason,
  'correlationId', corr, 'until', until_ms })
flush()
return { 1, kind, outcome, ev, B.generation, B.epoch, previous, until_ms }
