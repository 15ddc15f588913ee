package io.breakerctl.runtime.store.inprocess;

import static io.breakerctl.runtime.store.StoreFutures.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.model.TransitionCause;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.testing.MutableClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The in-process store's event stream, read as {@code XRANGE} reads the scripts' stream: in order,
 * after a position (exclusive), the newest 100 kept, ids as {@code XADD *} gives them.
 */
@DisplayName("The in-process store keeps each breaker's event stream tail")
class InProcessEventTailTest {
  private static final BreakerId ID = BreakerId.parse("checkout:payments");
  private static final Policy POLICY =
      Policy.builder().failureThreshold(1).open(Duration.ofSeconds(10)).build();
  private static final long START = 1_700_000_000_000L;

  private final MutableClock clock = new MutableClock(START);
  private final InProcessBreakerStore store = new InProcessBreakerStore(clock);

  private void force(OverrideKind kind) {
    await(store.override(ID, new OverrideRequest(kind, "op", "test", Duration.ZERO, "c-1")));
  }

  @Test
  void aTripAndItsEndAreReadInOrderWithTheScriptsFields() {
    await(store.record(ID, Outcome.failure("n1", ""), POLICY));
    clock.advanceMillis(10_000);
    await(store.acquire(ID, "n1", POLICY));

    List<BreakerEvent> all = await(store.eventsAfter(ID, "", 100));

    assertThat(all).hasSize(2);
    BreakerEvent trip = all.get(0);
    assertThat(trip.from()).isEqualTo(State.CLOSED);
    assertThat(trip.to()).isEqualTo(State.OPEN);
    assertThat(trip.cause()).isEqualTo(TransitionCause.FAILURE_THRESHOLD);
    assertThat(trip.field("generation")).isEqualTo("1");
    assertThat(trip.atMillis()).isEqualTo(START);
    assertThat(trip.openMillis()).hasValue(10_000);
    assertThat(trip.field("until")).isEqualTo(Long.toString(START + 10_000));
    assertThat(trip.epoch()).isNotEmpty();
    assertThat(trip.streamId()).isEqualTo(START + "-0");
    assertThat(trip.problem()).isEmpty();
    BreakerEvent ended = all.get(1);
    assertThat(ended.cause()).isEqualTo(TransitionCause.OPEN_WINDOW_ENDED);
    assertThat(ended.field("generation")).isEqualTo("2");
    assertThat(ended.openMillis()).isEmpty();
    assertThat(ended.field("until")).isEqualTo(Long.toString(START + 10_000));
    assertThat(ended.epoch()).isEqualTo(trip.epoch());
    assertThat(await(store.eventsAfter(ID, trip.streamId(), 100))).containsExactly(ended);
    assertThat(await(store.eventsAfter(ID, ended.streamId(), 100))).isEmpty();
    assertThat(await(store.eventsAfter(ID, "", 1))).containsExactly(trip);
  }

  @Test
  void eventsInOneMillisecondGetIncreasingIds() {
    force(OverrideKind.FORCED_OPEN);
    force(OverrideKind.CLEAR);
    force(OverrideKind.DISABLED);

    List<BreakerEvent> all = await(store.eventsAfter(ID, "", 100));

    assertThat(all)
        .extracting(BreakerEvent::streamId)
        .containsExactly(START + "-0", START + "-1", START + "-2");
    assertThat(all)
        .extracting(BreakerEvent::cause)
        .containsExactly(
            TransitionCause.OVERRIDE_SET,
            TransitionCause.OVERRIDE_CLEARED,
            TransitionCause.OVERRIDE_SET);
    assertThat(all.get(0).field("actor")).isEqualTo("op");
    assertThat(all.get(0).field("correlationId")).isEqualTo("c-1");
    assertThat(all.get(0).field("until")).isEqualTo("0");
    assertThat(await(store.eventsAfter(ID, Long.toString(START), 100)))
        .as("an id without a sequence reads as <ms>-0, as XRANGE reads it")
        .containsExactly(all.get(1), all.get(2));
  }

  @Test
  void theNewestHundredAreKept() {
    for (int i = 0; i < 75; i++) {
      clock.advanceMillis(1);
      force(OverrideKind.FORCED_OPEN);
      force(OverrideKind.CLEAR);
    }

    List<BreakerEvent> all = await(store.eventsAfter(ID, "", 1000));

    assertThat(all).hasSize(EventStream.RETAIN);
    assertThat(all.get(0).field("generation")).isEqualTo("51");
    assertThat(all.get(99).field("generation")).isEqualTo("150");
  }

  @Test
  void aBreakerWithoutKeysHasNoEventsAndALostOneForgetsThem() {
    assertThat(await(store.eventsAfter(ID, "", 100))).isEmpty();
    force(OverrideKind.FORCED_OPEN);
    assertThat(await(store.eventsAfter(ID, "", 100))).hasSize(1);

    store.lose(ID);

    assertThat(await(store.eventsAfter(ID, "", 100))).isEmpty();
  }

  @Test
  void anUnavailableStoreFailsTheRead() {
    force(OverrideKind.FORCED_OPEN);
    store.available(false);

    assertThatThrownBy(() -> await(store.eventsAfter(ID, "", 100)))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(store.commands("events")).isEqualTo(1);
  }
}
