package io.breakerctl.runtime.redis;

import static io.breakerctl.runtime.store.StoreFutures.await;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.Transitions;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.WarmResult;
import io.breakerctl.testing.scenario.ScenarioSide;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The scenario table's Lua side: the scripts on one breaker of a real Redis, via the store. */
final class RedisScenarioSide implements ScenarioSide {

  private final RedisFleetStore store;
  private final BreakerId id;
  private final Policy policy;
  private String lastEvent = "";

  RedisScenarioSide(RedisFleetStore store, BreakerId id, Policy policy) {
    this.store = store;
    this.id = id;
    this.policy = policy;
  }

  @Override
  public Answer record(
      String node,
      long failures,
      long successes,
      long durationMillis,
      String generation,
      String leaseId) {
    RecordResult r =
        await(
            store.record(
                id,
                new Outcome(node, failures, successes, durationMillis, generation, leaseId),
                policy));
    return new Answer(
        r.state().code(),
        String.valueOf(r.reason()),
        r.windowFailures() + "/" + r.windowCalls(),
        r.generation(),
        null,
        null);
  }

  @Override
  public Answer renew(String node, String generation, String leaseId) {
    RenewResult r = await(store.renew(id, node, policy, leaseId, generation));
    return new Answer(
        r.state().code(), String.valueOf(r.outcome()), null, r.generation(), null, r.untilMillis());
  }

  @Override
  public Answer acquire(String node) {
    AcquireResult a = await(store.acquire(id, node, policy));
    return new Answer(
        a.state().code(),
        String.valueOf(a.reason()),
        null,
        a.generation(),
        a.leaseId(),
        a.untilMillis());
  }

  @Override
  public Answer override(String kind, long forMillis) {
    OverrideResult r =
        await(
            store.override(
                id,
                new OverrideRequest(
                    OverrideKind.valueOf(kind),
                    "op",
                    "scenario",
                    Duration.ofMillis(forMillis),
                    "")));
    return new Answer(
        r.state().code(), String.valueOf(r.outcome()), null, r.generation(), null, null);
  }

  @Override
  public Answer warm(String policyId, long version, Policy warmed) {
    WarmResult w = await(store.warm(id, policyId, version, warmed, "op"));
    Answer now = check();
    return new Answer(now.state(), String.valueOf(w.outcome()), null, now.generation(), null, null);
  }

  @Override
  public Answer check() {
    BreakerSnapshot s = await(store.snapshot(id, 0));
    String gen = s.fields().getOrDefault("generation", "0");
    return new Answer(s.effectiveState().code(), null, null, gen, null, null);
  }

  @Override
  public List<Event> drainEvents() {
    List<Event> out = new ArrayList<>();
    for (BreakerEvent e : await(store.eventsAfter(id, lastEvent, 100))) {
      if (!Transitions.isLegal(e.from(), e.to(), e.cause())) {
        throw new AssertionError("illegal event " + e);
      }
      String om = e.field("openMillis");
      out.add(
          new Event(
              e.from().code() + ">" + e.to().code() + " " + e.cause().name(),
              om == null || om.isEmpty() ? null : Long.valueOf(om)));
      lastEvent = e.streamId();
    }
    return out;
  }

  @Override
  public String totals() {
    Map<String, String> f = await(store.snapshot(id, 0)).fields();
    return f.getOrDefault("failuresTotal", "0") + "/" + f.getOrDefault("successesTotal", "0");
  }
}
