package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * {@link HistoryChecker} on hand-made histories: a correct one passes, and each rule fails on a
 * history that breaks only it (so each check is shown to fire), while the histories the scripts
 * allow and that look alike (a lease's slot granted again after its expiry or release, an unknown
 * outcome that may have counted) pass.
 */
@DisplayName("HistoryChecker")
class HistoryCheckerTest {

  private static final BreakerId ID = BreakerId.parse("svc:dep");
  private static final String EPOCH = "1700000000000000";

  private List<BreakerEvent> events;
  private Map<String, String> hash;
  private List<HistoryOp> ops;

  /**
   * The correct history: 4 failures trip (the 4th wins), the window ends, lease a.1 is granted at
   * Redis time 1000 (expiring 1300) and its success closes.
   */
  @BeforeEach
  void correctHistory() {
    events = new ArrayList<>();
    events.add(event("1-0", 1, "CLOSED", "OPEN", "FAILURE_THRESHOLD"));
    events.add(event("2-0", 2, "OPEN", "HALF_OPEN", "OPEN_WINDOW_ENDED"));
    events.add(
        event(
            "3-0", 3, "HALF_OPEN", "CLOSED", "PROBES_SUCCEEDED", "lease", "a.1", "successes", "1"));
    hash = new HashMap<>();
    hash.put("epoch", EPOCH);
    hash.put("generation", "3");
    hash.put("lastEvent", "3-0");
    hash.put("state", "CLOSED");
    hash.put("failuresTotal", "4");
    hash.put("successesTotal", "1");
    ops = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ops.add(record("a", 1, 0, "", "", true, "0", ""));
    }
    ops.add(record("a", 1, 0, "", "", true, "1", "1-0"));
    ops.add(grant("a", "a.1", "2", 1300));
    ops.add(record("a", 0, 1, "2", "a.1", true, "3", "3-0"));
  }

  private HistoryChecker.Verdict check(int permits) {
    return new HistoryChecker(permits, Duration.ofMillis(300)).check(events, hash, ops);
  }

  private List<String> violations() {
    return check(1).violations();
  }

  @Test
  @DisplayName("a correct history passes, with its grants and trips counted")
  void correctPasses() {
    HistoryChecker.Verdict v = check(1);
    assertThat(v.violations()).as(v.report()).isEmpty();
    assertThat(v.grants()).isEqualTo(1);
    assertThat(v.trips()).isEqualTo(1);
  }

  @Nested
  @DisplayName("the stream")
  class Stream {
    @Test
    @DisplayName("an illegal transition fails")
    void illegal() {
      events.set(0, event("1-0", 1, "CLOSED", "HALF_OPEN", "FAILURE_THRESHOLD"));
      assertThat(violations()).anyMatch(s -> s.contains("illegal transition CLOSED -> HALF_OPEN"));
    }

    @Test
    @DisplayName("an event whose from is not the previous event's to fails")
    void brokenChain() {
      events.set(1, event("2-0", 2, "CLOSED", "OPEN", "FAILURE_THRESHOLD"));
      assertThat(violations())
          .anyMatch(s -> s.contains("from CLOSED but the previous event 1-0 went to OPEN"));
    }

    @Test
    @DisplayName("a generation that does not increase fails")
    void generationRepeated() {
      events.set(1, event("2-0", 1, "OPEN", "HALF_OPEN", "OPEN_WINDOW_ENDED"));
      assertThat(violations()).anyMatch(s -> s.contains("generation 1 is not above"));
    }

    @Test
    @DisplayName("a generation gap (a lost event) fails")
    void generationGap() {
      events.remove(1);
      events.set(1, event("3-0", 3, "OPEN", "CLOSED", "PROBES_SUCCEEDED", "lease", "a.1"));
      assertThat(violations()).anyMatch(s -> s.contains("1 transition event(s) missing"));
    }

    @Test
    @DisplayName("a hash whose generation, last event or state is not the last event's fails")
    void hashDisagrees() {
      hash.put("generation", "4");
      hash.put("state", "OPEN");
      hash.put("eventsDropped", "2");
      assertThat(violations())
          .anyMatch(s -> s.startsWith("hash generation 4"))
          .anyMatch(s -> s.contains("hash state OPEN override null but the last event 3-0"))
          .anyMatch(s -> s.contains("eventsDropped 2"));
    }
  }

  @Nested
  @DisplayName("leases")
  class Leases {
    @Test
    @DisplayName("a second lease while the first is live fails with halfOpenPermits 1")
    void tooManyLive() {
      ops.add(grant("b", "b.1", "2", 1400));
      assertThat(violations())
          .anyMatch(
              s -> s.contains("lease b.1 granted at 1100 while 1 other lease(s) held a slot: a.1"));
      assertThat(check(2).violations()).noneMatch(s -> s.contains("held a slot"));
    }

    @Test
    @DisplayName("a lease whose success was accepted holds its slot for the rest of the generation")
    void successHoldsSlot() {
      ops.add(grant("b", "b.1", "2", 1900));
      assertThat(violations())
          .anyMatch(s -> s.contains("lease b.1 granted at 1600") && s.contains("succeeded"));
    }

    @Test
    @DisplayName("a slot granted again after the lease expired or was released passes")
    void slotReturns() {
      ops.set(5, record("a", 0, 0, "", "a.1", true, "2", "")); // released, not succeeded
      ops.add(grant("b", "b.1", "2", 1400)); // during a.1's lease, after its release
      ops.add(grant("c", "c.1", "2", 1700)); // b.1 expired at 1400
      ops.add(record("c", 0, 1, "2", "c.1", true, "3", "3-0"));
      events.set(
          2,
          event(
              "3-0",
              3,
              "HALF_OPEN",
              "CLOSED",
              "PROBES_SUCCEEDED",
              "lease",
              "c.1",
              "successes",
              "1"));
      HistoryChecker.Verdict v = check(1);
      assertThat(v.violations()).as(v.report()).isEmpty();
    }

    @Test
    @DisplayName("a renewed lease holds its slot past its first expiry: a grant then fails")
    void renewedLeaseHoldsSlot() {
      // a.1's holder gives it back at last, refused (its slot was not freed by it)
      ops.set(5, record("a", 0, 0, "", "a.1", false, "2", ""));
      ops.add(renew("a", "a.1", "2", "RENEWED", 1500, "2")); // renewed at 1200: until 1500
      ops.add(grant("b", "b.1", "2", 1700)); // at 1400: past a.1's grant expiry, not its renewal's
      assertThat(violations())
          .anyMatch(
              s ->
                  s.contains("lease b.1 granted at 1400")
                      && s.contains("a.1 (granted at 1000, expiring 1500"));
      ops.set(ops.size() - 1, grant("b", "b.1", "2", 1850)); // at 1550: the renewed lease expired
      assertThat(violations()).noneMatch(s -> s.contains("held a slot"));
    }

    @Test
    @DisplayName(
        "a renewal answered PROBE_TIMED_OUT needs its event; RENEWED stays in its generation")
    void renewalTimeout() {
      events.set(
          2,
          event(
              "3-0",
              3,
              "HALF_OPEN",
              "OPEN",
              "PROBE_TIMED_OUT",
              "lease",
              "a.1",
              "probeMillis",
              "500"));
      hash.put("state", "OPEN");
      hash.put("successesTotal", "0");
      ops.set(5, renew("a", "a.1", "2", "PROBE_TIMED_OUT", 1800, "3"));
      HistoryChecker.Verdict v = check(1);
      assertThat(v.violations()).as(v.report()).isEmpty();
      ops.set(5, renew("b", "b.1", "2", "PROBE_TIMED_OUT", 1800, "3"));
      assertThat(violations()).anyMatch(s -> s.contains("no PROBE_TIMED_OUT event naming it"));
      ops.set(5, renew("a", "a.1", "2", "RENEWED", 1500, "3"));
      assertThat(violations()).anyMatch(s -> s.contains("renewed in generation 3, not its own"));
    }

    @Test
    @DisplayName("a lease granted outside a half-open generation, or twice, or renamed fails")
    void grantedWrongly() {
      ops.add(grant("b", "b.1", "1", 500));
      ops.add(grant("a", "a.1", "2", 1300));
      ops.add(
          new HistoryOp.AcquireOp("c", "c.1", true, true, "PROBE", "2", "c.9", 1300 + 400, EPOCH));
      assertThat(violations())
          .anyMatch(s -> s.contains("lease b.1 granted in generation 1, which did not begin"))
          .anyMatch(s -> s.contains("lease a.1 granted twice"))
          .anyMatch(s -> s.contains("c asked for lease c.1 and was granted c.9"));
    }
  }

  @Nested
  @DisplayName("outcomes")
  class Outcomes {
    @Test
    @DisplayName("a lease's outcome accepted twice fails")
    void acceptedTwice() {
      ops.add(record("a", 0, 1, "2", "a.1", true, "3", ""));
      hash.put("successesTotal", "2");
      assertThat(violations()).anyMatch(s -> s.startsWith("lease a.1: accepted 2 times"));
    }

    @Test
    @DisplayName("a duplicate outcome answered STALE_LEASE passes")
    void duplicateRejected() {
      ops.add(
          new HistoryOp.RecordOp(
              "a", 0, 1, "2", "a.1", true, false, "STALE_LEASE", false, "3", "", EPOCH));
      hash.put("successesTotal", "2");
      HistoryChecker.Verdict v = check(1);
      assertThat(v.violations()).as(v.report()).isEmpty();
    }

    @Test
    @DisplayName("two events naming one lease, or a lease nobody asked for, fail")
    void eventsNameLease() {
      events.add(event("4-0", 4, "CLOSED", "OPEN", "FAILURE_THRESHOLD"));
      events.add(event("5-0", 5, "OPEN", "HALF_OPEN", "OPEN_WINDOW_ENDED"));
      events.add(event("6-0", 6, "HALF_OPEN", "OPEN", "PROBE_FAILED", "lease", "a.1"));
      events.add(event("7-0", 7, "OPEN", "HALF_OPEN", "OPEN_WINDOW_ENDED"));
      events.add(event("8-0", 8, "HALF_OPEN", "OPEN", "PROBE_FAILED", "lease", "z.1"));
      hash.put("generation", "8");
      hash.put("lastEvent", "8-0");
      hash.put("state", "OPEN");
      assertThat(violations())
          .anyMatch(s -> s.equals("lease a.1's outcome applied twice: events 3-0 and 6-0"))
          .anyMatch(s -> s.contains("names lease z.1, which no client asked for"));
    }

    @Test
    @DisplayName("an accepted probe failure that did not reopen fails")
    void failureMustReopen() {
      ops.set(5, record("a", 1, 0, "2", "a.1", true, "2", ""));
      hash.put("failuresTotal", "5");
      hash.put("successesTotal", "0");
      assertThat(violations())
          .anyMatch(s -> s.contains("its failed probe was accepted without a PROBE_FAILED event"));
    }

    @Test
    @DisplayName("a close after fewer than halfOpenPermits successes fails")
    void closeCountsPermits() {
      assertThat(check(2).violations())
          .anyMatch(s -> s.contains("closed after 1 probe successes (halfOpenPermits 2)"));
    }
  }

  @Nested
  @DisplayName("answers")
  class Answers {
    @Test
    @DisplayName("a transition answered but missing from the stream fails")
    void lostEvent() {
      ops.add(record("b", 1, 0, "", "", true, "3", "9-0"));
      hash.put("failuresTotal", "5");
      assertThat(violations()).anyMatch(s -> s.contains("event 9-0 (generation 3), which the"));
    }

    @Test
    @DisplayName("one transition won by two callers fails")
    void twoWinners() {
      ops.add(record("b", 1, 0, "", "", true, "1", "1-0"));
      hash.put("failuresTotal", "5");
      assertThat(violations()).anyMatch(s -> s.startsWith("event 1-0 won by two callers"));
    }

    @Test
    @DisplayName("an answer from another epoch or beyond the last generation fails")
    void answerElsewhere() {
      ops.add(new HistoryOp.AcquireOp("b", "b.1", true, true, "CLOSED", "7", "", 0, "1111111111"));
      assertThat(violations())
          .anyMatch(s -> s.contains("answered in epoch 1111111111"))
          .anyMatch(s -> s.contains("answered generation 7, beyond the stream's last 3"));
    }
  }

  @Nested
  @DisplayName("totals")
  class Totals {
    @Test
    @DisplayName("fewer than acknowledged (lost) fails")
    void lost() {
      hash.put("failuresTotal", "3");
      assertThat(violations())
          .anyMatch(
              s -> s.equals("failuresTotal 3 is below the 4 the clients saw acknowledged: 1 lost"));
    }

    @Test
    @DisplayName("more than acknowledged plus unknown (counted twice) fails")
    void countedTwice() {
      hash.put("successesTotal", "3");
      ops.add(HistoryOp.RecordOp.unknown("b", 0, 1, "", ""));
      assertThat(violations())
          .anyMatch(
              s ->
                  s.equals(
                      "successesTotal 3 is above acknowledged 1 + unknown 1: 1 counted twice (or"
                          + " from nowhere)"));
    }

    @Test
    @DisplayName("an unknown outcome may or may not have counted")
    void unknownEitherWay() {
      ops.add(HistoryOp.RecordOp.unknown("b", 0, 2, "", ""));
      assertThat(violations()).isEmpty();
      hash.put("successesTotal", "3");
      assertThat(violations()).isEmpty();
    }
  }

  @Test
  @DisplayName("a log line parses back to the operation")
  void linesRoundTrip() {
    for (HistoryOp op : ops) {
      assertThat(HistoryOp.parse(op.line())).isEqualTo(op);
    }
    HistoryOp o =
        new HistoryOp.OverrideOp("op", "FORCED_OPEN", true, true, "SET", "4", "4-0", EPOCH);
    assertThat(HistoryOp.parse(o.line())).isEqualTo(o);
    assertThat(HistoryOp.parse(HistoryOp.AcquireOp.unknown("c", "c.3").line()))
        .isEqualTo(HistoryOp.AcquireOp.unknown("c", "c.3"));
  }

  private static BreakerEvent event(
      String streamId, long generation, String from, String to, String cause, String... extra) {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("epoch", EPOCH);
    f.put("from", from);
    f.put("to", to);
    f.put("cause", cause);
    f.put("generation", Long.toString(generation));
    f.put("node", "n");
    f.put("at", "0");
    if (cause.equals("PROBES_SUCCEEDED") && extra.length < 4) {
      f.put("successes", "1");
    }
    for (int i = 0; i < extra.length; i += 2) {
      f.put(extra[i], extra[i + 1]);
    }
    return new BreakerEvent(ID, streamId, Map.copyOf(f));
  }

  /** An acknowledged grant of {@code lease} in {@code generation}, expiring at {@code until}. */
  private static HistoryOp.AcquireOp grant(
      String client, String lease, String generation, long until) {
    return new HistoryOp.AcquireOp(
        client, lease, true, true, "PROBE", generation, lease, until, EPOCH);
  }

  /**
   * An acknowledged record, accepted (COUNTED or RELEASED), answered at {@code generation}; it won
   * the transition {@code eventId} when that is not empty.
   */
  private static HistoryOp.RenewOp renew(
      String client, String lease, String sentGen, String outcome, long until, String gen) {
    return new HistoryOp.RenewOp(client, lease, sentGen, true, outcome, until, gen, EPOCH);
  }

  private static HistoryOp.RecordOp record(
      String client,
      long failures,
      long successes,
      String sentGeneration,
      String lease,
      boolean accepted,
      String generation,
      String eventId) {
    boolean release = !lease.isEmpty() && failures == 0 && successes == 0;
    return new HistoryOp.RecordOp(
        client,
        failures,
        successes,
        sentGeneration,
        lease,
        true,
        accepted,
        release ? "RELEASED" : "COUNTED",
        !eventId.isEmpty(),
        generation,
        eventId,
        EPOCH);
  }
}
