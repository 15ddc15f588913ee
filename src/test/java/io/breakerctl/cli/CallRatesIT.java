package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.fallback.FallbackResult;
import io.breakerctl.runtime.fallback.Fallbacks;
import io.breakerctl.runtime.internal.RegistryInternals;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code status}, {@code describe} show the fleet's calls/s, rejected/s and fallback/s from the
 * counts a node sends with its liveness beat. The node's timer beats once an hour here, so the one
 * beat the test sends carries every call it made: the figures times their window give back the
 * counts exactly (to the rounding of the printed rate), whatever the machine's speed.
 */
@DisplayName("call rates in status and describe")
class CallRatesIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ADMITTED = 40;
  private static final int SERVED = 15;
  private static final int REJECTED_PLAIN = 5;

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);
  @TempDir Path home;

  private InProcessRun run(String... args) {
    Map<String, String> env = new HashMap<>();
    env.put("XDG_CONFIG_HOME", home.toString());
    env.put("BREAKERCTL_REDIS", redis.uri());
    env.put("BREAKERCTL_TIMEOUT", "10s");
    InProcessRun r = InProcessRun.breakerctl(env, args);
    assertThat(r.code()).as("exit of %s: %s", String.join(" ", args), r.err()).isZero();
    return r;
  }

  /** The printed rate times its window is {@code count}, to the rate's rounding (hundredths). */
  private static void countsBack(JsonNode rates, String field, long count) {
    double windowSeconds = rates.path("windowMillis").asLong() / 1000.0;
    double back = rates.path(field).asDouble() * windowSeconds;
    assertThat(Math.abs(back - count))
        .as("%s %s over %s s gives back %s", field, rates.path(field), windowSeconds, count)
        .isLessThanOrEqualTo(0.005 * windowSeconds + 1e-9);
  }

  @Test
  @DisplayName("admitted, rejected and fallback-served calls come back from rate x window")
  void ratesFromTheNodesBeat() throws Exception {
    RedisFleetStore store =
        redis.manage(RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build()));
    BreakerRegistry node =
        redis.manage(
            BreakerRegistry.builder()
                .redisUri(redis.uri())
                .nodeId("rates-node")
                .mode(Mode.HYBRID)
                .commandTimeout(Duration.ofSeconds(1))
                .heartbeatInterval(Duration.ofHours(1))
                .defaults(Policy.builder().fallbackPolicy(FallbackPolicy.STATIC_DEFAULT).build())
                .build());
    // the timer's first beat (at start) took the counts: every call below goes into the next one
    Poll.until(
        Duration.ofSeconds(10),
        "the node's first beat",
        () -> StoreFutures.await(store.liveness()).members().contains("rates-node"));
    BreakerId idle = BreakerId.parse("rates:idle");
    StoreFutures.await(store.record(idle, Outcome.successes("other", 1), Policy.DEFAULT));

    CircuitBreaker busy = node.breaker("rates:busy");
    for (int i = 0; i < ADMITTED; i++) {
      assertThat(busy.call(() -> "ok")).isEqualTo("ok");
    }
    StoreFutures.await(
        store.override(
            busy.id(),
            new OverrideRequest(
                OverrideKind.FORCED_OPEN, "test", "rates", Duration.ofMinutes(5), "")));
    Poll.until(
        Duration.ofSeconds(10),
        "the node sees FORCED_OPEN",
        () -> busy.view().state() == State.FORCED_OPEN);
    try (Fallbacks<String> fallbacks =
        Fallbacks.<String>builder(busy).staticDefault(() -> "basic plan").build()) {
      for (int i = 0; i < SERVED; i++) {
        FallbackResult<String> r = fallbacks.call(null, () -> "never called");
        assertThat(r.value()).isEqualTo("basic plan");
      }
    }
    for (int i = 0; i < REJECTED_PLAIN; i++) {
      assertThat(busy.tryAcquire().allowed()).isFalse();
    }
    StoreFutures.await(RegistryInternals.beat(node));

    JsonNode list = JSON.readTree(run("status", "rates:*", "-o", "json").out());
    Map<String, JsonNode> byId = new HashMap<>();
    list.path("items").forEach(i -> byId.put(i.path("id").asText(), i.path("rates")));
    assertThat(byId).containsOnlyKeys("rates:busy", "rates:idle");
    JsonNode rates = byId.get("rates:busy");
    assertThat(rates.path("windowMillis").asLong()).isPositive();
    countsBack(rates, "callsPerSecond", ADMITTED);
    countsBack(rates, "rejectedPerSecond", SERVED + REJECTED_PLAIN);
    countsBack(rates, "fallbacksPerSecond", SERVED);
    JsonNode quiet = byId.get("rates:idle");
    assertThat(quiet.path("callsPerSecond").asDouble()).isZero();
    assertThat(quiet.path("rejectedPerSecond").asDouble()).isZero();
    assertThat(quiet.path("fallbacksPerSecond").asDouble()).isZero();
    assertThat(quiet.path("windowMillis").asLong())
        .as("the window is stated for an idle breaker too")
        .isEqualTo(rates.path("windowMillis").asLong());

    JsonNode detail = JSON.readTree(run("describe", "rates:busy", "-o", "json").out());
    assertThat(detail.path("rates")).isEqualTo(rates);
    assertThat(detail.path("nodeRates")).hasSize(1);
    JsonNode own = detail.path("nodeRates").get(0);
    assertThat(own.path("node").asText()).isEqualTo("rates-node");
    countsBack(own, "callsPerSecond", ADMITTED);
    countsBack(own, "fallbacksPerSecond", SERVED);

    String text = run("describe", "rates:busy").out();
    assertThat(text).contains("/s admitted, ").contains("/s served by a fallback (over the last");
    assertThat(text).containsPattern("(?m)^  rates-node +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+m?s");
    String table = run("status", "rates:*").out();
    assertThat(table.lines().findFirst().orElseThrow()).contains("CALLS/S", "REJ/S");

    // the next beat: no call since, every rate zero, still with its window
    StoreFutures.await(RegistryInternals.beat(node));
    JsonNode after = JSON.readTree(run("status", "rates:busy", "-o", "json").out());
    JsonNode zero = after.path("items").get(0).path("rates");
    assertThat(zero.path("callsPerSecond").asDouble()).isZero();
    assertThat(zero.path("rejectedPerSecond").asDouble()).isZero();
    assertThat(zero.path("windowMillis").asLong()).isPositive();
  }
}
