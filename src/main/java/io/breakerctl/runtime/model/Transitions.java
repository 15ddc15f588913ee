package io.breakerctl.runtime.model;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The one table of legal transitions, used by the local state machine and mirrored by the Lua
 * scripts. Tests check every event the scripts write against it: the test fixtures' {@code
 * EventAudit} reads every event stream of every test Redis server when the server is closed, and
 * the scenario table checks each event as it is written, on the scripts ({@code ScenarioTableIT})
 * and on the in-process store ({@code ScenarioTableTest}).
 */
public final class Transitions {
  private Transitions() {}

  /** One row: a transition from a set of states to a set of states for one cause. */
  public record Rule(Set<State> from, Set<State> to, TransitionCause cause) {}

  private static final Set<State> MACHINE = EnumSet.of(State.CLOSED, State.OPEN, State.HALF_OPEN);
  private static final Set<State> OVERRIDES =
      EnumSet.of(State.FORCED_OPEN, State.FORCED_CLOSED, State.DISABLED, State.METRICS_ONLY);

  /** The table. */
  public static final List<Rule> TABLE =
      List.of(
          new Rule(
              EnumSet.of(State.CLOSED), EnumSet.of(State.OPEN), TransitionCause.FAILURE_THRESHOLD),
          new Rule(EnumSet.of(State.CLOSED), EnumSet.of(State.OPEN), TransitionCause.FAILURE_RATE),
          new Rule(
              EnumSet.of(State.OPEN),
              EnumSet.of(State.HALF_OPEN),
              TransitionCause.OPEN_WINDOW_ENDED),
          new Rule(
              EnumSet.of(State.HALF_OPEN),
              EnumSet.of(State.CLOSED),
              TransitionCause.PROBES_SUCCEEDED),
          new Rule(
              EnumSet.of(State.HALF_OPEN), EnumSet.of(State.OPEN), TransitionCause.PROBE_FAILED),
          new Rule(
              EnumSet.of(State.HALF_OPEN), EnumSet.of(State.OPEN), TransitionCause.PROBE_TIMED_OUT),
          new Rule(MACHINE, EnumSet.of(State.OPEN), TransitionCause.BACKOFF_REQUESTED),
          new Rule(EnumSet.allOf(State.class), OVERRIDES, TransitionCause.OVERRIDE_SET),
          new Rule(OVERRIDES, OVERRIDES, TransitionCause.OVERRIDE_UPDATED),
          new Rule(OVERRIDES, MACHINE, TransitionCause.OVERRIDE_CLEARED),
          new Rule(OVERRIDES, MACHINE, TransitionCause.OVERRIDE_EXPIRED),
          // a lost trip put back (CLOSED), or an older window of a Redis that went back in time
          // (OPEN, HALF_OPEN): reassert.lua
          new Rule(MACHINE, EnumSet.of(State.OPEN), TransitionCause.REASSERTED),
          // a lost override put back, or one that replaces the older override of a rewound Redis
          new Rule(EnumSet.allOf(State.class), OVERRIDES, TransitionCause.REASSERTED),
          new Rule(
              EnumSet.allOf(State.class), EnumSet.allOf(State.class), TransitionCause.RESTORED));

  /** True when the table has a row for this transition. */
  public static boolean isLegal(State from, State to, TransitionCause cause) {
    for (Rule r : TABLE) {
      if (r.cause() == cause && r.from().contains(from) && r.to().contains(to)) {
        if (cause == TransitionCause.OVERRIDE_SET && from == to) {
          return false;
        }
        if (cause == TransitionCause.OVERRIDE_UPDATED && from != to) {
          return false;
        }
        return true;
      }
    }
    return false;
  }

  /**
   * Checks a transition.
   *
   * @throws IllegalStateException naming the illegal transition
   */
  public static void check(State from, State to, TransitionCause cause) {
    if (!isLegal(from, to, cause)) {
      throw new IllegalStateException(
          "illegal transition " + from + " -> " + to + " (cause " + cause + ")");
    }
  }
}
