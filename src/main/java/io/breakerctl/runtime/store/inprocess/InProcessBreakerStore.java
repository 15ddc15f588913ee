package io.breakerctl.runtime.store.inprocess;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.breakerctl.runtime.local.ActiveOverride;
import io.breakerctl.runtime.local.LocalAdmission;
import io.breakerctl.runtime.local.LocalCounts;
import io.breakerctl.runtime.local.LocalOverrideResult;
import io.breakerctl.runtime.local.LocalRecordResult;
import io.breakerctl.runtime.local.LocalRenewal;
import io.breakerctl.runtime.local.LocalStateMachine;
import io.breakerctl.runtime.local.LocalTransition;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Epoch;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.ReassertOutcome;
import io.breakerctl.runtime.model.RenewOutcome;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.model.WarmOutcome;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.PolicyEncoding;
import io.breakerctl.runtime.store.ReassertResult;
import io.breakerctl.runtime.store.Reassertion;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.runtime.store.WarmResult;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A {@link BreakerStore} in this process: one {@link LocalStateMachine} per breaker stands for the
 * breaker's hash, with the answers, pub/sub messages and snapshot fields of the Lua scripts, so a
 * registry (or several: a fleet in one JVM) runs unchanged on it. The machine is the scripts' state
 * machine in Java (the scenario table holds the two to each other), so admission, trips, leases,
 * backoff and overrides behave as on Redis.
 *
 * <p>Made for tests of the runtime and of services that embed it: time comes from the injected
 * clock (the store's "Redis time"), and {@link #available(boolean)} makes every command fail as an
 * unreachable Redis does (subscriptions read closed and deliver nothing meanwhile), to show what
 * nodes do while degraded and when the store comes back. {@link #lose(BreakerId)} forgets a breaker
 * as a flushed or failed-over Redis does (a new epoch).
 *
 * <p>Not kept: the event stream, the durable forwarding state and ACLs (the control plane runs on
 * Redis only). Messages are delivered synchronously, on the thread whose command caused them,
 * before its future completes.
 *
 * <p>Commands run one at a time, as Redis runs its scripts: each holds the store's lock, so a read
 * never sees half of another command's change. Without it a node's background read, taken while
 * another thread's failure tripped the breaker, saw the new generation with the old state (CLOSED
 * at generation 1), and the node took the fleet's trip back: 3 probes without a lease in 400 runs
 * of a two-node trip on a loaded machine. The messages a command publishes are delivered after it
 * has released the lock (still before its future completes), so a node's message handler never
 * waits for the store while the store waits for that node.
 */
public final class InProcessBreakerStore implements BreakerStore {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Clock clock;
  private final Map<BreakerId, Entry> entries = new ConcurrentHashMap<>();
  private final List<Sub> subscriptions = new CopyOnWriteArrayList<>();
  private final AtomicLong epochs = new AtomicLong();
  private final Map<String, AtomicLong> commands = new ConcurrentHashMap<>();
  private volatile boolean available = true;
  private final AtomicLong incarnation = new AtomicLong(1);
  private volatile boolean dropping;

  /** Held by each command while it runs (see the class comment). */
  private final Object commandLock = new Object();

  /** The deliveries of the command this thread runs, made once it released the lock. */
  private final ThreadLocal<List<Runnable>> outbox = new ThreadLocal<>();

  private final java.util.Set<String> failingKinds = ConcurrentHashMap.newKeySet();
  private final Map<String, io.breakerctl.runtime.store.StoreFault> refusedKinds =
      new ConcurrentHashMap<>();

  /** One breaker: its machine, its incarnation, what the scripts keep beside the machine. */
  private final class Entry {
    final BreakerId id;
    final LocalStateMachine machine;

    /** The incarnation; a re-assertion over a rewound store starts a new one (reassert.lua). */
    volatile String epoch = Long.toString(epochs.incrementAndGet());

    final Map<String, NodeHeartbeat> nodes = new ConcurrentHashMap<>();
    volatile PolicyEncoding.WarmedPolicy warmed;
    volatile String nodePolicy;
    volatile String correlationId = "";

    Entry(BreakerId id, Policy policy) {
      this.id = id;
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

    void publish(LocalTransition t) {
      ObjectNode m = JSON.createObjectNode();
      m.put("type", "transition");
      m.put("id", id.toString());
      m.put("epoch", epoch);
      m.put("from", t.from().code());
      m.put("to", t.to().code());
      m.put("cause", t.cause().name());
      m.put("generation", Long.toString(t.generation()));
      if (t.to() == State.OPEN) {
        m.put("until", Long.toString(machine.openUntilMillis()));
        m.put("openMillis", Long.toString(machine.openMillis()));
      }
      if (t.to().isOverride()) {
        machine
            .activeOverride()
            .ifPresent(
                o -> {
                  m.put("until", Long.toString(o.untilMillis()));
                  m.put("actor", o.actor());
                  m.put("reason", o.reason());
                  m.put("correlationId", correlationId);
                });
      }
      deliver(m.toString());
    }

    Map<String, String> fields() {
      Map<String, String> f = new LinkedHashMap<>();
      Optional<ActiveOverride> o = machine.activeOverride();
      f.put("state", machine.storedState().code());
      f.put("epoch", epoch);
      f.put("generation", Long.toString(machine.generation()));
      f.put("openUntil", Long.toString(machine.openUntilMillis()));
      f.put("openMillis", Long.toString(machine.openMillis()));
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

  /**
   * A store whose time is {@code clock}.
   *
   * @param clock the store's time (what the scripts read with TIME on Redis)
   */
  public InProcessBreakerStore(Clock clock) {
    this.clock = clock;
  }

  /** A store on the system clock. */
  public InProcessBreakerStore() {
    this(Clock.systemUTC());
  }

  /**
   * Makes the store answer (true) or fail every command as an unreachable Redis does (false). While
   * unavailable, subscriptions read closed and deliver nothing; state is kept.
   */
  public void available(boolean answers) {
    this.available = answers;
  }

  /**
   * Makes commands of one kind (as {@link #commands(String)} names them) fail as an unreachable
   * Redis does while the others answer, e.g. {@code ping} to hold a node degraded.
   */
  public void failing(String kind, boolean fails) {
    if (fails) {
      failingKinds.add(kind);
    } else {
      failingKinds.remove(kind);
    }
  }

  /**
   * Makes commands of one kind refused as an ACL refuses them ({@code StorePermissionException},
   * {@link io.breakerctl.runtime.store.StoreFault#NOPERM}): Redis answers, and refuses the work.
   */
  public void refusing(String kind, boolean refuses) {
    refusing(kind, refuses ? io.breakerctl.runtime.store.StoreFault.NOPERM : null);
  }

  /**
   * Makes commands of one kind answer with an error reply of {@code fault} ({@code OOM}, {@code
   * READONLY}, ... as Redis does; {@code OTHER}: an error of the request), null to stop.
   */
  public void refusing(String kind, io.breakerctl.runtime.store.StoreFault fault) {
    if (fault != null) {
      refusedKinds.put(kind, fault);
    } else {
      refusedKinds.remove(kind);
    }
  }

  /** Drops every fleet message while on (subscriptions stay open): lost pub/sub messages. */
  public void dropMessages(boolean drop) {
    this.dropping = drop;
  }

  /** Forgets every breaker as FLUSHALL does, connections staying up: the canary moves. */
  public void flushAll() {
    synchronized (commandLock) {
      entries.clear();
      incarnation.incrementAndGet();
    }
  }

  /** Forgets {@code id} as a flushed or failed-over Redis does: its next use is a new epoch. */
  public void lose(BreakerId id) {
    synchronized (commandLock) {
      entries.remove(id);
    }
  }

  /**
   * The commands of one kind answered or refused so far: {@code acquire}, {@code record}, {@code
   * override}, {@code reassert}, {@code warm}, {@code state}, {@code stamps}, {@code canary},
   * {@code ping}, {@code alive}, {@code warmUp}, {@code subscribe}, {@code publish} (what a test
   * counts).
   */
  public long commands(String kind) {
    AtomicLong n = commands.get(kind);
    return n == null ? 0 : n.get();
  }

  /** The machine standing for {@code id}'s hash, created CLOSED with {@code policy} if absent. */
  private Entry entry(BreakerId id, Policy policy) {
    return entries.computeIfAbsent(
        id, k -> new Entry(k, policy == null ? Policy.builder().build() : policy));
  }

  private void count(String kind) {
    commands.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
  }

  /** The entry of {@code id} with the policy the scripts would use for this caller. */
  private Entry use(BreakerId id, Policy callers) {
    Entry e = entry(id, callers);
    e.policy(callers);
    return e;
  }

  private <T> CompletableFuture<T> run(String kind, Supplier<T> command) {
    count(kind);
    if (!available || failingKinds.contains(kind)) {
      return CompletableFuture.failedFuture(
          new StoreUnavailableException("the in-process store is unavailable", null));
    }
    io.breakerctl.runtime.store.StoreFault refused = refusedKinds.get(kind);
    if (refused != null) {
      String what = kind + ": " + refused.name() + " (in-process store)";
      return CompletableFuture.failedFuture(
          switch (refused) {
            case NOPERM, AUTH ->
                new io.breakerctl.runtime.store.StorePermissionException(what, null, refused);
            case OTHER -> new io.breakerctl.runtime.store.StoreException(what, null);
            default -> new StoreUnavailableException(what, null, refused);
          });
    }
    List<Runnable> outer = outbox.get();
    List<Runnable> mine = new ArrayList<>();
    outbox.set(mine);
    CompletableFuture<T> answer;
    try {
      synchronized (commandLock) {
        answer = CompletableFuture.completedFuture(command.get());
      }
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    } finally {
      outbox.set(outer);
    }
    mine.forEach(Runnable::run);
    return answer;
  }

  /** Runs {@code delivery} once the current command released the lock (at once outside one). */
  private void afterCommand(Runnable delivery) {
    List<Runnable> pending = outbox.get();
    if (pending == null) {
      delivery.run();
    } else {
      pending.add(delivery);
    }
  }

  @Override
  public CompletableFuture<AcquireResult> acquire(BreakerId id, String node, Policy policy) {
    return run(
        "acquire",
        () -> {
          if (!entries.containsKey(id)) {
            // as acquire.lua on a breaker without keys: admitted CLOSED, nothing written, no epoch
            return new AcquireResult(true, State.CLOSED, AdmissionReason.CLOSED, "0", "", 0, "");
          }
          Entry e = use(id, policy);
          LocalAdmission a = e.machine.tryAcquire(node);
          return new AcquireResult(
              a.allowed(),
              a.state(),
              a.reason(),
              Long.toString(a.generation()),
              a.leaseId() == null ? "" : a.leaseId(),
              a.untilMillis(),
              e.epoch);
        });
  }

  @Override
  public CompletableFuture<RecordResult> record(
      BreakerId id, Outcome outcome, Policy policy, NodeHeartbeat heartbeat) {
    return run(
        "record",
        () -> {
          Entry e = use(id, policy);
          if (heartbeat != null) {
            e.nodes.put(
                heartbeat.node(),
                new NodeHeartbeat(
                    heartbeat.node(),
                    heartbeat.state(),
                    heartbeat.policyId(),
                    heartbeat.policyVersion(),
                    heartbeat.degraded(),
                    clock.millis(),
                    heartbeat.defaults(),
                    heartbeat.degradedReason()));
          }
          long gen = outcome.generation().isEmpty() ? -1 : Long.parseLong(outcome.generation());
          LocalRecordResult r =
              e.machine.record(
                  outcome.failures(),
                  outcome.successes(),
                  outcome.durationMillis(),
                  gen,
                  outcome.leaseId(),
                  outcome.node());
          return new RecordResult(
              r.state(),
              r.windowFailures(),
              r.windowCalls(),
              r.transitioned(),
              Long.toString(r.generation()),
              "",
              e.epoch,
              r.accepted(),
              r.reason(),
              e.machine.openUntilMillis());
        });
  }

  @Override
  public CompletableFuture<RenewResult> renew(
      BreakerId id, String node, Policy policy, String leaseId, String generation) {
    return run(
        "renew",
        () -> {
          if (!entries.containsKey(id)) {
            // as renew.lua on a breaker without keys: nothing held, nothing written
            return new RenewResult(State.CLOSED, RenewOutcome.STALE_LEASE, "0", 0, "", 0);
          }
          Entry e = use(id, policy);
          long gen = generation.isEmpty() ? -1 : Long.parseLong(generation);
          LocalRenewal r = e.machine.probes().renew(leaseId, node, gen);
          return new RenewResult(
              r.state(),
              r.reason(),
              Long.toString(r.generation()),
              r.untilMillis(),
              e.epoch,
              r.renewals());
        });
  }

  @Override
  public CompletableFuture<OverrideResult> override(BreakerId id, OverrideRequest request) {
    return run(
        "override",
        () -> {
          Entry e = entry(id, null);
          e.correlationId = request.correlationId();
          LocalOverrideResult r =
              request.kind() == OverrideKind.CLEAR
                  ? e.machine.overrides().clear(request.actor(), request.reason())
                  : e.machine
                      .overrides()
                      .set(
                          request.kind().state(),
                          request.duration(),
                          request.actor(),
                          request.reason());
          long until = e.machine.activeOverride().map(o -> o.untilMillis()).orElse(0L);
          return new OverrideResult(
              r.changed(),
              r.state(),
              r.outcome(),
              "",
              Long.toString(r.generation()),
              e.epoch,
              r.previous(),
              until);
        });
  }

  /** As {@code reassert.lua}: the same outcomes (CURRENT, ENDED, ALREADY, REASSERTED). */
  @Override
  public CompletableFuture<ReassertResult> reassert(
      BreakerId id, String node, Reassertion request, Policy policy) {
    return run(
        "reassert",
        () -> {
          Entry e = use(id, policy);
          LocalStateMachine m = e.machine;
          // as the script: behind the caller (went back in time) by what was stored before the
          // time-based changes, which are recorded first
          boolean rewound =
              request.mode() == Reassertion.Mode.REASSERT
                  && (e.epoch.equals(request.seenEpoch())
                          && m.generation() < request.seenGeneration()
                      || Epoch.before(e.epoch, request.seenEpoch()));
          State state = m.settle();
          long now = clock.millis();
          boolean open = request.kind() == State.OPEN;
          Optional<ActiveOverride> held = m.activeOverride();
          ReassertOutcome outcome = null;
          if (request.mode() == Reassertion.Mode.REASSERT
              && !rewound
              && e.epoch.equals(request.seenEpoch())
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
            return new ReassertResult(
                false, outcome, state, Long.toString(m.generation()), e.epoch);
          }
          boolean trip = request.mode() == Reassertion.Mode.DEGRADED_TRIP;
          if (rewound) {
            e.epoch = Long.toString(epochs.incrementAndGet());
          }
          long gen =
              (trip ? m.generation() : Math.max(m.generation(), request.seenGeneration())) + 1;
          if (open) {
            long length =
                request.openMillis() > 0 ? request.openMillis() : m.policy().open().toMillis();
            m.seeding().seed(State.OPEN, request.untilMillis(), length, null, gen);
          } else {
            e.correlationId = request.correlationId();
            m.seeding()
                .seed(
                    m.storedState(),
                    m.openUntilMillis(),
                    m.openMillis(),
                    new ActiveOverride(
                        request.kind(),
                        request.untilMillis(),
                        request.actor(),
                        request.reason(),
                        now),
                    gen);
          }
          TransitionCause cause =
              trip ? TransitionCause.FAILURE_THRESHOLD : TransitionCause.REASSERTED;
          e.publish(new LocalTransition(state, request.kind(), cause, gen, now, 0));
          // a window that ended already: half-open now, its probes leased; probes of a lost
          // half-open incarnation may still run: every slot held for one lease
          if (m.settle() == State.HALF_OPEN && open && request.probesMayRun()) {
            m.probes().holdLost();
          }
          return new ReassertResult(
              true, ReassertOutcome.REASSERTED, m.state(), Long.toString(m.generation()), e.epoch);
        });
  }

  @Override
  public CompletableFuture<WarmResult> warm(
      BreakerId id, String policyId, long version, Policy policy, String actor) {
    return run(
        "warm",
        () -> {
          Entry e = entry(id, policy);
          PolicyEncoding.WarmedPolicy w = e.warmed;
          if (w != null && w.policyId().equals(policyId) && w.version() >= version) {
            return new WarmResult(
                false,
                w.version() == version ? WarmOutcome.UNCHANGED : WarmOutcome.STALE,
                w.policyId(),
                w.version(),
                e.epoch);
          }
          e.warmed = new PolicyEncoding.WarmedPolicy(policyId, version, policy);
          e.machine.setPolicy(policy);
          ObjectNode m = JSON.createObjectNode();
          m.put("type", "policy");
          m.put("id", id.toString());
          m.put("policyId", policyId);
          m.put("policyVersion", Long.toString(version));
          deliver(m.toString());
          return new WarmResult(true, WarmOutcome.WARMED, policyId, version, e.epoch);
        });
  }

  @Override
  public CompletableFuture<BreakerSnapshot> state(BreakerId id) {
    return run(
        "state",
        () -> {
          Entry e = entries.get(id);
          Map<String, String> fields = e == null ? Map.of() : e.fields();
          List<NodeHeartbeat> nodes = e == null ? List.of() : List.copyOf(e.nodes.values());
          return new BreakerSnapshot(id, fields, List.of(), List.of(), nodes, clock.millis());
        });
  }

  @Override
  public CompletableFuture<List<String>> stamps(List<BreakerId> ids) {
    return run(
        "stamps",
        () ->
            ids.stream()
                .map(
                    id -> {
                      Map<String, String> f =
                          entries.containsKey(id) ? entries.get(id).fields() : Map.of();
                      return BreakerStore.stamp(
                          f.get("generation"), f.get("epoch"), f.get("policyVersion"));
                    })
                .toList());
  }

  @Override
  public CompletableFuture<String> canary() {
    return run("canary", () -> "in-process=" + incarnation.get());
  }

  @Override
  public CompletableFuture<String> ping() {
    return run("ping", () -> "PONG");
  }

  /** Hot fallback data: value and expiry (store ms) by breaker and field. */
  private final Map<String, Map.Entry<String, Long>> hot = new ConcurrentHashMap<>();

  @Override
  public CompletableFuture<String> hotGet(BreakerId id, String field) {
    return run(
        "hot get",
        () -> {
          Map.Entry<String, Long> e = hot.get(id + "|" + field);
          return e == null || e.getValue() <= clock.millis() ? null : e.getKey();
        });
  }

  @Override
  public CompletableFuture<Void> hotPut(
      BreakerId id, String field, String value, java.time.Duration ttl) {
    return run(
        "hot put",
        () -> {
          hot.put(id + "|" + field, Map.entry(value, clock.millis() + ttl.toMillis()));
          return null;
        });
  }

  @Override
  public CompletableFuture<Void> hotDelete(BreakerId id, String field) {
    return run(
        "hot delete",
        () -> {
          hot.remove(id + "|" + field);
          return null;
        });
  }

  /** Until when (store ms) each node counts as alive; what {@link #alive} wrote. */
  private final Map<String, Long> alive = new ConcurrentHashMap<>();

  @Override
  public CompletableFuture<Long> alive(String node, java.time.Duration validFor) {
    return run(
        "alive",
        () -> {
          long now = clock.millis();
          alive.put(node, now + validFor.toMillis()); // ZERO: gone now
          return now;
        });
  }

  /** Until when (store ms) {@code node} counts as alive, empty when it never said. */
  public java.util.OptionalLong aliveUntil(String node) {
    Long until = alive.get(node);
    return until == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(until);
  }

  @Override
  public CompletableFuture<Void> warmUp() {
    return run("warmUp", () -> null);
  }

  @Override
  public Subscription subscribe(Consumer<String> onMessage, Runnable onSubscribed) {
    count("subscribe");
    if (!available) {
      throw new StoreUnavailableException("the in-process store is unavailable", null);
    }
    Sub s = new Sub(onMessage);
    subscriptions.add(s);
    onSubscribed.run();
    return s;
  }

  private void deliver(String message) {
    afterCommand(() -> deliverNow(message));
  }

  private void deliverNow(String message) {
    if (!available || dropping) {
      return;
    }
    for (Sub s : subscriptions) {
      try {
        s.onMessage.accept(message);
      } catch (RuntimeException e) {
        // a subscriber's failure is its own; the others still hear the message
      }
    }
  }

  /** A subscriber: open until closed, and closed to the eye while the store is unavailable. */
  private final class Sub implements Subscription {
    final Consumer<String> onMessage;
    volatile boolean closed;

    Sub(Consumer<String> onMessage) {
      this.onMessage = onMessage;
    }

    @Override
    public boolean isOpen() {
      return !closed && available;
    }

    @Override
    public CompletableFuture<Long> publish(String message) {
      return run(
          "publish",
          () -> {
            deliver(message);
            return (long) subscriptions.size();
          });
    }

    @Override
    public CompletableFuture<Long> beacon(String message) {
      return run(
          "publish",
          () -> {
            // not subject to dropping: that loses single messages of a subscription that works,
            // while a beacon not heard means a subscription that delivers nothing at all
            if (available && !closed) {
              afterCommand(() -> onMessage.accept(message));
              return 1L;
            }
            return 0L;
          });
    }

    @Override
    public void close() {
      closed = true;
      subscriptions.remove(this);
    }
  }

  /** Nothing to release: the store belongs to whoever created it, not to the registries on it. */
  @Override
  public void close() {}
}
