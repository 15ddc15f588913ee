package io.breakerctl.runtime.lockstep;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.redis.BreakerScript;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * Model-based test of the three implementations of the breaker: generated sequences of timed
 * operations ({@link Ops}: failures, success batches, slow calls, acquires with and without a named
 * lease, probe results, late results of an old generation, lease releases, every override with and
 * without expiry, clears, warms, waits across bucket, window, open, lease and override boundaries)
 * run on {@code LocalStateMachine}, on {@code InProcessBreakerStore} and on the Lua scripts on a
 * real redis-server (embedded 6.2) through {@link RedisFleetStore}, one fresh breaker per sequence.
 * Every answer, every transition event and, after every step, the fields that decide the breaker's
 * next answers must agree ({@link Lockstep}, {@link MachineHash}). A failure prints the shrunk
 * sequence with each step's answer; it becomes a row of the scenario table.
 *
 * <p>Time: the scripts read Redis {@code TIME}, as they must. The policies' durations are tens of
 * ms and waits are real sleeps, so a sequence crosses its boundaries in well under a second. The
 * Java sides are not fed the wall clock but the Redis time each script ran at: each call is
 * bracketed by {@code TIME} inside one {@code MULTI/EXEC} ({@link RedisBreaker}), and every
 * millisecond of the bracket is tried on the Java sides, keeping the one that agrees (exact, see
 * {@link Lockstep}). A loaded machine makes steps late and brackets wider; it changes which times
 * the sides run at, never whether they agree.
 *
 * <p>Size: {@code -Dmodel.tries} sequences (default 40) of up to {@code -Dmodel.steps} operations
 * (default 40); a failure names its seed, {@code -Dmodel.seed=...} replays it.
 */
class LockstepIT {
  private static final AtomicInteger RUNS = new AtomicInteger();

  private static RedisServerProcess server;
  private static RedisFleetStore store;

  @BeforeContainer
  static void start() throws Exception {
    server = RedisServerProcess.start(RedisBinary.embedded());
    store =
        RedisFleetStore.connect(
            StoreConfig.builder()
                .uri(server.uri())
                .timeout(Duration.ofSeconds(30))
                .commandTimeout(Duration.ofSeconds(30))
                .build());
    // loaded once, so no call inside a MULTI meets NOSCRIPT (whose retry would run after EXEC)
    @SuppressWarnings("unchecked")
    StatefulRedisConnection<String, String> c =
        (StatefulRedisConnection<String, String>) store.connection();
    for (BreakerScript s : BreakerScript.values()) {
      c.async().scriptLoad(s.body()).get(30, TimeUnit.SECONDS);
    }
  }

  @AfterContainer
  static void stop() {
    if (store != null) {
      store.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Property(tries = 40, edgeCases = EdgeCasesMode.NONE)
  @SizedBy(value = "model.tries", tries = 40)
  void machineStoreAndScriptsAgree(@ForAll("sequences") Ops.Sequence seq) {
    BreakerId id = BreakerId.parse("lockstep:run-" + RUNS.incrementAndGet());
    Lockstep run = new Lockstep(seq, id);
    run.againstScripts(new RedisBreaker(store, id, seq.shape().toPolicy()));
    run.covered().forEach(c -> Statistics.label("covered").collect(c));
  }

  @Provide
  Arbitrary<Ops.Sequence> sequences() {
    return Ops.sequences(1, Integer.getInteger("model.steps", 40));
  }
}
