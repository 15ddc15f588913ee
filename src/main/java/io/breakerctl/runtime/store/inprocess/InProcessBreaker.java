package io.breakerctl.runtime.store.inprocess;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.breakerctl.runtime.local.ActiveOverride;
import io.breakerctl.runtime.local.LocalCounts;
import io.breakerctl.runtime.local.LocalStateMachine;
import io.breakerctl.runtime.local.LocalTransition;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Epoch;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.ReassertOutcome;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.PolicyEncoding;
import io.breakerctl.runtime.store.ReassertResult;
import io.breakerctl.runtime.store.Reassertion;
import java.time.Clock;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * One breaker of an {@link InProcessBreakerStore}, standing for its keys on Redis: the {@link
 * LocalStateMachine} in place of the hash's machine fields, its incarnation (epoch), and what the
 * scripts keep beside the machine (node heartbeats, the warmed policy, the callers' policy, the
 * override's correlation id, the event stream's tail). It appends the scripts' events and publishes
 * their messages (a transition, a warmed policy) on the store's {@link FleetChannel}, exports the
 * hash's fields for a snapshot, and runs {@code reassert.lua}, which has no twin on the machine.
 * Its caller holds the store's command lock.
 */
final class InProcessBreaker {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The causes whose event starts an open window (the scripts' {@code open_for}). */
  private static final Set<TransitionCause> OPENING =
      EnumSet.of(
          TransitionCause.FAILURE_THRESHOLD,
          TransitionCause.FAILURE_RATE,
          TransitionCause.PROBE_FAILED,
          TransitionCause.PROBE_TIMED_OUT,
          TransitionCause.BACKOFF_REQUESTED);

  final BreakerId id;
  final LocalStateMachine machine;
  private final Clock clock;
  private final FleetChannel channel;

  /** The incarnation; a re-assertion over a rewound store starts a new one (reassert.lua). */
  volatile String epoch;

  final Map<String, NodeHeartbeat> nodes = new ConcurrentHashMap<>();
  volatile PolicyEncoding.WarmedPolicy warmed;
  volatile String nodePolicy;
  volatile String correlationId = "";

  /** The event stream's tail (read with {@code eventsAfter}). */
  final EventStream events = new EventStream();

  InProcessBreaker(BreakerId id, Policy policy, Clock clock, String epoch, FleetChannel channel) {
    this.epoch = epoch;
    this.id = id;
    this.clock = clock;
    this.channel = channel;
    this.machine = new LocalStateMachine(policy, clock);
    machine.onTransition(this::publish);
  }

  /** Uses the warmed policy, else the caller's (as the scripts do). */
  void policy(Policy callers) {
    PolicyEncoding.WarmedPolicy w = warmed;
    Policy p = w != null ? w.policy() : callers;
    if (p != null && !p.equals(machine.policy())) {
      machine.setPolicy(p);
    }
    if (w == null && callers != null) {
      nodePolicy = PolicyEncoding.toArg(callers);
    }
  }

  /**
   * As {@code reassert.lua}: puts back a trip or an override a node made while the store was away
   * (CURRENT, ENDED, ALREADY or REASSERTED), in a new incarnation from {@code nextEpoch} when the
   * store went back in time behind the caller.
   */
  ReassertResult reassert(Reassertion request, Supplier<String> nextEpoch) {
    LocalStateMachine m = machine;
    // as the script: behind the caller (went back in time) by what was stored before the
    // time-based changes, which are recorded first
    boolean rewound =
        request.mode() == Reassertion.Mode.REASSERT
            && (epoch.equals(request.seenEpoch()) && m.generation() < request.seenGeneration()
                || Epoch.before(epoch, request.seenEpoch()));
    State state = m.settle();
    long now = clock.millis();
    boolean open = request.kind() == State.OPEN;
    Optional<ActiveOverride> held = m.activeOverride();
    ReassertOutcome outcome = null;
    if (request.mode() == Reassertion.Mode.REASSERT
        && !rewound
        && epoch.equals(request.seenEpoch())
        && m.generation() >= request.seenGeneration()) {
      outcome = ReassertOutcome.CURRENT;
    } else if (open
        ? request.mode() == Reassertion.Mode.DEGRADED_TRIP && request.untilMillis() <= now
        : request.untilMillis() > 0 && request.untilMillis() <= now) {
      outcome = ReassertOutcome.ENDED;
    } else if (open
        ? state != State.CLOSED
            && !(rewound && held.isEmpty() && m.openUntilMillis() <= request.untilMillis())
        : held.isPresent()
            && !(rewound
                && (held.get().kind() != request.kind()
                    || held.get().untilMillis() != request.untilMillis()))) {
      outcome = ReassertOutcome.ALREADY;
    }
    if (outcome != null) {
      return new ReassertResult(false, outcome, state, Long.toString(m.generation()), epoch);
    }
    boolean trip = request.mode() == Reassertion.Mode.DEGRADED_TRIP;
    if (rewound) {
      epoch = nextEpoch.get();
    }
    long gen = (trip ? m.generation() : Math.max(m.generation(), request.seenGeneration())) + 1;
    if (open) {
      long length = request.openMillis() > 0 ? request.openMillis() : m.policy().open().toMillis();
      m.seeding().seed(State.OPEN, request.untilMillis(), length, null, gen);
    } else {
      correlationId = request.correlationId();
      m.seeding()
          .seed(
              m.storedState(),
              m.openUntilMillis(),
              m.openMillis(),
              new ActiveOverride(
                  request.kind(), request.untilMillis(), request.actor(), request.reason(), now),
              gen);
    }
    TransitionCause cause = trip ? TransitionCause.FAILURE_THRESHOLD : TransitionCause.REASSERTED;
    publish(new LocalTransition(state, request.kind(), cause, gen, now, 0));
    // a window that ended already: half-open now, its probes leased; probes of a lost
    // half-open incarnation may still run: every slot held for one lease
    if (m.settle() == State.HALF_OPEN && open && request.probesMayRun()) {
      m.probes().holdLost();
    }
    return new ReassertResult(
        true, ReassertOutcome.REASSERTED, m.state(), Long.toString(m.generation()), epoch);
  }

  /**
   * Appends a transition's event to the stream and publishes its message, as the scripts' {@code
   * transition()} does.
   */
  void publish(LocalTransition t) {
    append(t);
    ObjectNode m = JSON.createObjectNode();
    m.put("type", "transition");
    m.put("id", id.toString());
    describe(t, m::put);
    if (t.to() == State.OPEN) {
      m.put("until", Long.toString(machine.openUntilMillis()));
      m.put("openMillis", Long.toString(machine.openMillis()));
      hinted(m::put);
    }
    channel.publish(m.toString());
  }

  /**
   * Appends a transition's event with the fields of the scripts' event that the machine knows:
   * epoch, from, to, cause, generation and at; {@code openMillis} and {@code until} for an event
   * that opens a window (a trip, a failed or timed-out probe, a re-asserted trip), {@code until}
   * for the end of one; the override's actor, reason, correlationId and until for an event into an
   * override. Not kept: the node, the policy id and version, and each cause's counts.
   */
  private void append(LocalTransition t) {
    Map<String, String> f = new LinkedHashMap<>();
    describe(t, f::put);
    f.put("at", Long.toString(t.atMillis()));
    if (t.to() == State.OPEN
        && (OPENING.contains(t.cause()) || t.cause() == TransitionCause.REASSERTED)) {
      f.put("openMillis", Long.toString(machine.openMillis()));
      f.put("until", Long.toString(machine.openUntilMillis()));
      hinted(f::put);
    } else if (t.cause() == TransitionCause.OPEN_WINDOW_ENDED) {
      f.put("until", Long.toString(machine.openUntilMillis()));
    }
    events.append(id, f, t.atMillis());
  }

  /**
   * For a window a back-off hint set: the hint asked for and its source, as record.lua's hinted()
   * adds them to the event.
   */
  private void hinted(BiConsumer<String, String> put) {
    machine
        .hints()
        .last()
        .filter(h -> h.untilMillis() == machine.openUntilMillis())
        .ifPresent(
            h -> {
              put.accept("hintMillis", Long.toString(h.hint().millis()));
              put.accept("hintSource", h.hint().source().name());
            });
  }

  /**
   * The fields a transition's event and its message share: epoch, from, to, cause, generation, and
   * for a transition into an override the override's until, actor, reason and correlationId.
   */
  private void describe(LocalTransition t, BiConsumer<String, String> put) {
    put.accept("epoch", epoch);
    put.accept("from", t.from().code());
    put.accept("to", t.to().code());
    put.accept("cause", t.cause().name());
    put.accept("generation", Long.toString(t.generation()));
    if (t.to().isOverride()) {
      machine
          .activeOverride()
          .ifPresent(
              o -> {
                put.accept("until", Long.toString(o.untilMillis()));
                put.accept("actor", o.actor());
                put.accept("reason", o.reason());
                put.accept("correlationId", correlationId);
              });
    }
  }

  /** Publishes a warmed policy's message, as {@code warm.lua} does. */
  void publishPolicy(String policyId, long version) {
    ObjectNode m = JSON.createObjectNode();
    m.put("type", "policy");
    m.put("id", id.toString());
    m.put("policyId", policyId);
    m.put("policyVersion", Long.toString(version));
    channel.publish(m.toString());
  }

  /** The hash's fields as {@code HGETALL} shows them. */
  Map<String, String> fields() {
    Map<String, String> f = new LinkedHashMap<>();
    Optional<ActiveOverride> o = machine.activeOverride();
    f.put("state", machine.storedState().code());
    f.put("epoch", epoch);
    f.put("generation", Long.toString(machine.generation()));
    f.put("openUntil", Long.toString(machine.openUntilMillis()));
    f.put("openMillis", Long.toString(machine.openMillis()));
    machine
        .hints()
        .last()
        .ifPresent(
            h -> {
              f.put("hintMillis", Long.toString(h.hint().millis()));
              f.put("hintSource", h.hint().source().name());
              f.put("hintUntil", Long.toString(h.untilMillis()));
            });
    LocalCounts counts = machine.counts();
    f.put("winFailures", Long.toString(counts.windowFailures()));
    f.put("winCalls", Long.toString(counts.windowCalls()));
    f.put("failuresTotal", Long.toString(counts.failuresTotal()));
    f.put("successesTotal", Long.toString(counts.successesTotal()));
    o.ifPresent(
        a -> {
          f.put("override", a.kind().code());
          f.put("overrideUntil", Long.toString(a.untilMillis()));
          f.put("overrideAt", Long.toString(a.setAtMillis()));
          f.put("overrideActor", a.actor());
          f.put("overrideReason", a.reason());
          f.put("overrideCorrelationId", correlationId);
        });
    PolicyEncoding.WarmedPolicy w = warmed;
    if (w != null) {
      f.putAll(PolicyEncoding.toFields(w));
    } else if (nodePolicy != null) {
      f.put("nodePolicy", nodePolicy);
    }
    return f;
  }
}
