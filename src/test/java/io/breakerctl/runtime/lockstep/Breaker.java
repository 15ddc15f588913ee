package io.breakerctl.runtime.lockstep;

import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.WarmResult;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One implementation of a breaker the sequences run on (the machine, the in-process store, the
 * scripts), in the store's vocabulary: each call is one script call at the side's time.
 */
interface Breaker {

  /** Whether a grant carries the lease name the caller gave (the scripts do; the machine not). */
  default boolean namesLeases() {
    return false;
  }

  /** acquire.lua; {@code leaseName} empty for a lease the side numbers itself. */
  AcquireResult acquire(String owner, String leaseName);

  /** record.lua. */
  RecordResult record(Outcome outcome);

  /** renew.lua: the lease {@code leaseId} of {@code owner}, granted in {@code generation}. */
  RenewResult renew(String owner, String leaseId, String generation);

  /** override.lua. */
  OverrideResult override(OverrideRequest request);

  /** warm.lua. */
  WarmResult warm(String policyId, long version, Policy policy);

  /**
   * The fields that decide what the breaker does next, named as in the script's hash (see {@link
   * MachineHash}): leases as {@code h<handle>|<owner>@<expiry>}, the handle given by {@code
   * handleOf} for a lease id.
   */
  Map<String, String> hash(Function<String, String> handleOf);

  /**
   * The snapshot fields a reader of the store sees (the raw hash on Redis, the in-process store's
   * snapshot), or null when the side is no store.
   */
  Map<String, String> storeFields();

  /**
   * The transitions since the last call, oldest first, as {@code FROM>TO CAUSE g=<generation>
   * at=<ms>} ({@code at} left out by a side that does not know it).
   */
  List<String> drainEvents();
}
