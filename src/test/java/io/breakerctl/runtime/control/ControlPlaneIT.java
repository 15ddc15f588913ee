package io.breakerctl.runtime.control;

import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.testing.RedisExtension;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fixture of the control-plane integration tests: a real redis-server (the embedded 6.2 binary,
 * flushed before each test), the in-process MongoDB with a fresh database per test, and a store and
 * database client on them.
 */
public abstract class ControlPlaneIT {

  @RegisterExtension protected static final RedisExtension REDIS = RedisExtension.standalone();

  protected static TestMongo mongo;

  protected ControlDatabase db;
  protected RedisFleetStore redis;
  protected final Clock clock = Clock.systemUTC();

  @BeforeAll
  protected static void startMongo() {
    mongo = TestMongo.start();
  }

  @AfterAll
  protected static void stopMongo() {
    mongo.close();
  }

  @BeforeEach
  protected void connect() {
    REDIS.server().flushAll();
    db = ControlDatabase.connect(mongo.database());
    redis = store(REDIS.uri());
  }

  @AfterEach
  protected void disconnect() {
    redis.close();
    db.close();
  }

  protected static RedisFleetStore store(String uri) {
    // a deployment with a control plane: its history has a destination
    return RedisFleetStore.connect(
            StoreConfig.builder().uri(uri).timeout(Duration.ofSeconds(2)).build())
        .forwardsHistory(Duration.ofDays(7));
  }
}
