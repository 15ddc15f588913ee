package io.breakerctl.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.StoreCommand;
import io.breakerctl.runtime.StoreStats;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.Reassertion;
import io.breakerctl.runtime.store.inprocess.InProcessBreakerStore;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The store boundary's one timing point: every command kind, answered and failed. */
@DisplayName("MeteredStore times every store command by kind")
class MeteredStoreTest {
  private static final BreakerId ID = BreakerId.parse("metered:store");
  private static final Policy P = Policy.DEFAULT;

  private final InProcessBreakerStore inner = new InProcessBreakerStore();
  private final MeteredStore.Counts counts = new MeteredStore.Counts();
  private final MeteredStore store = new MeteredStore(inner, counts);

  private StoreStats stats() {
    return counts.stats(0, false);
  }

  private void sendOneOfEach() {
    List<CompletableFuture<?>> sent =
        List.of(
            store.acquire(ID, "n1", P),
            store.record(ID, Outcome.failure("n1", ""), P),
            store.record(ID, Outcome.success("n1", "", 3), P),
            store.record(ID, Outcome.successes("n1", 25), P),
            store.override(
                ID, new OverrideRequest(OverrideKind.CLEAR, "t", "test", Duration.ZERO, "")),
            store.reassert(
                ID,
                "n1",
                new Reassertion(
                    Reassertion.Mode.DEGRADED_TRIP,
                    State.OPEN,
                    "",
                    0,
                    System.currentTimeMillis() + 1_000,
                    1_000,
                    null,
                    1,
                    "",
                    "",
                    ""),
                P),
            store.warm(ID, "metered:store", 1, P, "t"),
            store.state(ID),
            store.stamps(List.of(ID)),
            store.ping(),
            store.warmUp());
    sent.forEach(f -> f.handle((v, e) -> null).join());
  }

  @Test
  @DisplayName("answered commands are counted and timed per kind; a batch of successes is a flush")
  void answered() {
    sendOneOfEach();
    StoreStats s = stats();
    assertThat(s.command(StoreCommand.RECORD).count()).isEqualTo(2); // a failure, a timed success
    assertThat(s.command(StoreCommand.FLUSH).count()).isEqualTo(1);
    for (StoreCommand k :
        List.of(
            StoreCommand.ACQUIRE,
            StoreCommand.OVERRIDE,
            StoreCommand.REASSERT,
            StoreCommand.WARM,
            StoreCommand.STATE,
            StoreCommand.STAMPS,
            StoreCommand.PING,
            StoreCommand.WARM_UP)) {
      assertThat(s.command(k).count()).as(k.code()).isEqualTo(1);
    }
    assertThat(s.commands()).isEqualTo(11);
    assertThat(s.commandNanos()).isPositive();
    assertThat(s.failures()).as("CLEAR of no override is an answer, not a failure").isZero();
  }

  @Test
  @DisplayName("commands that fail are counted per kind and not timed")
  void failed() {
    inner.available(false);
    sendOneOfEach();
    StoreStats s = stats();
    assertThat(s.commands()).isZero();
    assertThat(s.failures()).isEqualTo(11);
    assertThat(s.command(StoreCommand.FLUSH).failures()).isEqualTo(1);
    assertThat(s.command(StoreCommand.PING).failures()).isEqualTo(1);
    assertThat(s.command(StoreCommand.STAMPS).failures()).isEqualTo(1);
    assertThat(StoreCommand.WARM_UP.code()).isEqualTo("warm_up");
  }

  @Test
  @DisplayName("a registry's stats count the commands its breakers and background work send")
  void registryCountsItsCommands() {
    InProcessBreakerStore shared = new InProcessBreakerStore();
    try (BreakerRegistry r =
        BreakerRegistry.builder().store(shared).nodeId("metered-node").mode(Mode.HYBRID).build()) {
      r.breaker(ID);
      StoreStats s = r.storeStats();
      assertThat(s.command(StoreCommand.STATE).count()).as("the first read").isEqualTo(1);
      assertThat(s.command(StoreCommand.WARM_UP).count()).isEqualTo(1);
      shared.available(false);
      r.breaker(BreakerId.parse("metered:other"));
      assertThat(r.storeStats().command(StoreCommand.STATE).failures()).isEqualTo(1);
    }
  }
}
