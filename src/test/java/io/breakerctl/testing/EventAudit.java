package io.breakerctl.testing;

import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.model.Transitions;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks every event the scripts wrote on a test Redis server against {@link Transitions}: every
 * stream named {@code *:ev} (a breaker's event stream, whatever the prefix), every entry. {@link
 * RedisServerProcess#close} runs it before it stops a server, so every integration test that starts
 * a server through the fixtures (standalone, cluster nodes, replicas, with or without {@link
 * RedisExtension}) has each event it caused checked, and fails when one is not a row of the table.
 *
 * <p>A server that does not answer at close (killed, paused, stopped by the test) cannot be read
 * and is skipped; the events it held are the ones the test's own assertions saw.
 */
public final class EventAudit {

  private static final int MAX_REPORTED = 20;
  private static final String PAGE = "1000";

  private EventAudit() {}

  /**
   * The events on {@code server} that are not legal transitions, as "key id from>to cause"; empty
   * when all are legal.
   *
   * @throws UncheckedIOException when the server cannot be read
   */
  public static List<String> illegalEvents(RedisServerProcess server) {
    List<String> bad = new ArrayList<>();
    String cursor = "0";
    do {
      List<?> page =
          (List<?>) server.call("SCAN", cursor, "MATCH", "*:ev", "COUNT", PAGE, "TYPE", "stream");
      cursor = String.valueOf(page.get(0));
      for (Object key : (List<?>) page.get(1)) {
        checkStream(server, String.valueOf(key), bad);
      }
    } while (!cursor.equals("0"));
    return bad;
  }

  /**
   * Fails when {@code server} holds an event that is not a legal transition.
   *
   * @throws IllegalStateException naming the first illegal events
   */
  static void assertLegal(RedisServerProcess server) {
    List<String> bad = illegalEvents(server);
    if (!bad.isEmpty()) {
      throw new IllegalStateException(
          "redis-server "
              + server
              + " holds "
              + bad.size()
              + " event(s) that are not rows of the transition table (Transitions): "
              + String.join("; ", bad.subList(0, Math.min(MAX_REPORTED, bad.size()))));
    }
  }

  private static void checkStream(RedisServerProcess server, String key, List<String> bad) {
    String start = "-";
    while (true) {
      List<?> entries = (List<?>) server.call("XRANGE", key, start, "+", "COUNT", PAGE);
      for (Object e : entries) {
        List<?> entry = (List<?>) e;
        String id = String.valueOf(entry.get(0));
        Map<String, String> f = fields((List<?>) entry.get(1));
        if (!legal(f)) {
          bad.add(key + " " + id + " " + f.get("from") + ">" + f.get("to") + " " + f.get("cause"));
        }
        start = "(" + id;
      }
      if (entries.size() < Integer.parseInt(PAGE)) {
        return;
      }
    }
  }

  private static Map<String, String> fields(List<?> flat) {
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      out.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
    }
    return out;
  }

  private static boolean legal(Map<String, String> f) {
    try {
      return Transitions.isLegal(
          State.fromCode(f.get("from")),
          State.fromCode(f.get("to")),
          TransitionCause.valueOf(f.get("cause")));
    } catch (RuntimeException e) {
      return false; // a missing or unknown state or cause
    }
  }
}
