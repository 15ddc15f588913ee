package io.breakerctl.runtime.redis;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One operation a history client ({@link HistoryClient}) sent to a breaker's scripts and what it
 * saw: {@code acked} when an answer came back (its fields are then the answer's), else unknown (an
 * error or a timeout: the script may or may not have run, possibly later). {@link HistoryChecker}
 * reads these logs beside the breaker's stream and hash.
 *
 * <p>A line of a log is {@code HIST op=<kind> key=value ...} (values never hold spaces), so a child
 * JVM writes its log to stdout and the test parses it back with {@link #parse}.
 */
sealed interface HistoryOp
    permits HistoryOp.AcquireOp, HistoryOp.RecordOp, HistoryOp.RenewOp, HistoryOp.OverrideOp {

  /** The prefix of a log line. */
  String LINE = "HIST ";

  /** The client (its node id, the owner of its leases). */
  String client();

  /** Whether the client saw the answer. */
  boolean acked();

  /** The line this operation is logged as. */
  String line();

  /**
   * An acquire that named its lease ({@code asked}); the answer's fields when acked.
   *
   * @param lease the lease granted (reason PROBE), else empty
   * @param untilMillis Redis time the granted lease expires
   */
  record AcquireOp(
      String client,
      String asked,
      boolean acked,
      boolean allowed,
      String reason,
      String generation,
      String lease,
      long untilMillis,
      String epoch)
      implements HistoryOp {

    static AcquireOp unknown(String client, String asked) {
      return new AcquireOp(client, asked, false, false, "", "", "", 0, "");
    }

    /** Whether this acquire was answered with a probe lease. */
    boolean granted() {
      return acked && allowed && reason.equals("PROBE");
    }

    @Override
    public String line() {
      return format(
          "acquire",
          "client",
          client,
          "asked",
          asked,
          "acked",
          flag(acked),
          "allowed",
          flag(allowed),
          "reason",
          reason,
          "gen",
          generation,
          "lease",
          lease,
          "until",
          Long.toString(untilMillis),
          "epoch",
          epoch);
    }
  }

  /**
   * A record sent with {@code failures}, {@code successes}, the generation the call was admitted in
   * ({@code sentGeneration}, empty unknown) and a lease (empty none; with no counts a release); the
   * answer's fields when acked.
   *
   * @param generation the generation after the outcome, as answered
   */
  record RecordOp(
      String client,
      long failures,
      long successes,
      String sentGeneration,
      String lease,
      boolean acked,
      boolean accepted,
      String reason,
      boolean transitioned,
      String generation,
      String eventId,
      String epoch)
      implements HistoryOp {

    static RecordOp unknown(
        String client, long failures, long successes, String sentGeneration, String lease) {
      return new RecordOp(
          client, failures, successes, sentGeneration, lease, false, false, "", false, "", "", "");
    }

    /** Whether this record gives a lease back (a lease and no outcome). */
    boolean release() {
      return !lease.isEmpty() && failures == 0 && successes == 0;
    }

    /** Whether this record reports a probe's outcome under a lease. */
    boolean probeOutcome() {
      return !lease.isEmpty() && (failures > 0 || successes > 0);
    }

    @Override
    public String line() {
      return format(
          "record",
          "client",
          client,
          "f",
          Long.toString(failures),
          "s",
          Long.toString(successes),
          "sentGen",
          sentGeneration,
          "lease",
          lease,
          "acked",
          flag(acked),
          "accepted",
          flag(accepted),
          "reason",
          reason,
          "tr",
          flag(transitioned),
          "gen",
          generation,
          "event",
          eventId,
          "epoch",
          epoch);
    }
  }

  /**
   * A renewal of {@code lease} (a probe still running), granted in {@code sentGeneration}; the
   * answer's fields when acked.
   *
   * @param outcome RENEWED, PROBE_TIMED_OUT, LEASE_EXPIRED or STALE_LEASE
   * @param untilMillis Redis time: the renewed expiry (RENEWED), the reopened window's end
   *     (PROBE_TIMED_OUT)
   * @param generation the generation after, as answered
   */
  record RenewOp(
      String client,
      String lease,
      String sentGeneration,
      boolean acked,
      String outcome,
      long untilMillis,
      String generation,
      String epoch)
      implements HistoryOp {

    static RenewOp unknown(String client, String lease, String sentGeneration) {
      return new RenewOp(client, lease, sentGeneration, false, "", 0, "", "");
    }

    /** Whether this renewal was answered RENEWED. */
    boolean renewed() {
      return acked && outcome.equals("RENEWED");
    }

    /** Whether this renewal ended its probe as failed (a transition). */
    boolean timedOut() {
      return acked && outcome.equals("PROBE_TIMED_OUT");
    }

    @Override
    public String line() {
      return format(
          "renew",
          "client",
          client,
          "lease",
          lease,
          "sentGen",
          sentGeneration,
          "acked",
          flag(acked),
          "outcome",
          outcome,
          "until",
          Long.toString(untilMillis),
          "gen",
          generation,
          "epoch",
          epoch);
    }
  }

  /** An override action ({@code kind}: FORCED_OPEN, ..., CLEAR); the answer's fields when acked. */
  record OverrideOp(
      String client,
      String kind,
      boolean acked,
      boolean changed,
      String outcome,
      String generation,
      String eventId,
      String epoch)
      implements HistoryOp {

    static OverrideOp unknown(String client, String kind) {
      return new OverrideOp(client, kind, false, false, "", "", "", "");
    }

    @Override
    public String line() {
      return format(
          "override",
          "client",
          client,
          "kind",
          kind,
          "acked",
          flag(acked),
          "changed",
          flag(changed),
          "outcome",
          outcome,
          "gen",
          generation,
          "event",
          eventId,
          "epoch",
          epoch);
    }
  }

  /** Parses a log line written by {@link #line()}. */
  static HistoryOp parse(String line) {
    if (!line.startsWith(LINE)) {
      throw new IllegalArgumentException("not a history line: " + line);
    }
    Map<String, String> f = new HashMap<>();
    for (String kv : line.substring(LINE.length()).split(" ")) {
      int eq = kv.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("bad field '" + kv + "' in history line: " + line);
      }
      f.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    String op = get(f, "op", line);
    String client = get(f, "client", line);
    boolean acked = get(f, "acked", line).equals("1");
    switch (op) {
      case "acquire":
        return new AcquireOp(
            client,
            get(f, "asked", line),
            acked,
            get(f, "allowed", line).equals("1"),
            get(f, "reason", line),
            get(f, "gen", line),
            get(f, "lease", line),
            Long.parseLong(get(f, "until", line)),
            get(f, "epoch", line));
      case "record":
        return new RecordOp(
            client,
            Long.parseLong(get(f, "f", line)),
            Long.parseLong(get(f, "s", line)),
            get(f, "sentGen", line),
            get(f, "lease", line),
            acked,
            get(f, "accepted", line).equals("1"),
            get(f, "reason", line),
            get(f, "tr", line).equals("1"),
            get(f, "gen", line),
            get(f, "event", line),
            get(f, "epoch", line));
      case "renew":
        return new RenewOp(
            client,
            get(f, "lease", line),
            get(f, "sentGen", line),
            acked,
            get(f, "outcome", line),
            Long.parseLong(get(f, "until", line)),
            get(f, "gen", line),
            get(f, "epoch", line));
      case "override":
        return new OverrideOp(
            client,
            get(f, "kind", line),
            acked,
            get(f, "changed", line).equals("1"),
            get(f, "outcome", line),
            get(f, "gen", line),
            get(f, "event", line),
            get(f, "epoch", line));
      default:
        throw new IllegalArgumentException("unknown op in history line: " + line);
    }
  }

  private static String get(Map<String, String> f, String key, String line) {
    String v = f.get(key);
    if (v == null) {
      throw new IllegalArgumentException("no " + key + " in history line: " + line);
    }
    return v;
  }

  private static String flag(boolean b) {
    return b ? "1" : "0";
  }

  private static String format(String op, String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      String v = kv[i + 1] == null ? "" : kv[i + 1];
      if (v.contains(" ") || v.contains("\n")) {
        throw new IllegalArgumentException(kv[i] + " holds a space: '" + v + "'");
      }
      m.put(kv[i], v);
    }
    StringBuilder b = new StringBuilder(LINE).append("op=").append(op);
    m.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
    return b.toString();
  }
}
