package io.breakerctl.runtime.control.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Replay's fold of one breaker's history (no server)")
class BreakerFoldTest {

  static final BreakerId ID = BreakerId.parse("fold:dep");
  static final String E1 = "1000000000"; // keys created at 1,000,000 ms (epoch in µs)
  static final String E2 = "1100000000"; // re-created at 1,100,000 ms

  private static ReplayStep step(
      String epoch, long at, String from, String to, String cause, String... extra) {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("epoch", epoch);
    f.put("from", from);
    f.put("to", to);
    f.put("cause", cause);
    f.put("at", Long.toString(at));
    for (int i = 0; i < extra.length; i += 2) {
      f.put(extra[i], extra[i + 1]);
    }
    return ReplayStep.of(new BreakerEvent(ID, at + "-0", f));
  }

  /** Trip at 1,001,000 (open until 1,002,000), force open at 1,001,500 until 1,003,000. */
  private static List<ReplayStep> history() {
    return List.of(
        step(
            E1,
            1_001_000,
            "CLOSED",
            "OPEN",
            "FAILURE_THRESHOLD",
            "until",
            "1002000",
            "openMillis",
            "1000"),
        step(E1, 1_001_500, "OPEN", "FORCED_OPEN", "OVERRIDE_SET", "until", "1003000"));
  }

  private static State at(List<ReplayStep> steps, long t) {
    BreakerFold f = new BreakerFold(ID, t);
    steps.forEach(f::offer);
    return f.state(t).map(ReplayState::state).orElse(null);
  }

  @Test
  @DisplayName("an override in force, then expired without a script: the window's end decides")
  void overrideExpiry() {
    assertThat(at(history(), 1_000_500))
        .as("keys exist, no transition yet")
        .isEqualTo(State.CLOSED);
    assertThat(at(history(), 1_001_200)).isEqualTo(State.OPEN);
    assertThat(at(history(), 1_002_500)).isEqualTo(State.FORCED_OPEN);
    assertThat(at(history(), 1_003_000))
        .as("override expired, window ended")
        .isEqualTo(State.HALF_OPEN);
    assertThat(at(history(), 999_000)).as("before the keys existed").isNull();
  }

  @Test
  @DisplayName("a back-off hint's window (opened, then lengthened) is replayed to its end")
  void backoffHint() {
    List<ReplayStep> steps =
        List.of(
            step(
                E1,
                1_001_000,
                "CLOSED",
                "OPEN",
                "BACKOFF_REQUESTED",
                "until",
                "1008000",
                "openMillis",
                "7000",
                "hintMillis",
                "7000",
                "hintSource",
                "RETRY_AFTER"),
            step(
                E1,
                1_002_000,
                "OPEN",
                "OPEN",
                "BACKOFF_REQUESTED",
                "until",
                "1012000",
                "openMillis",
                "10000",
                "hintMillis",
                "10000",
                "hintSource",
                "GRPC_PUSHBACK"));
    assertThat(at(steps, 1_007_999)).isEqualTo(State.OPEN);
    assertThat(at(steps, 1_011_999)).as("the lengthened window").isEqualTo(State.OPEN);
    assertThat(at(steps, 1_012_000)).isEqualTo(State.HALF_OPEN);
  }

  @Test
  @DisplayName("documents may come in any order")
  void orderIndependent() {
    List<ReplayStep> reversed = new ArrayList<>(history());
    Collections.reverse(reversed);

    for (long t : new long[] {1_001_200, 1_002_500, 1_003_000}) {
      assertThat(at(reversed, t)).isEqualTo(at(history(), t));
    }
  }

  @Test
  @DisplayName("keys re-created after the newest transition read CLOSED without override")
  void recreated() {
    List<ReplayStep> steps = new ArrayList<>(history());
    steps.add(step(E2, 1_200_000, "CLOSED", "FORCED_CLOSED", "OVERRIDE_SET", "until", "0"));

    assertThat(at(steps, 1_050_000)).isEqualTo(State.HALF_OPEN);
    assertThat(at(steps, 1_150_000))
        .as("E2 exists, its first event is later")
        .isEqualTo(State.CLOSED);
    assertThat(at(steps, 1_250_000)).isEqualTo(State.FORCED_CLOSED);
  }

  @Test
  @DisplayName("a cleared override resumes the open window the trip set; a restore carries its own")
  void clearedAndRestored() {
    List<ReplayStep> steps = new ArrayList<>(history());
    steps.add(step(E1, 1_001_700, "FORCED_OPEN", "OPEN", "OVERRIDE_CLEARED"));
    assertThat(at(steps, 1_001_800)).isEqualTo(State.OPEN);
    assertThat(at(steps, 1_002_000)).isEqualTo(State.HALF_OPEN);

    steps.add(
        step(
            E2,
            1_100_001,
            "CLOSED",
            "DISABLED",
            "RESTORED",
            "stored",
            "OPEN",
            "openUntil",
            "1100500",
            "override",
            "DISABLED",
            "overrideUntil",
            "1100300",
            "until",
            "1100300"));
    assertThat(at(steps, 1_100_100)).isEqualTo(State.DISABLED);
    assertThat(at(steps, 1_100_400)).isEqualTo(State.OPEN);
    assertThat(at(steps, 1_100_600)).isEqualTo(State.HALF_OPEN);
  }

  /**
   * A REASSERTED event puts back what Redis lost: to an override it sets the override (the machine
   * state stays what it was), to OPEN it is a trip with its window. Read as a machine state, the
   * override became the stored state and restore refused it (DocExamplesIT: exit 2, "stored state
   * must be a machine state but was FORCED_OPEN").
   */
  @Test
  @DisplayName(
      "a re-asserted override is an override over the machine state; a re-asserted trip opens")
  void reasserted() {
    List<ReplayStep> steps =
        List.of(
            step(E1, 1_001_000, "CLOSED", "OPEN", "FAILURE_THRESHOLD", "until", "1002000"),
            step(E1, 1_001_200, "OPEN", "FORCED_OPEN", "REASSERTED", "until", "1009000"));
    BreakerFold f = new BreakerFold(ID, 1_001_500);
    steps.forEach(f::offer);
    ReplayState s = f.state(1_001_500).orElseThrow();
    assertThat(s.state()).isEqualTo(State.FORCED_OPEN);
    assertThat(s.stored()).as("the machine state underneath").isEqualTo(State.OPEN);
    assertThat(s.override()).contains(State.FORCED_OPEN);
    assertThat(s.overrideUntilMillis()).isEqualTo(1_009_000);

    List<ReplayStep> trip =
        List.of(step(E2, 1_100_500, "CLOSED", "OPEN", "REASSERTED", "until", "1101500"));
    BreakerFold t = new BreakerFold(ID, 1_100_600);
    trip.forEach(t::offer);
    ReplayState open = t.state(1_100_600).orElseThrow();
    assertThat(open.stored()).isEqualTo(State.OPEN);
    assertThat(open.openUntilMillis()).as("the re-asserted window").isEqualTo(1_101_500);
    assertThat(open.state()).isEqualTo(State.OPEN);
  }
}
