package io.breakerctl.testing.scenario;

import io.breakerctl.testing.scenario.Scenario.Step;
import io.breakerctl.testing.scenario.ScenarioSide.Answer;
import io.breakerctl.testing.scenario.ScenarioSide.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Runs one scenario against one side and lists every difference from the table. Time is the
 * caller's: {@link Timing#before} moves the side's clock (or waits for the real one) to the step.
 */
public final class ScenarioRunner {

  /** Puts the side at a step's time. */
  public interface Timing {
    /** Called before step {@code index}; returns the scenario's start (absolute ms). */
    long before(int index, Step step);

    /** Called once the step answered (before its answer is checked). */
    default void after(int index, Step step) {}
  }

  private record Admitted(String node, String generation, String leaseId) {}

  private ScenarioRunner() {}

  /**
   * Runs {@code scenario}.
   *
   * @param tolerance how far after its expected value an absolute time ({@code until}) may be: 1
   *     when every step runs exactly at its time, the largest lateness otherwise
   * @return the differences, empty when the side answered as the table says
   */
  public static List<String> run(
      Scenario scenario, ScenarioSide side, Timing timing, long tolerance) {
    Map<String, Admitted> admitted = new HashMap<>();
    List<String> diffs = new ArrayList<>();
    for (int i = 0; i < scenario.steps().size(); i++) {
      Step s = scenario.steps().get(i);
      long start = timing.before(i, s);
      Answer a = apply(scenario, s, side, admitted, diffs, i);
      timing.after(i, s);
      List<Event> events = side.drainEvents();
      String where = "step " + (i + 1) + " (" + s + ")";
      expect(diffs, where, "state", s.state(), a.state());
      expect(diffs, where, "reason", s.reason(), a.reason());
      expect(diffs, where, "window", s.window(), a.window());
      expect(diffs, where, "gen", s.gen(), a.generation());
      expect(diffs, where, "leaseId", s.leaseId(), a.leaseId());
      if (s.until() != null) {
        long want = s.until() == 0 ? 0 : start + s.until();
        Long got = a.untilMillis();
        boolean ok =
            got != null
                && (want == 0 ? got == 0 : got >= want && got < want + Math.max(1, tolerance));
        if (!ok) {
          diffs.add(
              where
                  + ": until expected "
                  + s.until()
                  + " but was "
                  + (got == null ? "none" : got == 0 ? "0" : Long.toString(got - start)));
        }
      }
      List<String> texts = events.stream().map(Event::text).toList();
      if (!texts.equals(s.expectedEvents())) {
        diffs.add(where + ": events expected " + s.expectedEvents() + " but were " + texts);
      }
      if (s.open() != null) {
        Long got =
            events.stream()
                .map(Event::openMillis)
                .filter(Objects::nonNull)
                .reduce((x, y) -> y)
                .orElse(null);
        expect(diffs, where, "open", s.open().toString(), got == null ? "none" : got.toString());
      }
      if (s.totals() != null) {
        expect(diffs, where, "totals", s.totals(), side.totals());
      }
    }
    return diffs;
  }

  private static Answer apply(
      Scenario scenario,
      Step s,
      ScenarioSide side,
      Map<String, Admitted> admitted,
      List<String> diffs,
      int index) {
    String node = s.nodeOr("n1");
    switch (s.op()) {
      case "fail":
        return side.record(node, s.count(), 0, -1, generationOf(s, admitted), "");
      case "ok":
        return side.record(
            node, 0, s.count(), s.ms() == null ? -1 : s.ms(), generationOf(s, admitted), "");
      case "acquire":
        {
          Answer a = side.acquire(node);
          if (s.as() != null) {
            admitted.put(s.as(), new Admitted(node, a.generation(), a.leaseId()));
          }
          return a;
        }
      case "probe":
        {
          Admitted by = admitted.get(s.lease());
          if (by == null) {
            throw new IllegalArgumentException(
                scenario.name() + " step " + (index + 1) + ": no acquire named " + s.lease());
          }
          boolean ok = "ok".equals(s.result());
          boolean release = "release".equals(s.result());
          String gen = s.admittedIn() != null ? s.admittedIn().toString() : by.generation();
          return side.record(
              s.nodeOr(by.node()),
              ok || release ? 0 : 1,
              ok ? 1 : 0,
              s.ms() == null ? -1 : s.ms(),
              gen,
              by.leaseId());
        }
      case "renew":
        {
          Admitted by = admitted.get(s.lease());
          if (by == null) {
            throw new IllegalArgumentException(
                scenario.name() + " step " + (index + 1) + ": no acquire named " + s.lease());
          }
          String gen = s.admittedIn() != null ? s.admittedIn().toString() : by.generation();
          return side.renew(s.nodeOr(by.node()), gen, by.leaseId());
        }
      case "force":
        return side.override(s.kind(), s.forMs() == null ? 0 : s.forMs());
      case "clear":
        return side.override("CLEAR", 0);
      case "warm":
        return side.warm(
            s.policyId() == null ? "scenario" : s.policyId(),
            s.version(),
            scenario.policy().with(s.policy()).toPolicy());
      case "check":
        return side.check();
      default:
        diffs.add(scenario.name() + " step " + (index + 1) + ": unknown operation " + s.op());
        return new Answer(null, null, null, null, null, null);
    }
  }

  private static String generationOf(Step s, Map<String, Admitted> admitted) {
    if (s.admittedIn() != null) {
      return s.admittedIn().toString();
    }
    if (s.admitted() != null) {
      return admitted.get(s.admitted()).generation();
    }
    return "";
  }

  private static void expect(
      List<String> diffs, String where, String what, String want, String got) {
    if (want != null && !want.equals(got)) {
      diffs.add(where + ": " + what + " expected " + want + " but was " + got);
    }
  }
}
