package io.breakerctl.runtime.control.timeline;

/** Where a timeline entry was read. */
public enum TimelineSource {
  /** The control plane (MongoDB). */
  MONGODB,
  /** A breaker's event stream in Redis, not yet forwarded to MongoDB. */
  REDIS
}
