package io.breakerctl.runtime.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.control.ControlConfig;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.control.TestMongo;
import io.breakerctl.runtime.control.policy.ApplyOptions;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyDocument;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.testing.RedisExtension;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A node's policy resolution through the control plane ({@link ControlPlaneLink}). */
@DisplayName("ControlPlaneLink: resolve and warm a breaker's policy")
class ControlPlaneLinkIT {

  @RegisterExtension final RedisExtension redis = RedisExtension.standalone();

  @Test
  @DisplayName("a warm the keys refuse (the policy was removed there) adopts nothing")
  void refusedWarmAdoptsNothing() throws Exception {
    BreakerId id = BreakerId.parse("link:dep");
    Policy three = Policy.builder().failureThreshold(3).build();
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try (TestMongo mongo = TestMongo.start();
        RedisFleetStore store =
            RedisFleetStore.connect(StoreConfig.builder().uri(redis.uri()).build())) {
      ControlConfig config = mongo.database();
      try (ControlDatabase db = ControlDatabase.connect(config)) {
        new PolicyControl(db, null, Clock.systemUTC())
            .apply(PolicyDocument.of(PolicyId.of(id), three), ApplyOptions.by("it", "v1"));
      }
      // the keys took version 1 out (its removal was read by another control plane)
      StoreFutures.await(store.warm(id, "link:dep", 1, three, "ctl"));
      StoreFutures.await(store.unwarm(id, "link:dep", 1, "ctl"));
      try (ControlPlaneLink link =
          new ControlPlaneLink(
              config,
              () -> store,
              () -> store,
              "link-node",
              Clock.systemUTC(),
              scheduler,
              new BackgroundHealth("link-node"))) {
        assertThat(link.resolveAndWarm(id)).as("the keys refused v1 as stale").isEmpty();
        assertThat(StoreFutures.await(store.snapshot(id, 0)).warmedPolicy()).isEmpty();
      }
    } finally {
      scheduler.shutdownNow();
    }
  }
}
