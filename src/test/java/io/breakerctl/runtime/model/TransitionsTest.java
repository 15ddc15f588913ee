package io.breakerctl.runtime.model;

import static io.breakerctl.runtime.model.State.CLOSED;
import static io.breakerctl.runtime.model.State.DISABLED;
import static io.breakerctl.runtime.model.State.FORCED_CLOSED;
import static io.breakerctl.runtime.model.State.FORCED_OPEN;
import static io.breakerctl.runtime.model.State.HALF_OPEN;
import static io.breakerctl.runtime.model.State.METRICS_ONLY;
import static io.breakerctl.runtime.model.State.OPEN;
import static io.breakerctl.runtime.model.TransitionCause.BACKOFF_REQUESTED;
import static io.breakerctl.runtime.model.TransitionCause.FAILURE_RATE;
import static io.breakerctl.runtime.model.TransitionCause.FAILURE_THRESHOLD;
import static io.breakerctl.runtime.model.TransitionCause.OPEN_WINDOW_ENDED;
import static io.breakerctl.runtime.model.TransitionCause.OVERRIDE_CLEARED;
import static io.breakerctl.runtime.model.TransitionCause.OVERRIDE_EXPIRED;
import static io.breakerctl.runtime.model.TransitionCause.OVERRIDE_SET;
import static io.breakerctl.runtime.model.TransitionCause.OVERRIDE_UPDATED;
import static io.breakerctl.runtime.model.TransitionCause.PROBES_SUCCEEDED;
import static io.breakerctl.runtime.model.TransitionCause.PROBE_FAILED;
import static io.breakerctl.runtime.model.TransitionCause.PROBE_TIMED_OUT;
import static io.breakerctl.runtime.model.TransitionCause.REASSERTED;
import static io.breakerctl.runtime.model.TransitionCause.RESTORED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("Transitions")
class TransitionsTest {

  private static final List<State> MACHINE = List.of(CLOSED, OPEN, HALF_OPEN);
  private static final List<State> OVERRIDES =
      List.of(FORCED_OPEN, FORCED_CLOSED, DISABLED, METRICS_ONLY);

  private record Row(State from, State to, TransitionCause cause) {
    @Override
    public String toString() {
      return from + " -> " + to + " (" + cause + ")";
    }
  }

  /** The legal rows, spelled out independently of {@link Transitions#TABLE}. */
  private static Set<Row> legalRows() {
    Set<Row> rows = new HashSet<>();
    rows.add(new Row(CLOSED, OPEN, FAILURE_THRESHOLD));
    rows.add(new Row(CLOSED, OPEN, FAILURE_RATE));
    rows.add(new Row(OPEN, HALF_OPEN, OPEN_WINDOW_ENDED));
    rows.add(new Row(HALF_OPEN, CLOSED, PROBES_SUCCEEDED));
    rows.add(new Row(HALF_OPEN, OPEN, PROBE_FAILED));
    rows.add(new Row(HALF_OPEN, OPEN, PROBE_TIMED_OUT));
    // a dependency's back-off hint opens a closed or half-open breaker, or lengthens an open one
    for (State from : MACHINE) {
      rows.add(new Row(from, OPEN, BACKOFF_REQUESTED));
    }
    for (State to : OVERRIDES) {
      for (State from : MACHINE) {
        rows.add(new Row(from, to, OVERRIDE_SET));
      }
      for (State from : OVERRIDES) {
        if (from != to) {
          rows.add(new Row(from, to, OVERRIDE_SET));
        }
      }
      rows.add(new Row(to, to, OVERRIDE_UPDATED));
    }
    for (State from : OVERRIDES) {
      for (State to : MACHINE) {
        rows.add(new Row(from, to, OVERRIDE_CLEARED));
        rows.add(new Row(from, to, OVERRIDE_EXPIRED));
      }
    }
    // a node puts back what Redis lost: a trip, or an override over a machine state; over a
    // Redis that went back in time, also its newer window over an older one, and its override
    // over an older override
    for (State from : MACHINE) {
      rows.add(new Row(from, OPEN, REASSERTED));
    }
    for (State to : OVERRIDES) {
      for (State from : State.values()) {
        rows.add(new Row(from, to, REASSERTED));
      }
    }
    // a restore rebuilds lost keys: whatever the recreated keys held, whatever history says
    for (State from : State.values()) {
      for (State to : State.values()) {
        rows.add(new Row(from, to, RESTORED));
      }
    }
    return rows;
  }

  static Stream<Arguments> legal() {
    return legalRows().stream().map(r -> Arguments.of(r.from(), r.to(), r.cause()));
  }

  static Stream<Arguments> illegal() {
    return Stream.of(
        Arguments.of(CLOSED, HALF_OPEN, OPEN_WINDOW_ENDED),
        Arguments.of(CLOSED, HALF_OPEN, FAILURE_THRESHOLD),
        Arguments.of(OPEN, CLOSED, PROBES_SUCCEEDED),
        Arguments.of(OPEN, OPEN, PROBE_FAILED),
        Arguments.of(CLOSED, OPEN, PROBE_TIMED_OUT),
        Arguments.of(OPEN, OPEN, FAILURE_THRESHOLD),
        Arguments.of(HALF_OPEN, OPEN, FAILURE_THRESHOLD),
        Arguments.of(HALF_OPEN, OPEN, FAILURE_RATE),
        Arguments.of(HALF_OPEN, CLOSED, OPEN_WINDOW_ENDED),
        Arguments.of(CLOSED, CLOSED, PROBES_SUCCEEDED),
        Arguments.of(CLOSED, OPEN, PROBE_FAILED),
        Arguments.of(CLOSED, CLOSED, OVERRIDE_SET),
        Arguments.of(CLOSED, OPEN, OVERRIDE_SET),
        Arguments.of(FORCED_OPEN, FORCED_OPEN, OVERRIDE_SET),
        Arguments.of(FORCED_OPEN, FORCED_CLOSED, OVERRIDE_UPDATED),
        Arguments.of(CLOSED, CLOSED, OVERRIDE_UPDATED),
        Arguments.of(CLOSED, FORCED_OPEN, OVERRIDE_UPDATED),
        Arguments.of(FORCED_OPEN, FORCED_CLOSED, OVERRIDE_CLEARED),
        Arguments.of(DISABLED, DISABLED, OVERRIDE_CLEARED),
        Arguments.of(CLOSED, CLOSED, OVERRIDE_CLEARED),
        Arguments.of(METRICS_ONLY, FORCED_OPEN, OVERRIDE_EXPIRED),
        Arguments.of(OPEN, HALF_OPEN, OVERRIDE_EXPIRED),
        Arguments.of(FORCED_OPEN, OPEN, FAILURE_THRESHOLD),
        Arguments.of(FORCED_CLOSED, OPEN, FAILURE_RATE),
        Arguments.of(FORCED_OPEN, HALF_OPEN, OPEN_WINDOW_ENDED),
        Arguments.of(OPEN, CLOSED, REASSERTED),
        Arguments.of(HALF_OPEN, HALF_OPEN, REASSERTED),
        Arguments.of(FORCED_OPEN, OPEN, REASSERTED),
        Arguments.of(OPEN, HALF_OPEN, BACKOFF_REQUESTED),
        Arguments.of(FORCED_CLOSED, OPEN, BACKOFF_REQUESTED),
        Arguments.of(CLOSED, CLOSED, BACKOFF_REQUESTED));
  }

  @Nested
  @DisplayName("legal rows")
  class Legal {

    @ParameterizedTest(name = "{0} -> {1} ({2})")
    @MethodSource("io.breakerctl.runtime.model.TransitionsTest#legal")
    @DisplayName("are accepted by isLegal and check")
    void accepted(State from, State to, TransitionCause cause) {
      assertThat(Transitions.isLegal(from, to, cause)).isTrue();
      assertThatCode(() -> Transitions.check(from, to, cause)).doesNotThrowAnyException();
    }

    @Test
    @DisplayName("the machine rows of the brief are among them")
    void machineRows() {
      assertThat(Transitions.isLegal(CLOSED, OPEN, FAILURE_THRESHOLD)).isTrue();
      assertThat(Transitions.isLegal(CLOSED, OPEN, FAILURE_RATE)).isTrue();
      assertThat(Transitions.isLegal(OPEN, HALF_OPEN, OPEN_WINDOW_ENDED)).isTrue();
      assertThat(Transitions.isLegal(HALF_OPEN, CLOSED, PROBES_SUCCEEDED)).isTrue();
      assertThat(Transitions.isLegal(HALF_OPEN, OPEN, PROBE_FAILED)).isTrue();
      assertThat(Transitions.isLegal(OPEN, FORCED_OPEN, OVERRIDE_SET)).isTrue();
      assertThat(Transitions.isLegal(FORCED_OPEN, DISABLED, OVERRIDE_SET)).isTrue();
      assertThat(Transitions.isLegal(FORCED_OPEN, FORCED_OPEN, OVERRIDE_UPDATED)).isTrue();
      assertThat(Transitions.isLegal(FORCED_CLOSED, HALF_OPEN, OVERRIDE_CLEARED)).isTrue();
      assertThat(Transitions.isLegal(METRICS_ONLY, CLOSED, OVERRIDE_EXPIRED)).isTrue();
    }
  }

  @Nested
  @DisplayName("illegal rows")
  class Illegal {

    @ParameterizedTest(name = "{0} -> {1} ({2})")
    @MethodSource("io.breakerctl.runtime.model.TransitionsTest#illegal")
    @DisplayName("are refused; check() names from, to and cause")
    void refused(State from, State to, TransitionCause cause) {
      assertThat(Transitions.isLegal(from, to, cause)).isFalse();
      assertThatIllegalStateException()
          .isThrownBy(() -> Transitions.check(from, to, cause))
          .withMessage("illegal transition " + from + " -> " + to + " (cause " + cause + ")");
    }
  }

  @Nested
  @DisplayName("the whole table")
  class Exhaustive {

    @Test
    @DisplayName("isLegal is true for exactly the 141 spelled-out rows among all 637 triples")
    void exactlyTheLegalRows() {
      Set<Row> expected = legalRows();
      Set<Row> actual = new HashSet<>();
      for (State from : State.values()) {
        for (State to : State.values()) {
          for (TransitionCause cause : TransitionCause.values()) {
            if (Transitions.isLegal(from, to, cause)) {
              actual.add(new Row(from, to, cause));
            }
          }
        }
      }

      assertThat(expected).hasSize(141);
      assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    @DisplayName("every cause appears in the table")
    void everyCauseUsed() {
      assertThat(Transitions.TABLE)
          .extracting(Transitions.Rule::cause)
          .containsAll(List.of(TransitionCause.values()));
    }
  }
}
