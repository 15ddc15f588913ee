package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisClusterProcess;
import io.breakerctl.testing.RedisServerProcess;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisFleetStore#batch}: the script calls of a batch reach each master in one pipelined
 * write (counted by the server's read events), each with its own answer; on a Cluster a call to a
 * slot that moved since the store's last topology goes again through the cluster connection.
 */
@DisplayName("store batch: one pipelined write per master, every answer its own")
class StoreBatchIT {
  private static final int CALLS = 60;

  @Test
  @DisplayName("standalone: 60 record calls in one batch reach Redis in a few reads, all counted")
  void standalone() {
    try (RedisServerProcess redis = RedisServerProcess.start(RedisBinary.embedded());
        RedisFleetStore store =
            RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      StoreFutures.await(store.ping());
      recordAll(store, "warm"); // every script cached, every class loaded
      long before = reads(redis);
      List<CompletableFuture<RecordResult>> calls = recordAll(store, "batch");
      long reads = reads(redis) - before - 1; // the INFO of the second count is one read
      for (CompletableFuture<RecordResult> c : calls) {
        RecordResult r = StoreFutures.await(c);
        assertThat(r.windowFailures()).isEqualTo(1);
        assertThat(r.accepted()).isTrue();
      }
      assertThat(reads).as("read events for %d pipelined calls", CALLS).isLessThanOrEqualTo(4);
      assertThat(redis.call("HGET", "cb:{batch:dep7}", "winFailures")).isEqualTo("1");
    }
  }

  @Test
  @DisplayName("cluster: one write per master; a slot moved behind the store's back still works")
  void cluster() {
    try (RedisClusterProcess cluster = RedisClusterProcess.start(RedisBinary.embedded());
        RedisFleetStore store =
            RedisFleetStore.connect(StoreConfig.builder().uri(cluster.uri()).build())) {
      recordAll(store, "warm");
      Map<RedisServerProcess, Long> before = new HashMap<>();
      cluster.nodes().forEach(n -> before.put(n, reads(n)));
      List<CompletableFuture<RecordResult>> calls = recordAll(store, "batch");
      for (CompletableFuture<RecordResult> c : calls) {
        assertThat(StoreFutures.await(c).windowFailures()).isEqualTo(1);
      }
      for (RedisServerProcess n : cluster.nodes()) {
        assertThat(reads(n) - before.get(n) - 1)
            .as("read events on %s for its share of %d calls", n, CALLS)
            .isLessThanOrEqualTo(4);
      }

      // Move the (empty) slot of a fresh breaker to another master behind the store's back: its
      // batched call is answered MOVED by the old master and goes again by the cluster connection.
      String key = "cb:{moved:dep}";
      int slot = RedisClusterProcess.slot(key);
      RedisServerProcess from = cluster.masterFor(key);
      RedisServerProcess to = cluster.nodes().stream().filter(n -> n != from).findFirst().get();
      String toId = String.valueOf(to.call("CLUSTER", "MYID"));
      List<RedisServerProcess> order = new ArrayList<>(List.of(to, from)); // the new owner first
      cluster.nodes().stream().filter(n -> !order.contains(n)).forEach(order::add);
      for (RedisServerProcess n : order) {
        n.call("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", toId);
      }
      CompletableFuture<RecordResult>[] moved = new CompletableFuture[1];
      store.batch(
          () ->
              moved[0] =
                  store.record(
                      BreakerId.parse("moved:dep"), Outcome.failure("n1", ""), Policy.DEFAULT));
      assertThat(StoreFutures.await(moved[0]).windowFailures()).isEqualTo(1);
      assertThat(to.call("HGET", key, "winFailures")).isEqualTo("1");
    }
  }

  private static List<CompletableFuture<RecordResult>> recordAll(
      RedisFleetStore store, String caller) {
    List<CompletableFuture<RecordResult>> calls = new ArrayList<>();
    store.batch(
        () -> {
          for (int i = 0; i < CALLS; i++) {
            calls.add(
                store.record(
                    BreakerId.parse(caller + ":dep" + i),
                    Outcome.failure("n1", ""),
                    Policy.DEFAULT));
          }
        });
    calls.forEach(StoreFutures::await);
    return calls;
  }

  /** The server's read events so far ({@code INFO stats}: total_reads_processed). */
  private static long reads(RedisServerProcess redis) {
    for (String line : String.valueOf(redis.call("INFO", "stats")).split("\r?\n")) {
      if (line.startsWith("total_reads_processed:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    throw new IllegalStateException("no total_reads_processed in INFO stats");
  }
}
