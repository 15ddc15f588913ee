package io.breakerctl.runtime.local;

import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.testing.MutableClock;
import io.breakerctl.testing.scenario.ScenarioSide;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** The scenario table's Java side: one {@link LocalStateMachine} on a {@link MutableClock}. */
final class MachineScenarioSide implements ScenarioSide {

  /** The causes that start an open window (their events carry openMillis in the scripts). */
  private static final Set<TransitionCause> OPENING =
      EnumSet.of(
          TransitionCause.FAILURE_THRESHOLD,
          TransitionCause.FAILURE_RATE,
          TransitionCause.PROBE_FAILED,
          TransitionCause.PROBE_TIMED_OUT);

  private final LocalStateMachine machine;
  private final MutableClock clock;
  private final List<LocalTransition> heard = new ArrayList<>();

  MachineScenarioSide(Policy policy, MutableClock clock) {
    this.clock = clock;
    this.machine = new LocalStateMachine(policy, clock);
    machine.onTransition(heard::add);
  }

  @Override
  public Answer record(
      String node,
      long failures,
      long successes,
      long durationMillis,
      String generation,
      String leaseId) {
    LocalRecordResult r =
        machine.record(
            failures,
            successes,
            durationMillis,
            generation.isEmpty() ? -1 : Long.parseLong(generation),
            leaseId,
            node);
    return new Answer(
        r.state().code(),
        String.valueOf(r.reason()),
        r.windowFailures() + "/" + r.windowCalls(),
        Long.toString(r.generation()),
        null,
        null);
  }

  @Override
  public Answer renew(String node, String generation, String leaseId) {
    LocalRenewal r =
        machine
            .probes()
            .renew(leaseId, node, generation.isEmpty() ? -1 : Long.parseLong(generation));
    return new Answer(
        r.state().code(),
        String.valueOf(r.reason()),
        null,
        Long.toString(r.generation()),
        null,
        r.untilMillis());
  }

  @Override
  public Answer acquire(String node) {
    LocalAdmission a = machine.tryAcquire(node);
    return new Answer(
        a.state().code(),
        String.valueOf(a.reason()),
        null,
        Long.toString(a.generation()),
        a.leaseId() == null ? "" : a.leaseId(),
        a.untilMillis());
  }

  @Override
  public Answer override(String kind, long forMillis) {
    LocalOverrideResult r =
        kind.equals("CLEAR")
            ? machine.overrides().clear("op", "scenario")
            : machine
                .overrides()
                .set(State.fromCode(kind), Duration.ofMillis(forMillis), "op", "scenario");
    return new Answer(
        r.state().code(),
        String.valueOf(r.outcome()),
        null,
        Long.toString(r.generation()),
        null,
        null);
  }

  @Override
  public Answer warm(String policyId, long version, Policy policy) {
    LocalWarmResult w = machine.warm(policyId, version, policy);
    return new Answer(
        machine.state().code(),
        String.valueOf(w.outcome()),
        null,
        Long.toString(machine.generation()),
        null,
        null);
  }

  @Override
  public Answer check() {
    return new Answer(
        machine.state().code(), null, null, Long.toString(machine.generation()), null, null);
  }

  @Override
  public List<Event> drainEvents() {
    List<Event> out = new ArrayList<>();
    for (LocalTransition t : heard) {
      Long open = OPENING.contains(t.cause()) ? machine.openUntilMillis() - t.atMillis() : null;
      out.add(new Event(t.from().code() + ">" + t.to().code() + " " + t.cause().name(), open));
    }
    heard.clear();
    return out;
  }

  @Override
  public String totals() {
    return machine.counts().failuresTotal() + "/" + machine.counts().successesTotal();
  }

  /** The clock the machine reads. */
  MutableClock clock() {
    return clock;
  }
}
