package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Transitions;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisClusterProcess;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One Redis deployment the script suite runs against: a standalone server or a 3-master cluster, on
 * each redis-server binary available (the embedded 6.2 always, a 7.x on PATH when present).
 */
final class StoreTarget {
  private static final AtomicInteger SEQ = new AtomicInteger();

  private final String label;
  private final RedisServerProcess server;
  private final RedisClusterProcess cluster;
  private final RedisExtension owner;
  final RedisFleetStore store;

  private StoreTarget(
      String label, RedisServerProcess server, RedisClusterProcess cluster, RedisExtension owner) {
    this.label = label;
    this.server = server;
    this.cluster = cluster;
    this.owner = owner;
    this.store = owner.manage(connect(Duration.ofSeconds(5)));
  }

  /** Starts every target; {@code owner} stops them after the test class. */
  static List<StoreTarget> startAll(RedisExtension owner, boolean withCluster) {
    List<StoreTarget> out = new ArrayList<>();
    for (RedisBinary b : RedisBinary.all()) {
      RedisServerProcess s = owner.manage(RedisServerProcess.start(b));
      out.add(new StoreTarget(b.label() + " standalone", s, null, owner));
      if (withCluster) {
        RedisClusterProcess c = owner.manage(RedisClusterProcess.start(b));
        out.add(new StoreTarget(b.label() + " cluster", null, c, owner));
      }
    }
    return out;
  }

  String uri() {
    return server != null ? server.uri() : cluster.uri();
  }

  boolean isCluster() {
    return cluster != null;
  }

  /** A new, separately connected store (closed with the target). */
  RedisFleetStore connect(Duration timeout) {
    return connect(StoreConfig.builder().uri(uri()).timeout(timeout).build());
  }

  RedisFleetStore connect(StoreConfig config) {
    return owner.manage(RedisFleetStore.connect(config));
  }

  /** The server holding {@code id}'s keys. */
  RedisServerProcess nodeFor(BreakerId id) {
    return server != null ? server : cluster.masterFor(store.keys().hash(id));
  }

  /** Every master. */
  List<RedisServerProcess> masters() {
    return server != null ? List.of(server) : cluster.nodes();
  }

  /** A breaker id no other test uses. */
  static BreakerId freshId(String name) {
    return BreakerId.parse("it-" + name + ":dep-" + SEQ.incrementAndGet());
  }

  /** Every event the scripts wrote for {@code id} is a row of the transition table. */
  void assertEventsLegal(BreakerId id) {
    List<BreakerEvent> events = StoreFutures.await(store.eventsAfter(id, "", 20_000));
    for (BreakerEvent e : events) {
      assertThat(Transitions.isLegal(e.from(), e.to(), e.cause()))
          .as("event %s %s -> %s (%s) is legal", e.streamId(), e.from(), e.to(), e.cause())
          .isTrue();
    }
  }

  @Override
  public String toString() {
    return label;
  }
}
