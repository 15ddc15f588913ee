package io.breakerctl.runtime.fallback;

import io.breakerctl.runtime.model.BreakerId;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Where {@link Fallbacks} reads cached answers and captures fresh ones, per breaker and business
 * key: the control plane's snapshot store ({@code FallbackSnapshots}) implements it. A call never
 * waits on MongoDB through it: the store answers from a node cache or a hot copy first, and fails
 * at once while it knows MongoDB is down.
 */
public interface SnapshotSource {

  /** Whether payloads are stored encrypted (a node without keys stores them in clear). */
  boolean encrypts();

  /**
   * The value to serve for a breaker and business key, with the reason when there is none.
   *
   * @throws RuntimeException the store's own failure ({@link #unserved} says which), or a bug
   */
  SnapshotRead serve(BreakerId id, String businessKey);

  /**
   * Captures {@code payload} as the key's snapshot, valid for {@code ttl}, approved as {@code
   * approval} says.
   *
   * @return the snapshot's metadata
   */
  FallbackSnapshot capture(
      BreakerId id,
      String businessKey,
      byte[] payload,
      String source,
      Duration ttl,
      SnapshotApproval approval);

  /**
   * When the newest approved, unexpired snapshot of the breaker (any business key) was captured;
   * empty when there is none. Read in the background for the age gauge, never on a call's path.
   *
   * @throws RuntimeException the store's own failure (MongoDB unavailable)
   */
  Optional<Instant> newestApproved(BreakerId id);

  /**
   * What a failure this store threw means for the call: {@link Unserved#CONTROL_UNAVAILABLE} or
   * {@link Unserved#CONTROL_ERROR}; empty when {@code e} is not the store's own failure.
   */
  Optional<Unserved> unserved(RuntimeException e);
}
