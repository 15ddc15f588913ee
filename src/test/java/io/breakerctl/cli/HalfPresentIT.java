package io.breakerctl.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.testing.MemoryMongo;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Redis with {@code maxmemory}, filled by a cache, evicts the state hash of a forced breaker and
 * keeps its event stream (the override pins the stream without a TTL; {@code volatile-lru} evicts
 * only keys with one, and the hash is given one, as EvictionIT does): the breaker's keys are half
 * present. {@code status} lists it as PARTIAL naming the missing key instead of leaving it out (the
 * forced breaker vanished from the fleet view until a node's sweep), {@code --check} counts it, and
 * {@code describe} warns and still shows its last events.
 */
@DisplayName("status lists a breaker whose keys are half present")
class HalfPresentIT {
  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);
  @TempDir Path home;
  @RegisterExtension final MemoryMongo mongo = new MemoryMongo();

  private InProcessRun run(String... args) {
    return InProcessRun.breakerctl(home, redis.uri(), mongo.uri(), args);
  }

  @Test
  void evictedHashIsListed() throws Exception {
    for (String id : new String[] {"evict:forced", "evict:kept"}) {
      InProcessRun forced =
          run("force", "open", id, "--new", "--for", "1h", "--reason", "incident", "--yes");
      assertThat(forced.code()).as(forced.out() + forced.err()).isZero();
    }
    String hash = "cb:{evict:forced}";
    long used = Long.parseLong(field(String.valueOf(redis.server().call("INFO", "memory"))));
    redis.server().call("PEXPIRE", hash, "3600000");
    redis.server().call("CONFIG", "SET", "maxmemory", Long.toString(used + 256 * 1024));
    redis.server().call("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
    String value = "x".repeat(1024);
    for (int i = 0; i < 2_000 && exists(hash); i++) {
      try {
        redis.server().call("SET", "cache:" + i, value);
      } catch (RuntimeException e) {
        // -OOM once no key with a TTL is left to evict
        assertThat(e.getMessage()).contains("OOM");
      }
    }
    redis.server().call("CONFIG", "SET", "maxmemory", "0");
    assertThat(exists(hash)).as("the forced breaker's hash was evicted").isFalse();
    assertThat(exists(hash + ":ev")).as("its stream was kept").isTrue();

    InProcessRun table = run("status");
    assertThat(table.code()).as(table.err()).isZero();
    assertThat(table.out())
        .containsPattern("evict:forced +PARTIAL")
        .containsPattern("evict:kept +FORCED_OPEN");
    assertThat(table.err()).contains("1 breaker(s) with keys half present are shown as PARTIAL");

    InProcessRun json = run("status", "-o", "json");
    assertThat(json.code()).as(json.err()).isZero();
    JsonNode partial = null;
    for (JsonNode item : new ObjectMapper().readTree(json.out()).path("items")) {
      if (item.path("id").asText().equals("evict:forced")) {
        partial = item;
      }
    }
    assertThat(partial).as(json.out()).isNotNull();
    assertThat(partial.path("state").asText()).isEqualTo("PARTIAL");
    assertThat(partial.path("problem").asText())
        .contains("keys half present: " + hash + " is missing, its event stream kept");

    InProcessRun check = run("status", "--check", "evict:*");
    assertThat(check.code()).as("a half-present breaker is a finding").isEqualTo(1);

    InProcessRun describe = run("describe", "evict:forced");
    assertThat(describe.code()).as(describe.err()).isZero();
    assertThat(describe.err()).contains("warning: keys half present: " + hash + " is missing");
    assertThat(describe.out()).contains("OVERRIDE_SET");
  }

  private boolean exists(String key) {
    return ((Long) redis.server().call("EXISTS", key)) == 1;
  }

  private static String field(String info) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("used_memory:")) {
        return line.substring("used_memory:".length()).trim();
      }
    }
    throw new IllegalStateException("used_memory not in INFO");
  }
}
