package io.breakerctl.bench;

import io.breakerctl.runtime.HistoryDestinationIT;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The Redis memory one breaker costs (issue 41): the sum of {@code MEMORY USAGE key SAMPLES 0} over
 * every key of the breaker ({@code SCAN MATCH <prefix>:{<id>}*}), for a breaker idle (one batch of
 * successes), busy (successes and the heartbeats of three nodes), and flapping (about 1,000
 * transitions: trips and closes), each without a control plane (no history destination: a tail of
 * 100 events), with one whose forwarder stores the events (a tail of 100 forwarded events), and
 * with one whose forwarder is stopped (every event kept until the history hold ends), plus the
 * stream at its hard cap (10,000 events, a stopped forwarder). Options: {@code --transitions N
 * --redis PATH}.
 */
public final class MemoryBench {
  private MemoryBench() {}

  public static void main(String[] args) throws Exception {
    int[] transitions = {1000};
    String[] redisPath = {null};
    BenchSupport.parse(
        args,
        (name, v) -> {
          switch (name) {
            case "--transitions" -> transitions[0] = BenchSupport.positive(name, v, 3);
            case "--redis" -> redisPath[0] = v;
            default -> {
              return false;
            }
          }
          return true;
        });
    RedisBinary binary = BenchSupport.binary(redisPath[0]);
    BenchSupport.header("Redis memory per breaker", binary, redisPath[0] != null);
    try (RedisServerProcess server = RedisServerProcess.start(binary);
        RedisFleetStore plain = store(server);
        RedisFleetStore declared = store(server).forwardsHistory(Duration.ofDays(7))) {
      System.out.printf("%-52s %5s %8s %14s%n", "breaker", "keys", "stream", "MEMORY USAGE");
      BreakerId idle = BreakerId.parse("memory:idle");
      await(plain.record(idle, Outcome.successes("node-1", 50), Policy.DEFAULT, null));
      print(server, "idle (CLOSED, one flush)", idle);

      BreakerId busy = BreakerId.parse("memory:busy");
      for (int n = 1; n <= 3; n++) {
        NodeHeartbeat beat = new NodeHeartbeat("node-" + n, State.CLOSED, "", 0, false, 0);
        await(declared.record(busy, Outcome.successes("node-" + n, 500), Policy.DEFAULT, beat));
      }
      print(server, "busy (CLOSED, 3 nodes' heartbeats)", busy);

      int cycles = (transitions[0] + 2) / 3; // a trip and a close are three transitions
      BreakerId none = BreakerId.parse("memory:flapping-no-control-plane");
      BreakerId forwarded = BreakerId.parse("memory:flapping-forwarded");
      BreakerId stopped = BreakerId.parse("memory:flapping-forwarder-stopped");
      for (int i = 0; i < cycles; i++) {
        HistoryDestinationIT.tripAndClose(plain, none);
        HistoryDestinationIT.tripAndClose(declared, forwarded);
        HistoryDestinationIT.tripAndClose(declared, stopped);
      }
      String epoch = String.valueOf(server.call("HGET", "cb:{" + forwarded + "}", "epoch"));
      String last = String.valueOf(server.call("HGET", "cb:{" + forwarded + "}", "lastEvent"));
      await(declared.markForwarded(forwarded, epoch, last, "bench"));
      String after = "after " + cycles * 3 + " transitions";
      print(server, "flapping, no control plane, " + after, none);
      print(server, "flapping, forwarded, " + after, forwarded);
      print(server, "flapping, forwarder stopped, " + after, stopped);

      BreakerId capped = BreakerId.parse("memory:cap");
      List<CompletableFuture<?>> pending = new ArrayList<>();
      for (int i = 0; i < 10_002; i++) {
        OverrideKind kind = i % 2 == 0 ? OverrideKind.FORCED_OPEN : OverrideKind.CLEAR;
        pending.add(
            declared.override(capped, new OverrideRequest(kind, "op", "bench", Duration.ZERO, "")));
        if (pending.size() == 500) {
          pending.forEach(StoreFutures::await);
          pending.clear();
        }
      }
      pending.forEach(StoreFutures::await);
      print(server, "hard cap, forwarder stopped (10,002 overrides)", capped);
    }
  }

  private static RedisFleetStore store(RedisServerProcess server) {
    return RedisFleetStore.connect(
        StoreConfig.builder().uri(server.uri()).timeout(Duration.ofSeconds(10)).build());
  }

  private static <T> T await(CompletableFuture<T> f) {
    return StoreFutures.await(f);
  }

  /** One line: the breaker's keys, its stream's length and their MEMORY USAGE summed. */
  private static void print(RedisServerProcess server, String what, BreakerId id) {
    long bytes = 0;
    int keys = 0;
    String cursor = "0";
    do {
      List<?> r =
          (List<?>) server.call("SCAN", cursor, "MATCH", "cb:{" + id + "}*", "COUNT", "1000");
      cursor = r.get(0).toString();
      for (Object k : (List<?>) r.get(1)) {
        Object usage = server.call("MEMORY", "USAGE", k.toString(), "SAMPLES", "0");
        bytes += usage instanceof Long l ? l : 0;
        keys++;
      }
    } while (!cursor.equals("0"));
    long stream = (Long) server.call("XLEN", "cb:{" + id + "}:ev");
    System.out.printf("%-52s %5d %8d %,12d B%n", what, keys, stream, bytes);
  }
}
