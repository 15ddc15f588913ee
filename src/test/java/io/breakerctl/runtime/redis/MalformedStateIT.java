package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.MalformedBreakerException;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A breaker hash holding a value no script writes: every script (full paths and fast paths) answers
 * an error naming key and field and writes nothing; the Java snapshot names the field too.
 */
@DisplayName("malformed breaker hashes: the scripts and the snapshot name key and field")
class MalformedStateIT {
  static RedisServerProcess redis;
  static RedisFleetStore store;

  @BeforeAll
  static void start() {
    redis = RedisServerProcess.start(RedisBinary.embedded());
    store = RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build());
  }

  @AfterAll
  static void stop() {
    store.close();
    redis.close();
  }

  private static BreakerId corrupt(String name, String field, String value) {
    BreakerId id = BreakerId.parse("bad:" + name);
    StoreFutures.await(store.record(id, Outcome.successes("n1", 1), Policy.DEFAULT));
    redis.call("HSET", "cb:{" + id + "}", field, value);
    return id;
  }

  @Test
  @DisplayName("openUntil=notanumber: override and record (full path) name key and field")
  void notANumber() {
    BreakerId id = corrupt("until", "openUntil", "notanumber");
    Object before = redis.call("HGETALL", "cb:{" + id + "}").toString();
    assertThatThrownBy(
            () ->
                StoreFutures.await(
                    store.override(
                        id,
                        new OverrideRequest(
                            OverrideKind.FORCED_OPEN, "op", "r", Duration.ZERO, ""))))
        .isInstanceOf(MalformedBreakerException.class)
        .hasMessageContaining("cb:{bad:until}")
        .hasMessageContaining("field openUntil")
        .hasMessageContaining("notanumber");
    assertThat(redis.call("HGETALL", "cb:{" + id + "}").toString()).isEqualTo(before);
    assertThat(redis.call("EXISTS", "cb:{" + id + "}:ev")).isEqualTo(0L);
    BreakerSnapshot s = StoreFutures.await(store.snapshot(id, 0));
    assertThat(s.problem()).get().asString().contains("openUntil").contains("notanumber");
    assertThatThrownBy(s::effectiveState)
        .isInstanceOf(MalformedBreakerException.class)
        .hasMessageContaining("openUntil");
  }

  @Test
  @DisplayName("state=BOGUS: acquire's and record's full paths name the field")
  void bogusState() {
    BreakerId id = corrupt("state", "state", "BOGUS");
    assertThatThrownBy(() -> StoreFutures.await(store.acquire(id, "n1", Policy.DEFAULT)))
        .isInstanceOf(MalformedBreakerException.class)
        .hasMessageContaining("cb:{bad:state}")
        .hasMessageContaining("field state");
    assertThatThrownBy(
            () -> StoreFutures.await(store.record(id, Outcome.failure("n1", ""), Policy.DEFAULT)))
        .isInstanceOf(MalformedBreakerException.class)
        .hasMessageContaining("field state");
    assertThat(StoreFutures.await(store.snapshot(id, 0)).problem())
        .get()
        .asString()
        .contains("BOGUS");
  }

  @Test
  @DisplayName("winFailures=x on a CLOSED breaker: record's fast path falls through and names it")
  void fastPathCount() {
    BreakerId id = corrupt("count", "winFailures", "x");
    assertThatThrownBy(
            () -> StoreFutures.await(store.record(id, Outcome.failure("n1", ""), Policy.DEFAULT)))
        .isInstanceOf(MalformedBreakerException.class)
        .hasMessageContaining("cb:{bad:count}")
        .hasMessageContaining("field winFailures");
  }
}
