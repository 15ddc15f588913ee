package io.breakerctl.runtime.internal;

import static io.breakerctl.runtime.store.StoreFutures.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.testing.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The messages a registry's warm-up runs through its message path have the fields of what the
 * scripts publish: a warm-up message with fewer fields left the first real trip's unseen field
 * names to de-optimize the compiled JSON parser in every JVM of a fresh fleet at once.
 */
@DisplayName("The warm-up's transition messages are shaped as the scripts' messages")
class WarmUpMessageIT {

  @RegisterExtension static final RedisExtension redis = RedisExtension.standalone();

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  @DisplayName("a threshold trip and a probe's close carry exactly the warm-up's fields")
  void sameFields() throws Exception {
    BreakerId id = BreakerId.parse("warm-up-shape:dep");
    Policy p =
        Policy.builder()
            .failureThreshold(2)
            .open(Duration.ofMillis(100))
            .halfOpenPermits(1)
            .build();
    ConcurrentLinkedQueue<String> messages = new ConcurrentLinkedQueue<>();
    try (RedisFleetStore store =
        RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      java.util.concurrent.CountDownLatch subscribed = new java.util.concurrent.CountDownLatch(1);
      try (var sub = store.subscribe(messages::add, subscribed::countDown)) {
        assertThat(subscribed.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        await(store.record(id, Outcome.failure("jvm0-1", ""), p));
        RecordResult trip = await(store.record(id, Outcome.failure("jvm0-1", ""), p));
        assertThat(trip.state()).isEqualTo(State.OPEN);
        Poll.until(
            Duration.ofSeconds(5),
            "the open window to end",
            () -> await(store.snapshot(id, 0)).effectiveState() == State.HALF_OPEN);
        AcquireResult lease = await(store.acquire(id, "jvm0-1", p));
        assertThat(lease.leaseId()).isNotEmpty();
        RecordResult closed =
            await(
                store.record(
                    id, Outcome.probe("jvm0-1", lease.generation(), lease.leaseId(), true), p));
        assertThat(closed.state()).isEqualTo(State.CLOSED);
        Poll.until(
            Duration.ofSeconds(5),
            "the close's message",
            () -> messages.stream().anyMatch(m -> m.contains("PROBES_SUCCEEDED")));
      }
    }
    ObjectNode[] warmUp = MessagePath.warmUpTransitions("jvm0-1", 1796189124697L);
    assertThat(fields(warmUp[0]))
        .as("the warm-up's trip")
        .isEqualTo(fields(published(messages, "FAILURE_THRESHOLD")));
    assertThat(fields(warmUp[1]))
        .as("the warm-up's close")
        .isEqualTo(fields(published(messages, "PROBES_SUCCEEDED")));
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(
      value = Mode.class,
      names = {"HYBRID", "SHARED"})
  @DisplayName(
      "a registry's warm-up (its scratch breaker's rejections included) sends nothing about the"
          + " scratch breaker")
  void warmUpSendsNothingAboutTheScratchBreaker(Mode mode) {
    var server = redis.server();
    server.call("CONFIG", "SET", "slowlog-log-slower-than", "0");
    server.call("CONFIG", "SET", "slowlog-max-len", "5000");
    try {
      server.call("SLOWLOG", "RESET");
      BreakerRegistry.builder()
          .redisUri(redis.uri())
          .nodeId("warm-" + mode)
          .mode(mode)
          .build()
          .close();
      // every command with its arguments (the slow log keeps them all at a 0 threshold), but the
      // message the node publishes to itself, which names the scratch breaker
      StringBuilder sent = new StringBuilder();
      for (Object entry : (List<?>) server.call("SLOWLOG", "GET", "5000")) {
        List<?> args = (List<?>) ((List<?>) entry).get(3);
        if (!"PUBLISH".equalsIgnoreCase(String.valueOf(args.get(0)))) {
          sent.append(args).append('\n');
        }
      }
      assertThat(sent).as("the store's warm-up, logged").contains("breakerctl-warm-up:record-path");
      assertThat(sent)
          .as("the scratch breaker's rejections are decided by its view alone")
          .doesNotContain("breakerctl-warm-up:message-path");
    } finally {
      server.call("CONFIG", "SET", "slowlog-log-slower-than", "10000");
    }
  }

  private static JsonNode published(ConcurrentLinkedQueue<String> messages, String cause)
      throws Exception {
    for (String m : messages) {
      JsonNode n = JSON.readTree(m);
      if (cause.equals(n.path("cause").asText())) {
        return n;
      }
    }
    throw new AssertionError("no " + cause + " message in " + messages);
  }

  private static Set<String> fields(JsonNode n) {
    List<String> names = new ArrayList<>();
    n.fieldNames().forEachRemaining(names::add);
    return new TreeSet<>(names);
  }
}
