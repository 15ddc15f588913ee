package io.breakerctl.runtime.local;

import java.util.HashMap;
import java.util.Map;

/**
 * The live probe leases of the half-open window, as the script's {@code :leases} sorted set: member
 * {@code "<leaseId>|<owner>"}, value the expiry in ms. Lease ids come from a counter that survives
 * generations (the script's {@code leaseSeq}).
 *
 * <p>Not thread-safe: the owning machine guards it with its lock.
 */
final class ProbeLeases {
  private final Map<String, Long> expiries = new HashMap<>();
  private long sequence;

  /** Removes leases whose expiry is at or before {@code nowMillis}. */
  void removeExpired(long nowMillis) {
    expiries.values().removeIf(expiry -> expiry <= nowMillis);
  }

  /** Leases held, expired or not. */
  int size() {
    return expiries.size();
  }

  /** Grants a lease to {@code owner} expiring at {@code untilMillis}; returns its id. */
  String grant(String owner, long untilMillis) {
    sequence++;
    String id = Long.toString(sequence);
    expiries.put(member(id, owner), untilMillis);
    return id;
  }

  /** The expiry of the lease, or null when no such lease of this owner is held. */
  Long expiryOf(String id, String owner) {
    return expiries.get(member(id, owner));
  }

  /** Removes one lease. */
  void remove(String id, String owner) {
    expiries.remove(member(id, owner));
  }

  /** The earliest expiry of a held lease, 0 when none is held. */
  long earliestExpiry() {
    return expiries.values().stream().mapToLong(Long::longValue).min().orElse(0);
  }

  /** Drops every lease (a transition does). */
  void clear() {
    expiries.clear();
  }

  private static String member(String id, String owner) {
    return id + "|" + owner;
  }
}
