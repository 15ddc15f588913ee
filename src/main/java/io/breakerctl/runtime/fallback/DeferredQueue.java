package io.breakerctl.runtime.fallback;

import io.breakerctl.runtime.model.BreakerId;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.BiConsumer;

/**
 * Where {@link Fallbacks} stores the requests a DEFERRED policy defers, and {@link
 * DeferredReplayer} takes them back to replay under a lease: the control plane's deferred requests
 * ({@code DeferredRequests}) implement it.
 */
public interface DeferredQueue {

  /** Whether payloads are stored encrypted (a node without keys stores them in clear). */
  boolean encrypts();

  /**
   * Stores a request under the tracking id the caller was given.
   *
   * @return the tracking id
   * @throws RuntimeException the store's own failure ({@link #unserved} says which), or a bug
   */
  String defer(BreakerId id, String tracking, byte[] payload);

  /** The request with this tracking id: status, attempts, the recorded result. */
  Optional<DeferredRequest> find(String trackingId);

  /**
   * Pending requests of a breaker, oldest first, at most {@code limit}; one that cannot be read is
   * left out and handed to {@code unreadable} with its tracking id and why.
   */
  List<DeferredRequest> pending(BreakerId id, int limit, BiConsumer<String, String> unreadable);

  /**
   * Takes a pending request no replay can read out of the queue as FAILED, its result saying why;
   * false when it is no longer pending.
   */
  boolean quarantine(String trackingId, String why);

  /** The breaker's pending requests. */
  long pendingCount(BreakerId id);

  /**
   * Takes the replay lease of a pending request with fewer than {@code maxAttempts} attempts and
   * counts the attempt at once.
   *
   * @return the attempt's number (1 for the first), or empty when not claimed
   */
  OptionalInt claimAttempt(String trackingId, String owner, Duration lease, int maxAttempts);

  /**
   * Fails a pending request whose {@code maxAttempts} attempts have all started and whose last
   * lease ran out without an end recorded; false when it is not such a request.
   */
  boolean exhaust(String trackingId, int maxAttempts);

  /**
   * Records the end of the replay whose lease {@code owner} holds and drops the lease.
   *
   * @return false when the request is not pending under this owner's lease
   */
  boolean finish(String trackingId, String owner, boolean done, String result, int maxAttempts);

  /** Gives a lease back without an attempt: the attempt its claim counted is taken back. */
  void release(String trackingId, String owner);

  /**
   * What a failure this store threw means for the call: {@link Unserved#CONTROL_UNAVAILABLE} or
   * {@link Unserved#CONTROL_ERROR}; empty when {@code e} is not the store's own failure.
   */
  Optional<Unserved> unserved(RuntimeException e);
}
