package io.breakerctl;

import io.breakerctl.cli.FleetStores;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.FleetStore;
import java.util.Optional;

/**
 * The CLI's and the console's stores on Redis: the only class above the runtime that names the
 * Redis adapter. {@link BreakerCtl} hands it to every command as its {@link FleetStores}.
 */
public final class RedisFleetStores implements FleetStores {

  /** The stores on Redis (stateless: one serves every command line). */
  public RedisFleetStores() {}

  @Override
  public FleetStore connect(Target target) {
    return RedisFleetStore.connect(
        StoreConfig.builder()
            .uri(target.uri())
            .timeout(target.timeout())
            .prefix(target.prefix())
            .username(target.username())
            .password(target.password())
            .caFile(target.caFile())
            .build());
  }

  @Override
  public Optional<String> authenticatedUser(String uri, String username, String password) {
    return RedisFleetStore.authenticatedUser(uri, username, password);
  }
}
