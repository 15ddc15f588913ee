package io.breakerctl.testing.scenario;

import static io.breakerctl.runtime.store.StoreFutures.await;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.Transitions;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.EventTail;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.WarmResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The scenario table's one side: one breaker of a store, driven through the node port ({@link
 * BreakerStore}: acquire, record, renew, override, warm, and {@link BreakerStore#state} for a check
 * and the totals) and read through {@link EventTail} for the events each step appended. The same
 * side runs the table on the in-process store ({@code ScenarioTableTest}, on the scenario's clock)
 * and on the Lua scripts on Redis ({@code ScenarioTableIT}, on Redis {@code TIME}), so the two
 * stores answer the table line by line. Every event read must be a row of {@link Transitions}.
 */
public final class StoreScenarioSide implements ScenarioSide {

  /** Events read per call of the stream (a step appends a few; more are read in turns). */
  private static final int BATCH = 100;

  private final BreakerStore store;
  private final EventTail events;
  private final BreakerId id;
  private final Policy policy;
  private String lastEvent = "";

  private StoreScenarioSide(BreakerStore store, EventTail events, BreakerId id, Policy policy) {
    this.store = store;
    this.events = events;
    this.id = id;
    this.policy = policy;
  }

  /**
   * The side of breaker {@code id} of {@code store}, every caller passing {@code policy} (it
   * applies while no policy is warmed into the breaker).
   */
  public static <S extends BreakerStore & EventTail> StoreScenarioSide on(
      S store, BreakerId id, Policy policy) {
    return new StoreScenarioSide(store, store, id, policy);
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

  /** Warms the policy; answers the warm's outcome with the state and generation read after it. */
  @Override
  public Answer warm(String policyId, long version, Policy warmed) {
    WarmResult w = await(store.warm(id, policyId, version, warmed, "op"));
    Answer now = check();
    return new Answer(now.state(), String.valueOf(w.outcome()), null, now.generation(), null, null);
  }

  @Override
  public Answer check() {
    BreakerSnapshot s = await(store.state(id));
    return new Answer(
        s.effectiveState().code(), null, null, Long.toString(s.generation()), null, null);
  }

  /**
   * The events appended since the last call, from the breaker's stream.
   *
   * @throws AssertionError on an event that is no row of {@link Transitions}
   */
  @Override
  public List<Event> drainEvents() {
    List<Event> out = new ArrayList<>();
    List<BreakerEvent> page;
    do {
      page = await(events.eventsAfter(id, lastEvent, BATCH));
      for (BreakerEvent e : page) {
        if (!Transitions.isLegal(e.from(), e.to(), e.cause())) {
          throw new AssertionError("illegal event " + e);
        }
        OptionalLong open = e.openMillis();
        out.add(
            new Event(
                e.from().code() + ">" + e.to().code() + " " + e.cause().name(),
                open.isPresent() ? open.getAsLong() : null));
        lastEvent = e.streamId();
      }
    } while (page.size() == BATCH);
    return out;
  }

  @Override
  public String totals() {
    BreakerSnapshot s = await(store.state(id));
    return s.failuresTotal() + "/" + s.successesTotal();
  }
}
