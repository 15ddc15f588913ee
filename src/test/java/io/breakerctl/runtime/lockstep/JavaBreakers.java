package io.breakerctl.runtime.lockstep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.local.ActiveOverride;
import io.breakerctl.runtime.local.LocalAdmission;
import io.breakerctl.runtime.local.LocalOverrideResult;
import io.breakerctl.runtime.local.LocalRecordResult;
import io.breakerctl.runtime.local.LocalRenewal;
import io.breakerctl.runtime.local.LocalStateMachine;
import io.breakerctl.runtime.local.LocalWarmResult;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.WarmOutcome;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.PolicyEncoding;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.WarmResult;
import io.breakerctl.runtime.store.inprocess.InProcessBreakerStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** The two Java sides: the machine itself and the in-process store built on it. */
final class JavaBreakers {
  private JavaBreakers() {}

  /**
   * {@link LocalStateMachine} with its answers in the scripts' shape (as the in-process store
   * shapes them, written out again here so that a mistake there shows as a difference).
   */
  static final class Machine implements Breaker {
    private final LocalStateMachine m;
    private final List<String> events = new ArrayList<>();

    Machine(Policy policy, Clock clock) {
      m = new LocalStateMachine(policy, clock);
      m.onTransition(
          t ->
              events.add(
                  t.from().code()
                      + ">"
                      + t.to().code()
                      + " "
                      + t.cause().name()
                      + " g="
                      + t.generation()
                      + " at="
                      + t.atMillis()));
    }

    @Override
    public AcquireResult acquire(String owner, String leaseName) {
      LocalAdmission a = m.tryAcquire(owner);
      return new AcquireResult(
          a.allowed(),
          a.state(),
          a.reason(),
          Long.toString(a.generation()),
          a.leaseId() == null ? "" : a.leaseId(),
          a.untilMillis(),
          "");
    }

    @Override
    public RecordResult record(Outcome o) {
      LocalRecordResult r =
          m.record(
              o.failures(),
              o.successes(),
              o.durationMillis(),
              o.generation().isEmpty() ? -1 : Long.parseLong(o.generation()),
              o.leaseId(),
              o.node());
      return new RecordResult(
          r.state(),
          r.windowFailures(),
          r.windowCalls(),
          r.transitioned(),
          Long.toString(r.generation()),
          "",
          "",
          r.accepted(),
          r.reason(),
          m.openUntilMillis());
    }

    @Override
    public RenewResult renew(String owner, String leaseId, String generation) {
      LocalRenewal r =
          m.probes().renew(leaseId, owner, generation.isEmpty() ? -1 : Long.parseLong(generation));
      return new RenewResult(
          r.state(), r.reason(), Long.toString(r.generation()), r.untilMillis(), "", r.renewals());
    }

    @Override
    public OverrideResult override(OverrideRequest q) {
      LocalOverrideResult r =
          q.kind() == OverrideKind.CLEAR
              ? m.overrides().clear(q.actor(), q.reason())
              : m.overrides().set(q.kind().state(), q.duration(), q.actor(), q.reason());
      return new OverrideResult(
          r.changed(),
          r.state(),
          r.outcome(),
          "",
          Long.toString(r.generation()),
          "",
          r.previous(),
          m.activeOverride().map(ActiveOverride::untilMillis).orElse(0L));
    }

    @Override
    public WarmResult warm(String policyId, long version, Policy policy) {
      LocalWarmResult w = m.warm(policyId, version, policy);
      return new WarmResult(
          w.written(), WarmOutcome.fromCode(w.outcome()), w.policyId(), w.version(), "");
    }

    @Override
    public Map<String, String> hash(Function<String, String> handleOf) {
      return MachineHash.of(m, handleOf);
    }

    @Override
    public Map<String, String> storeFields() {
      return null;
    }

    @Override
    public List<String> drainEvents() {
      List<String> out = List.copyOf(events);
      events.clear();
      return out;
    }
  }

  /** {@link InProcessBreakerStore}: its answers, its messages, its snapshot. */
  static final class InProcess implements Breaker {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final InProcessBreakerStore store;
    private final BreakerId id;
    private final Policy policy;
    private final Clock clock;
    private final List<String> events = new ArrayList<>();

    InProcess(BreakerId id, Policy policy, Clock clock) {
      this.store = new InProcessBreakerStore(clock);
      this.id = id;
      this.policy = policy;
      this.clock = clock;
      store.subscribe(this::message, () -> {});
    }

    private void message(String json) {
      try {
        JsonNode n = JSON.readTree(json);
        if (n.path("type").asText().equals("transition")) {
          events.add(
              n.path("from").asText()
                  + ">"
                  + n.path("to").asText()
                  + " "
                  + n.path("cause").asText()
                  + " g="
                  + n.path("generation").asText());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public AcquireResult acquire(String owner, String leaseName) {
      return leaseName.isEmpty()
          ? StoreFutures.await(store.acquire(id, owner, policy))
          : StoreFutures.await(store.acquire(id, owner, policy, leaseName));
    }

    @Override
    public RecordResult record(Outcome o) {
      return StoreFutures.await(store.record(id, o, policy));
    }

    @Override
    public RenewResult renew(String owner, String leaseId, String generation) {
      return StoreFutures.await(store.renew(id, owner, policy, leaseId, generation));
    }

    @Override
    public OverrideResult override(OverrideRequest q) {
      return StoreFutures.await(store.override(id, q));
    }

    @Override
    public WarmResult warm(String policyId, long version, Policy p) {
      return StoreFutures.await(store.warm(id, policyId, version, p, "lockstep"));
    }

    @Override
    public Map<String, String> hash(Function<String, String> handleOf) {
      Map<String, String> h = MachineHash.of(machine(), handleOf);
      // the store keeps the warmed policy beside its machine (which it hands the policy to), and
      // an override on a new breaker makes a machine on the default policy, which nothing reads
      // before the next acquire or record hands it the policy in force: that one is compared
      Map<String, String> f = storeFields();
      h.put("policyId", f.getOrDefault("policyId", ""));
      h.put("policyVersion", f.getOrDefault("policyVersion", "0"));
      h.put(
          "policy",
          PolicyEncoding.toArg(
              PolicyEncoding.fromFields(f)
                  .map(PolicyEncoding.WarmedPolicy::policy)
                  .orElse(policy)));
      return h;
    }

    /** The machine standing for the breaker's hash (a fresh one before the first command). */
    private LocalStateMachine machine() {
      Map<?, ?> entries = read(store, "entries");
      Object entry = entries.get(id);
      return entry == null ? new LocalStateMachine(policy, clock) : read(entry, "machine");
    }

    @Override
    public Map<String, String> storeFields() {
      return StoreFutures.await(store.state(id)).fields();
    }

    @Override
    public List<String> drainEvents() {
      List<String> out = List.copyOf(events);
      events.clear();
      return out;
    }

    @SuppressWarnings("unchecked")
    private static <T> T read(Object o, String field) {
      try {
        java.lang.reflect.Field f = o.getClass().getDeclaredField(field);
        f.setAccessible(true);
        return (T) f.get(o);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(
            "the lockstep tests read InProcessBreakerStore's " + field + ": update JavaBreakers",
            e);
      }
    }
  }
}
