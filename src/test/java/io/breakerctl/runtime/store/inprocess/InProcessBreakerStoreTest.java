package io.breakerctl.runtime.store.inprocess;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The in-process store as a stand-in for Redis: its commands are atomic, as scripts are. */
@DisplayName("The in-process store runs one command at a time")
class InProcessBreakerStoreTest {
  private static final BreakerId ID = BreakerId.parse("checkout:payments");
  private static final Policy POLICY =
      Policy.builder().failureThreshold(5).open(Duration.ofSeconds(10)).build();

  /**
   * One thread trips and closes a breaker round after round while another reads it: every read
   * shows the state the transition of its generation published, never a new generation with the old
   * state (a node that read CLOSED at the trip's generation took the fleet's trip back and admitted
   * a call without a lease: DistributedBreakerTest, 3 runs in 400 on a loaded machine).
   */
  @Test
  void aReadNeverSeesHalfOfATransition() throws Exception {
    MutableClock clock = new MutableClock(1_000_000_000L);
    InProcessBreakerStore store = new InProcessBreakerStore(clock);
    Map<Long, State> published = new ConcurrentHashMap<>();
    published.put(0L, State.CLOSED);
    store.subscribe(
        m -> {
          if (m.contains("\"type\":\"transition\"") && m.contains("\"id\":\"" + ID + "\"")) {
            long gen = Long.parseLong(m.replaceAll(".*\"generation\":\"(\\d+)\".*", "$1"));
            State to = State.fromCode(m.replaceAll(".*\"to\":\"([A-Z_]+)\".*", "$1"));
            published.put(gen, to);
          }
        },
        () -> {});
    List<String> reads = new ArrayList<>();
    AtomicBoolean running = new AtomicBoolean(true);
    Thread reader =
        new Thread(
            () -> {
              long stop = System.nanoTime() + Duration.ofSeconds(20).toNanos(); // bounded
              while (running.get() && System.nanoTime() < stop) {
                BreakerSnapshot s = StoreFutures.await(store.state(ID));
                String gen = s.fields().get("generation");
                if (gen != null) {
                  synchronized (reads) {
                    reads.add(gen + ":" + s.fields().get("state"));
                  }
                }
              }
            });
    reader.start();
    try {
      for (int round = 0; round < 300; round++) {
        for (int i = 0; i < 5; i++) {
          StoreFutures.await(store.record(ID, Outcome.failure("a", ""), POLICY));
        }
        clock.advanceMillis(10_001);
        AcquireResult probe = StoreFutures.await(store.acquire(ID, "a", POLICY, "a-" + round));
        assertThat(probe.allowed()).as("round %d's probe", round).isTrue();
        StoreFutures.await(
            store.record(
                ID, Outcome.probe("a", probe.generation(), probe.leaseId(), true), POLICY));
      }
    } finally {
      running.set(false);
      reader.join(5_000);
    }
    List<String> torn = new ArrayList<>();
    synchronized (reads) {
      for (String r : reads) {
        String[] p = r.split(":");
        State seen = State.fromCode(p[1]);
        State expected = published.get(Long.parseLong(p[0]));
        if (expected != null && expected != seen) {
          torn.add(r + " (published " + expected + ")");
        }
      }
      assertThat(reads).as("reads made beside the rounds").isNotEmpty();
    }
    assertThat(published).as("a trip and a close per round").hasSizeGreaterThan(300);
    assertThat(torn).as("reads that saw a generation with another state").isEmpty();
  }
}
