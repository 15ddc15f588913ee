package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import java.time.Duration;
import java.util.Optional;

/**
 * Where the control plane ({@code FallbackSnapshots}) keeps the hot copies of approved snapshots:
 * Redis, in a key of the breaker's hash tag ({@code <prefix>:{<breaker>}:fb:<keyHash>}, a string
 * with an expiry), so a call is answered while MongoDB is down. Each copy is the snapshot's
 * document as MongoDB holds it (its payload still sealed), so serving it applies the same checks
 * (status, expiry, decryption). Implementations answer within the coordinator's command timeout, or
 * at once while Redis is known to be unavailable, by throwing: a miss, never a wait.
 */
public interface HotSnapshots {

  /** No hot copies (every read misses, writes are dropped). */
  HotSnapshots NONE =
      new HotSnapshots() {
        @Override
        public Optional<String> get(BreakerId id, String keyHash) {
          return Optional.empty();
        }

        @Override
        public void put(BreakerId id, String keyHash, String record, Duration ttl) {}

        @Override
        public void delete(BreakerId id, String keyHash) {}
      };

  /** The copy for a breaker and hashed business key, or empty. */
  Optional<String> get(BreakerId id, String keyHash);

  /** Stores (replaces) the copy, expiring after {@code ttl}. */
  void put(BreakerId id, String keyHash, String record, Duration ttl);

  /** Removes the copy (revoked, replaced by a pending one, expired). */
  void delete(BreakerId id, String keyHash);
}
