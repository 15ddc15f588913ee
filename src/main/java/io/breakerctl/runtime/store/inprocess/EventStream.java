package io.breakerctl.runtime.store.inprocess;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerEvent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * One breaker's event stream as the scripts keep it without a history destination ({@code
 * append_event}: {@code XADD MAXLEN 100 *}): the newest {@link #RETAIN} events, each under the id
 * {@code XADD *} gives ({@code <ms>-<seq>}, never below the last one, so ids increase even when the
 * clock stands still or goes back). Its caller holds the store's command lock.
 */
final class EventStream {
  /** Events kept, as the scripts' {@code RETAIN}. */
  static final int RETAIN = 100;

  private final Deque<BreakerEvent> events = new ArrayDeque<>();
  private long lastMillis;
  private long lastSeq = -1;

  /** Appends an event of {@code id} at store time {@code nowMillis}; returns its stream id. */
  String append(BreakerId id, Map<String, String> fields, long nowMillis) {
    if (nowMillis > lastMillis) {
      lastMillis = nowMillis;
      lastSeq = 0;
    } else {
      lastSeq++;
    }
    String streamId = lastMillis + "-" + lastSeq;
    events.addLast(new BreakerEvent(id, streamId, Map.copyOf(fields)));
    while (events.size() > RETAIN) {
      events.removeFirst();
    }
    return streamId;
  }

  /** At most {@code count} events after {@code afterStreamId} (exclusive; "" for the start). */
  List<BreakerEvent> after(String afterStreamId, int count) {
    long[] after = afterStreamId == null || afterStreamId.isEmpty() ? null : parse(afterStreamId);
    List<BreakerEvent> out = new ArrayList<>();
    for (BreakerEvent e : events) {
      if (out.size() >= count) {
        break;
      }
      if (after == null || compare(parse(e.streamId()), after) > 0) {
        out.add(e);
      }
    }
    return out;
  }

  /** A stream id's two parts; {@code <ms>} alone is {@code <ms>-0}, as XRANGE reads it. */
  private static long[] parse(String streamId) {
    int dash = streamId.indexOf('-');
    try {
      return dash < 0
          ? new long[] {Long.parseLong(streamId), 0}
          : new long[] {
            Long.parseLong(streamId.substring(0, dash)),
            Long.parseLong(streamId.substring(dash + 1))
          };
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a stream id: " + streamId, e);
    }
  }

  private static int compare(long[] a, long[] b) {
    return a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]);
  }
}
