package io.breakerctl.cli.output;

import io.breakerctl.runtime.store.BreakerHistory.Destination;
import io.breakerctl.runtime.store.BreakerHistory.Held;
import io.breakerctl.runtime.store.HistoryTotals;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Where history goes and what holds keys in Redis, as text: the {@code describe} lines, the {@code
 * status -o wide} cells and the totals {@code status} and {@code doctor} print.
 */
public final class HistoryText {

  private HistoryText() {}

  /** The describe lines of one breaker. */
  static void describe(BreakerView.History h, Style style, long now, PrintWriter out) {
    if (h == null) {
      return;
    }
    out.println("History:       " + destination(h, style, now));
    out.println(
        "Stream:        "
            + (h.streamLength() == null ? "length not recorded" : h.streamLength() + " events"));
    if (h.eventsExpired() > 0) {
      out.println(
          "Expired unforwarded: "
              + h.eventsExpired()
              + " events (given up when their hold ended, last "
              + style.time(millis(h.expiredAt()), now)
              + ")");
    }
    out.println(
        "Keys held:     "
            + (h.held() == null
                ? "no (they expire after the idle TTL without use)"
                : h.held() + " since " + style.time(millis(h.heldSince()), now)));
  }

  private static String destination(BreakerView.History h, Style style, long now) {
    return switch (h.destination()) {
      case "forwarded" -> "forwarded to the control plane";
      case "not-kept" -> "not kept (no control plane: the stream keeps its newest 100 events)";
      case "waiting" ->
          "waiting for the forwarder: "
              + h.unforwarded()
              + " events since "
              + style.time(millis(h.waitingSince()), now)
              + ", held until "
              + style.time(millis(h.holdUntil()), now);
      default ->
          "waiting past the hold: "
              + h.unforwarded()
              + " events since "
              + style.time(millis(h.waitingSince()), now)
              + ", hold ended "
              + style.time(millis(h.holdUntil()), now)
              + " (given up at the next write, else they expire with the keys)";
    };
  }

  /** The status -o wide HISTORY cell: destination, waiting events and their age, expired. */
  static String cell(BreakerView.History h, long now) {
    if (h == null) {
      return "-";
    }
    String s = h.destination();
    if (h.unforwarded() > 0) {
      s += " " + h.unforwarded() + " " + Style.age(Math.max(0, now - millis(h.waitingSince())));
    }
    if (h.eventsExpired() > 0) {
      s += " expired " + h.eventsExpired();
    }
    return s;
  }

  /** The status -o wide HELD cell. */
  static String heldCell(BreakerView.History h) {
    return h == null || h.held() == null ? "-" : h.held();
  }

  /**
   * The totals on one line: breakers per destination, stream events, keys held past the idle TTL by
   * reason, events lost unforwarded.
   */
  public static String totals(HistoryTotals t, long now) {
    List<String> parts = new ArrayList<>();
    parts.add(
        t.count(Destination.FORWARDED)
            + " forwarded, "
            + t.count(Destination.NOT_KEPT)
            + " not kept, "
            + (t.count(Destination.WAITING) + t.count(Destination.EXPIRING))
            + " waiting"
            + (t.oldestWaitingMillis() > 0
                ? " (" + t.unforwarded() + " events, oldest " + age(t, now) + ")"
                : ""));
    parts.add("streams " + t.streamEvents() + " events");
    List<String> held = new ArrayList<>();
    for (Held reason : Held.values()) {
      if (reason != Held.NONE && t.held(reason) > 0) {
        held.add(t.held(reason) + " " + reason);
      }
    }
    parts.add("keys held: " + (held.isEmpty() ? "none" : String.join(", ", held)));
    if (t.eventsExpired() > 0) {
      parts.add(
          "expired unforwarded: "
              + t.eventsExpired()
              + " events of "
              + t.breakersExpired()
              + " breaker(s)");
    }
    if (t.eventsDropped() > 0) {
      parts.add("dropped by the stream cap: " + t.eventsDropped() + " events");
    }
    return "History: " + String.join("; ", parts);
  }

  /** How long the oldest waiting event has waited. */
  public static String age(HistoryTotals t, long now) {
    return Style.age(Math.max(0, now - t.oldestWaitingMillis()));
  }

  private static long millis(String rfc3339) {
    return rfc3339 == null ? 0 : Instant.parse(rfc3339).toEpochMilli();
  }
}
