package io.breakerctl.runtime.store.inprocess;

import io.breakerctl.runtime.local.LocalAdmission;
import io.breakerctl.runtime.local.LocalOverrideResult;
import io.breakerctl.runtime.local.LocalRecordResult;
import io.breakerctl.runtime.local.LocalRenewal;
import io.breakerctl.runtime.local.LocalWarmResult;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.RenewOutcome;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.WarmOutcome;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.EventTail;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.PolicyEncoding;
import io.breakerctl.runtime.store.ReassertResult;
import io.breakerctl.runtime.store.Reassertion;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.WarmResult;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A {@link BreakerStore} in this process: one {@code LocalStateMachine} per breaker stands for the
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
 * <p>Each breaker keeps its event stream's tail as the scripts keep it without a history
 * destination (the newest 100 events), read with {@link #eventsAfter}. Not kept: the durable
 * forwarding state and ACLs (the control plane runs on Redis only). Messages are delivered
 * synchronously, on the thread whose command caused them, before its future completes.
 *
 * <p>Commands run one at a time, as Redis runs its scripts ({@link CommandRunner}). The store
 * routes each command to its breaker ({@link InProcessBreaker}: the machine, the fields beside it,
 * the messages it publishes), fails it as the injected faults say ({@link StoreFaults}), and
 * delivers fleet messages to its subscriptions ({@link FleetChannel}).
 */
public final class InProcessBreakerStore implements BreakerStore, EventTail {
  private final Clock clock;
  private final Map<BreakerId, InProcessBreaker> entries = new ConcurrentHashMap<>();
  private final AtomicLong epochs = new AtomicLong();
  private final AtomicLong incarnation = new AtomicLong(1);
  private final StoreFaults faults = new StoreFaults();
  private final CommandRunner commands = new CommandRunner(faults);
  private final FleetChannel channel = new FleetChannel(commands, faults);

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
    faults.available(answers);
  }

  /**
   * Makes commands of one kind (as {@link #commands(String)} names them) fail as an unreachable
   * Redis does while the others answer, e.g. {@code ping} to hold a node degraded.
   */
  public void failing(String kind, boolean fails) {
    faults.failing(kind, fails);
  }

  /**
   * Makes commands of one kind refused as an ACL refuses them ({@code StorePermissionException},
   * {@link StoreFault#NOPERM}): Redis answers, and refuses the work.
   */
  public void refusing(String kind, boolean refuses) {
    refusing(kind, refuses ? StoreFault.NOPERM : null);
  }

  /**
   * Makes commands of one kind answer with an error reply of {@code fault} ({@code OOM}, {@code
   * READONLY}, ... as Redis does; {@code OTHER}: an error of the request), null to stop.
   */
  public void refusing(String kind, StoreFault fault) {
    faults.refusing(kind, fault);
  }

  /** Drops every fleet message while on (subscriptions stay open): lost pub/sub messages. */
  public void dropMessages(boolean drop) {
    faults.dropMessages(drop);
  }

  /** Forgets every breaker as FLUSHALL does, connections staying up: the canary moves. */
  public void flushAll() {
    commands.exclusively(
        () -> {
          entries.clear();
          incarnation.incrementAndGet();
        });
  }

  /** Forgets {@code id} as a flushed or failed-over Redis does: its next use is a new epoch. */
  public void lose(BreakerId id) {
    commands.exclusively(() -> entries.remove(id));
  }

  /**
   * The commands of one kind answered or refused so far: {@code acquire}, {@code record}, {@code
   * override}, {@code reassert}, {@code warm}, {@code state}, {@code events}, {@code stamps},
   * {@code canary}, {@code ping}, {@code alive}, {@code warmUp}, {@code subscribe}, {@code publish}
   * (what a test counts).
   */
  public long commands(String kind) {
    return commands.commands(kind);
  }

  /** The machine standing for {@code id}'s hash, created CLOSED with {@code policy} if absent. */
  private InProcessBreaker entry(BreakerId id, Policy policy) {
    return entries.computeIfAbsent(
        id,
        k ->
            new InProcessBreaker(
                k,
                policy == null ? Policy.builder().build() : policy,
                clock,
                nextEpoch(),
                channel));
  }

  private String nextEpoch() {
    return Long.toString(epochs.incrementAndGet());
  }

  /** The entry of {@code id} with the policy the scripts would use for this caller. */
  private InProcessBreaker use(BreakerId id, Policy callers) {
    InProcessBreaker e = entry(id, callers);
    e.policy(callers);
    return e;
  }

  @Override
  public CompletableFuture<AcquireResult> acquire(BreakerId id, String node, Policy policy) {
    return commands.run(
        "acquire",
        () -> {
          if (!entries.containsKey(id)) {
            // as acquire.lua on a breaker without keys: admitted CLOSED, nothing written, no epoch
            return new AcquireResult(true, State.CLOSED, AdmissionReason.CLOSED, "0", "", 0, "");
          }
          InProcessBreaker e = use(id, policy);
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
    return commands.run(
        "record",
        () -> {
          InProcessBreaker e = use(id, policy);
          if (heartbeat != null) {
            // the report as record.lua stores it and readers parse it: its JSON, stamped with the
            // store's time
            e.nodes.put(
                heartbeat.node(),
                NodeHeartbeat.parse(heartbeat.node(), heartbeat.toJson(), clock.millis()));
          }
          long gen = outcome.generation().isEmpty() ? -1 : Long.parseLong(outcome.generation());
          LocalRecordResult r =
              e.machine.record(
                  outcome.failures(),
                  outcome.successes(),
                  outcome.durationMillis(),
                  gen,
                  outcome.leaseId(),
                  outcome.node(),
                  outcome.hint());
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
    return commands.run(
        "renew",
        () -> {
          if (!entries.containsKey(id)) {
            // as renew.lua on a breaker without keys: nothing held, nothing written
            return new RenewResult(State.CLOSED, RenewOutcome.STALE_LEASE, "0", 0, "", 0);
          }
          InProcessBreaker e = use(id, policy);
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
    return commands.run(
        "override",
        () -> {
          InProcessBreaker e = entry(id, null);
          String held = e.correlationId;
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
                          request.reason(),
                          request.keep());
          if (!r.changed()) {
            e.correlationId = held; // as the script: nothing written
          }
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
    return commands.run("reassert", () -> use(id, policy).reassert(request, this::nextEpoch));
  }

  @Override
  public CompletableFuture<WarmResult> warm(
      BreakerId id, String policyId, long version, Policy policy, String actor) {
    return commands.run(
        "warm",
        () -> {
          if (version < 1) {
            // as warm.lua's error reply: a fault of the request
            throw new StoreException("warm: version must be an integer >= 1", null);
          }
          InProcessBreaker e = entry(id, policy);
          // the machine's own rule (warm.lua's): an older or equal version of the same policy id
          // never replaces the one held; a newer one or another id is written and used next
          LocalWarmResult w = e.machine.warm(policyId, version, policy);
          if (!w.written()) {
            return new WarmResult(
                false, WarmOutcome.valueOf(w.outcome()), w.policyId(), w.version(), e.epoch);
          }
          e.warmed = new PolicyEncoding.WarmedPolicy(policyId, version, policy);
          e.publishPolicy(policyId, version);
          return new WarmResult(true, WarmOutcome.WARMED, policyId, version, e.epoch);
        });
  }

  @Override
  public CompletableFuture<BreakerSnapshot> state(BreakerId id) {
    return commands.run(
        "state",
        () -> {
          InProcessBreaker e = entries.get(id);
          Map<String, String> fields = e == null ? Map.of() : e.fields();
          List<NodeHeartbeat> nodes = e == null ? List.of() : List.copyOf(e.nodes.values());
          return new BreakerSnapshot(id, fields, List.of(), List.of(), nodes, clock.millis());
        });
  }

  /**
   * As XRANGE on the breaker's stream: its events after {@code afterStreamId} (exclusive; empty for
   * the start), oldest first, none for a breaker without keys.
   */
  @Override
  public CompletableFuture<List<BreakerEvent>> eventsAfter(
      BreakerId id, String afterStreamId, int count) {
    return commands.run(
        "events",
        () -> {
          InProcessBreaker e = entries.get(id);
          return e == null ? List.<BreakerEvent>of() : e.events.after(afterStreamId, count);
        });
  }

  @Override
  public CompletableFuture<List<String>> stamps(List<BreakerId> ids) {
    return commands.run(
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
    return commands.run("canary", () -> "in-process=" + incarnation.get());
  }

  @Override
  public CompletableFuture<String> ping() {
    return commands.run("ping", () -> "PONG");
  }

  /** Hot fallback data: value and expiry (store ms) by breaker and field. */
  private final Map<String, Map.Entry<String, Long>> hot = new ConcurrentHashMap<>();

  @Override
  public CompletableFuture<String> hotGet(BreakerId id, String field) {
    return commands.run(
        "hot get",
        () -> {
          Map.Entry<String, Long> e = hot.get(id + "|" + field);
          return e == null || e.getValue() <= clock.millis() ? null : e.getKey();
        });
  }

  @Override
  public CompletableFuture<Void> hotPut(BreakerId id, String field, String value, Duration ttl) {
    return commands.run(
        "hot put",
        () -> {
          hot.put(id + "|" + field, Map.entry(value, clock.millis() + ttl.toMillis()));
          return null;
        });
  }

  @Override
  public CompletableFuture<Void> hotDelete(BreakerId id, String field) {
    return commands.run(
        "hot delete",
        () -> {
          hot.remove(id + "|" + field);
          return null;
        });
  }

  /** Until when (store ms) each node counts as alive; what {@link #alive} wrote. */
  private final Map<String, Long> alive = new ConcurrentHashMap<>();

  @Override
  public CompletableFuture<Long> alive(String node, Duration validFor) {
    return commands.run(
        "alive",
        () -> {
          long now = clock.millis();
          alive.put(node, now + validFor.toMillis()); // ZERO: gone now
          return now;
        });
  }

  /** Until when (store ms) {@code node} counts as alive, empty when it never said. */
  public OptionalLong aliveUntil(String node) {
    Long until = alive.get(node);
    return until == null ? OptionalLong.empty() : OptionalLong.of(until);
  }

  @Override
  public CompletableFuture<Void> warmUp() {
    return commands.run("warmUp", () -> null);
  }

  @Override
  public Subscription subscribe(Consumer<String> onMessage, Runnable onSubscribed) {
    return channel.subscribe(onMessage, onSubscribed);
  }

  /** Nothing to release: the store belongs to whoever created it, not to the registries on it. */
  @Override
  public void close() {}
}
