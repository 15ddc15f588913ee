package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import io.breakerctl.testing.RedisServerProcess;
import io.breakerctl.testing.TcpProxy;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Redis unreachable, paused, killed or black-holed: a clear error within the timeout, no hang. */
@DisplayName("Store failures are bounded by the timeout")
class StoreFailureIT {

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final Duration TIMEOUT = Duration.ofMillis(300);

  /**
   * Every failing call returns within a generous multiple of its timeout: a loaded 2-core machine
   * can deschedule a thread for a while, a hang never ends.
   */
  private static final long BOUND_MILLIS = TIMEOUT.toMillis() * 10;

  private static final BreakerId ID = BreakerId.parse("it-failure:dep");

  private static long millisSince(long start) {
    return (System.nanoTime() - start) / 1_000_000;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  @DisplayName("nothing listening: StoreUnavailableException naming the URI, within the timeout")
  void unreachable() throws IOException {
    // Load Lettuce and Netty first: their one-time start-up is not what is measured here.
    RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build()).close();
    String uri = "redis://127.0.0.1:" + freePort();
    long start = System.nanoTime();

    assertThatThrownBy(
            () -> RedisFleetStore.connect(StoreConfig.builder().uri(uri).timeout(TIMEOUT).build()))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining(uri);
    assertThat(millisSince(start)).isLessThan(BOUND_MILLIS);
  }

  @Test
  @DisplayName("a server that accepts but never answers: unavailable within the timeout")
  void blackHole() {
    try (TcpProxy proxy = TcpProxy.to(redis.server().port())) {
      proxy.drop();
      long start = System.nanoTime();

      assertThatThrownBy(
              () ->
                  RedisFleetStore.connect(
                      StoreConfig.builder().uri(proxy.uri()).timeout(TIMEOUT).build()))
          .isInstanceOf(StoreUnavailableException.class);
      assertThat(millisSince(start)).isLessThan(BOUND_MILLIS);
    }
  }

  @Test
  @DisplayName(
      "CLIENT PAUSE: a script call fails with StoreUnavailableException within the timeout")
  void paused() {
    RedisFleetStore store =
        redis.manage(
            RedisFleetStore.connect(
                StoreConfig.builder().uri(redis.uri()).timeout(TIMEOUT).build()));
    StoreFutures.await(store.record(ID, Outcome.successes("n1", 1), Policy.DEFAULT));
    redis.server().pause(Duration.ofMillis(BOUND_MILLIS + 2_000));
    long start = System.nanoTime();

    assertThatThrownBy(() -> StoreFutures.await(store.acquire(ID, "n1", Policy.DEFAULT)))
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("acquire it-failure:dep");
    assertThat(millisSince(start)).isLessThan(BOUND_MILLIS);
  }

  @Test
  @DisplayName("killed: calls fail fast; restarted on the same port: the store recovers")
  void killedAndRestarted() {
    RedisFleetStore store =
        redis.manage(
            RedisFleetStore.connect(
                StoreConfig.builder().uri(redis.uri()).timeout(TIMEOUT).build()));
    RedisServerProcess server = redis.server();
    server.kill();
    long start = System.nanoTime();

    assertThatThrownBy(() -> StoreFutures.await(store.acquire(ID, "n1", Policy.DEFAULT)))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(millisSince(start)).isLessThan(BOUND_MILLIS);

    server.restart();
    Poll.until(
        Duration.ofSeconds(15),
        "the store to reconnect",
        () -> {
          try {
            return StoreFutures.await(store.acquire(ID, "n1", Policy.DEFAULT)).allowed();
          } catch (StoreUnavailableException e) {
            return false;
          }
        });
  }
}
