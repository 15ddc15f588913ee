package io.breakerctl.runtime.fallback;

/** Who answered a call made through {@link Fallbacks}. */
public enum Served {
  /** The dependency itself: a fresh answer. */
  DEPENDENCY,
  /** The last approved snapshot: stale, with its source and age. */
  CACHED,
  /** The static safe default registered in code. */
  STATIC_DEFAULT,
  /** Nobody yet: the request was stored to run after recovery; the caller has a tracking id. */
  DEFERRED
}
