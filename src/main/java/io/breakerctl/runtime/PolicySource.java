package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.PolicyEncoding.WarmedPolicy;
import java.util.Optional;

/**
 * Resolves the policy of a breaker when Redis holds none (own id, then {@code caller:*}, then
 * {@code *:*}), and warms it into Redis. The MongoDB control plane is one.
 */
@FunctionalInterface
public interface PolicySource {

  /** The resolved policy, already warmed into the breaker's keys, if any applies. */
  Optional<WarmedPolicy> resolveAndWarm(BreakerId id);
}
