package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.Permission;

/**
 * How a breaker decides one call: a strategy per {@link Mode}, composed once when the breaker is
 * made ({@link Admissions#of}). LOCAL asks the local machine; SHARED asks the acquire script;
 * HYBRID decides from the shared view and asks the script only for probe leases; a SHARED or HYBRID
 * strategy is wrapped in {@link DegradedAdmission}, which decides by the policy's storeFailureMode
 * while the store is down.
 */
interface Admission {

  /** The permission for one call, now. */
  Permission decide();
}
