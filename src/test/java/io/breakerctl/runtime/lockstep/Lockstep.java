package io.breakerctl.runtime.lockstep;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.testing.MutableClock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Runs one {@link Ops.Sequence} on several sides at once and names every difference: each answer,
 * the transitions each step recorded, and after each step the fields that decide what happens next
 * ({@link MachineHash}) and what a reader of the store sees ({@link MachineHash#readerView}).
 *
 * <p>The Java sides ({@link JavaBreakers.Machine}, {@link JavaBreakers.InProcess}) share one clock,
 * set for each step to the time the reference side decided at. Against the scripts that time is
 * only known to lie in a bracket of Redis milliseconds ({@link RedisBreaker}); every millisecond of
 * it is tried, in order, on Java sides rebuilt by replaying the steps before at their times, and
 * the first one whose answers and fields all agree is taken. Taking the first is exact, not a
 * guess: the compared fields hold every time a later answer depends on (window bucket, open window
 * end, lease and override expiries, transition times), so two times that both agree leave the Java
 * sides in the same state. A step that no time of its bracket explains is a difference. How late a
 * step ran only moves its bracket, never the verdict.
 */
final class Lockstep {
  private final Ops.Sequence seq;
  private final Policy policy;
  private final BreakerId id;
  private final List<Timed> log = new ArrayList<>();
  private final List<String> history = new ArrayList<>();
  private long origin = -1;
  private final Set<String> covered = new TreeSet<>();

  /** One step run on the Java sides at {@code at} (-1 for a wait). */
  private record Timed(Op op, int index, long at) {}

  /** The two Java sides on one clock. */
  private static final class Java {
    final MutableClock clock = new MutableClock(0);
    final Side machine;
    final Side inProcess;

    Java(Policy policy, BreakerId id) {
      machine = new Side(new JavaBreakers.Machine(policy, clock), policy);
      inProcess = new Side(new JavaBreakers.InProcess(id, policy, clock), policy);
    }

    void at(long millis) {
      clock.advanceMillis(millis - clock.millis());
    }
  }

  Lockstep(Ops.Sequence seq, BreakerId id) {
    this.seq = seq;
    this.policy = seq.shape().toPolicy();
    this.id = id;
  }

  /**
   * What the sequence exercised: each reason and outcome the reference answered, each transition
   * cause, and "bracket > 1 ms" when a step's Redis time had to be chosen among several.
   */
  Set<String> covered() {
    return covered;
  }

  private void cover(Map<String, String> answer, List<String> events) {
    for (String k : List.of("reason", "outcome")) {
      if (answer.containsKey(k)) {
        covered.add(answer.get("op") + " " + answer.get(k));
      }
    }
    for (String e : events) {
      covered.add("event " + e.split(" ")[1]);
    }
  }

  /**
   * The machine against the in-process store, on a clock that starts at {@code startMillis} and
   * moves only with the sequence's waits.
   */
  void machineAgainstStore(long startMillis) {
    Java java = new Java(policy, id);
    long now = startMillis;
    origin = startMillis;
    for (int i = 0; i < seq.ops().size(); i++) {
      Op op = seq.ops().get(i);
      if (op instanceof Op.Wait w) {
        now += w.millis();
        history.add(op.toString());
        continue;
      }
      java.at(now);
      Map<String, String> ref = java.machine.apply(op, i);
      Map<String, String> refHash = java.machine.breaker().hash(java.machine::handleOf);
      List<String> refEvents = java.machine.breaker().drainEvents();
      List<String> diffs = new ArrayList<>();
      Map<String, String> other = java.inProcess.apply(op, i);
      compare(diffs, "answer", "machine", ref, "in-process store", other, true);
      compareJava(diffs, java, refHash, refEvents, null, now, true);
      if (!diffs.isEmpty()) {
        throw failure(
            i, op, now, now, List.of("+" + (now - origin) + ": " + String.join("; ", diffs)), ref);
      }
      history.add("+" + (now - origin) + " " + op + " -> " + ref);
      cover(ref, refEvents);
    }
  }

  /** The Java sides against the scripts ({@code redis}). */
  void againstScripts(RedisBreaker redis) {
    Side scripts = new Side(redis, policy);
    Java live = new Java(policy, id);
    for (int i = 0; i < seq.ops().size(); i++) {
      Op op = seq.ops().get(i);
      if (op instanceof Op.Wait w) {
        sleep(w.millis());
        log.add(new Timed(op, i, -1));
        history.add(op.toString());
        continue;
      }
      Map<String, String> ref = scripts.apply(op, i);
      long lo = redis.lo;
      long hi = redis.hi;
      if (origin < 0) {
        origin = lo;
      }
      Map<String, String> refHash = redis.hash(scripts::handleOf);
      Map<String, String> refStore = redis.storeFields();
      List<String> refEvents = redis.drainEvents();
      List<String> tried = new ArrayList<>();
      Java accepted = null;
      long at = lo;
      for (long t = lo; t <= hi && accepted == null; t++) {
        Java java = t == lo ? live : replay();
        java.at(t);
        List<String> diffs = new ArrayList<>();
        compare(diffs, "answer", "scripts", ref, "machine", java.machine.apply(op, i), false);
        compare(
            diffs,
            "answer",
            "scripts",
            ref,
            "in-process store",
            java.inProcess.apply(op, i),
            false);
        compareJava(diffs, java, refHash, refEvents, refStore, t, false);
        if (diffs.isEmpty()) {
          accepted = java;
          at = t;
        } else {
          tried.add("+" + (t - origin) + ": " + String.join("; ", diffs));
        }
      }
      if (accepted == null) {
        throw failure(i, op, lo, hi, tried, ref);
      }
      live = accepted;
      log.add(new Timed(op, i, at));
      history.add("+" + (at - origin) + " " + op + " -> " + ref);
      cover(ref, refEvents);
      if (hi > lo) {
        covered.add("bracket > 1 ms");
      }
    }
  }

  /** Fresh Java sides that ran every logged step at its time. */
  private Java replay() {
    Java java = new Java(policy, id);
    for (Timed s : log) {
      if (s.at() < 0) {
        continue;
      }
      java.at(s.at());
      java.machine.apply(s.op(), s.index());
      java.inProcess.apply(s.op(), s.index());
    }
    java.machine.breaker().drainEvents();
    java.inProcess.breaker().drainEvents();
    return java;
  }

  /**
   * Compares the Java sides' fields and events after a step with the reference's ({@code refStore}:
   * the reference's reader fields, null when the machine is the reference).
   */
  private static void compareJava(
      List<String> diffs,
      Java java,
      Map<String, String> refHash,
      List<String> refEvents,
      Map<String, String> refStore,
      long now,
      boolean machineIsRef) {
    String ref = machineIsRef ? "machine" : "scripts";
    if (!machineIsRef) {
      compare(
          diffs,
          "fields",
          ref,
          refHash,
          "machine",
          java.machine.breaker().hash(java.machine::handleOf),
          false);
      compareLists(
          diffs, "events", ref, refEvents, "machine", java.machine.breaker().drainEvents());
    }
    compare(
        diffs,
        "fields",
        ref,
        refHash,
        "in-process store",
        java.inProcess.breaker().hash(java.inProcess::handleOf),
        false);
    List<String> bare = refEvents.stream().map(e -> e.replaceAll(" at=\\d+$", "")).toList();
    compareLists(
        diffs, "events", ref, bare, "in-process store", java.inProcess.breaker().drainEvents());
    Map<String, String> readerRef =
        MachineHash.readerView(refStore != null ? refStore : refHash, now);
    compare(
        diffs,
        "reader fields",
        ref,
        readerRef,
        "in-process store",
        MachineHash.readerView(java.inProcess.breaker().storeFields(), now),
        false);
  }

  /** Adds one line per key whose value differs ({@code ~} keys only when {@code javaOnly}). */
  private static void compare(
      List<String> diffs,
      String what,
      String refName,
      Map<String, String> ref,
      String name,
      Map<String, String> other,
      boolean javaOnly) {
    Map<String, String> keys = new LinkedHashMap<>();
    ref.keySet().forEach(k -> keys.put(k, k));
    other.keySet().forEach(k -> keys.put(k, k));
    for (String k : keys.keySet()) {
      if (k.startsWith("~") && !javaOnly) {
        continue;
      }
      if (!Objects.equals(ref.get(k), other.get(k))) {
        diffs.add(
            what + " " + k + ": " + refName + " " + ref.get(k) + ", " + name + " " + other.get(k));
      }
    }
  }

  private static void compareLists(
      List<String> diffs,
      String what,
      String refName,
      List<String> ref,
      String name,
      List<String> other) {
    if (!ref.equals(other)) {
      diffs.add(what + ": " + refName + " " + ref + ", " + name + " " + other);
    }
  }

  private AssertionError failure(
      int index, Op op, long lo, long hi, List<String> tried, Map<String, String> ref) {
    StringBuilder b = new StringBuilder();
    b.append("the sides disagree at op ").append(index + 1).append(" (").append(op).append(")");
    b.append(", reference answer ").append(ref);
    b.append("\n  policy ").append(seq.shape());
    b.append("\n  tried each time the step may have run at (ms after the first step):");
    for (String t : tried) {
      b.append("\n    ").append(t);
    }
    b.append("\n  steps before it:");
    for (int i = 0; i < history.size(); i++) {
      b.append("\n    ").append(i + 1).append(". ").append(history.get(i));
    }
    return new AssertionError(b.toString());
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
