package io.breakerctl.runtime.control.override;

import io.breakerctl.runtime.store.StoreException;
import java.util.List;

/**
 * What applying an {@link OverridePlan} did ({@link BreakerOverrides#apply(OverridePlan,
 * java.util.function.BooleanSupplier)}): a step for every entry of the plan, in its order, whatever
 * happened.
 *
 * @param steps one per entry
 * @param failure the failure that decides how the batch ended (Redis unavailable first; a lost
 *     answer that was read back decides it); after a change that landed though its answer was lost,
 *     the lost connection when entries were left not attempted; null otherwise
 */
public record AppliedOverrides(List<OverrideStep> steps, StoreException failure) {

  /** Copies the steps. */
  public AppliedOverrides {
    steps = List.copyOf(steps);
  }

  /** How many steps have {@code status}. */
  public long count(OverrideStep.Status status) {
    return steps.stream().filter(s -> s.status() == status).count();
  }
}
