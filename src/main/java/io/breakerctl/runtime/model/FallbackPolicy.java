package io.breakerctl.runtime.model;

/** What a rejected call gets instead of the dependency's answer. */
public enum FallbackPolicy {
  /** Default: the caller receives the rejection exception. */
  NONE,
  /** The last approved cached response (fallback snapshot). */
  CACHED,
  /** A static default value configured by the service. */
  STATIC_DEFAULT,
  /** The request is queued to be replayed after recovery. */
  DEFERRED,
  /** A controlled, well-typed failure the caller knows how to handle. */
  CONTROLLED_FAILURE
}
