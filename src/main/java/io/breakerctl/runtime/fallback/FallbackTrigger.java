package io.breakerctl.runtime.fallback;

/** Why a fallback ran. */
public enum FallbackTrigger {
  /** The dependency answered; no fallback ran. */
  NONE,
  /** The breaker rejected the call. */
  REJECTED,
  /** The call failed (a failure or a timeout by the breaker's classifier). */
  FAILED
}
