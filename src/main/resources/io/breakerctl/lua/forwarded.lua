-- forwarded.lua: advances the forwarded cursor once events up to a stream id are stored durably
-- (MongoDB history), trims the stream, and lets the keys expire again when nothing pins them.
--
-- ARGV[4] epoch the events belong to   ARGV[5] last stream id stored
--
-- Returns {advanced 0|1, forwarded, lastEvent, epoch}. The cursor never moves backwards nor past
-- the last event, and an ack for another epoch (the keys were re-created) changes nothing. The
-- stream keeps at most RETAIN forwarded events as a tail for readers; unforwarded events are never
-- trimmed here. Once `forwarded` reaches `lastEvent` the unforwarded marker (KEYS[6], see the
-- prelude) is deleted; a marker left without a breaker hash (its keys deleted by hand) is deleted
-- by any ack.
--
-- History destination (prelude): an ack declares that this breaker's history is forwarded
-- (`history` = forward, `historyHold` the caller's hold, else the one stored, else 7 days), and
-- keeps unfwdSince/unfwdCount (the oldest unforwarded event's Redis ms, how many remain) and
-- streamLength true for readers and for the hold. A stream lost on its own (evicted) with events
-- the forwarder had not stored is counted here (count_lost_stream in the prelude): any ack finds
-- it, the forwarder's ack of its cursor when the stream answers nothing past it included.

clock()
load()
local epoch, upto = ARGV[4], ARGV[5]
if not B.epoch then
  if UNFWD then redis.call('DEL', UNFWD) end
  return { 0, '', '', '' }
end
if B.epoch ~= epoch then
  return { 0, B.forwarded or '', B.lastEvent or '', B.epoch or '' }
end
if not string.match(upto or '', '^%d+%-%d+$') then
  return redis.error_reply('ERR breakerctl forwarded: bad stream id ' .. tostring(upto))
end
if not DECLARED_HOLD and B.history ~= 'forward' then
  set('history', 'forward')
  if not B.historyHold then set('historyHold', tostring(DEFAULT_HOLD)) end
end
count_lost_stream(redis.call('XLEN', EV))
local last = B.lastEvent or '0-0'
if stream_id_less(last, upto) then upto = last end
local advanced = 0
if stream_id_less(B.forwarded or '0-0', upto) then
  set('forwarded', upto)
  advanced = 1
  if redis.call('XLEN', EV) > RETAIN then
    local tail = redis.call('XREVRANGE', EV, '+', '-', 'COUNT', RETAIN)
    local boundary = tail[#tail][1]
    local minid = upto
    if stream_id_less(boundary, upto) then minid = boundary end
    redis.call('XTRIM', EV, 'MINID', minid)
  end
  set('streamLength', tostring(redis.call('XLEN', EV)))
  if upto == last then
    set('unfwdSince', false)
    set('unfwdCount', false)
  else
    local rest = redis.call('XRANGE', EV, '(' .. upto, '+')
    set('unfwdCount', tostring(#rest))
    if #rest > 0 then set('unfwdSince', string.match(rest[1][1], '^(%d+)')) end
  end
end
if UNFWD and (B.forwarded or '') == (B.lastEvent or '') then redis.call('DEL', UNFWD) end
flush()
return { advanced, B.forwarded or '', B.lastEvent or '', B.epoch }
