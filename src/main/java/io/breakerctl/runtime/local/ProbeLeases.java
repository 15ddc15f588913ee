package io.breakerctl.runtime.local;

import java.util.HashMap;
import java.util.Map;

/**
 * The live probe leases of the half-open window, as the script's {@code :leases} sorted set (member
 * {@code "<leaseId>|<owner>"}, scored by the expiry in ms) with each lease's {@code lease.<member>}
 * hash field (when it was granted, how often it was renewed). Lease ids come from a counter that
 * survives generations (the script's {@code leaseSeq}).
 *
 * <p>Not thread-safe: the owning machine guards it with its lock.
 */
final class ProbeLeases {

  /**
   * One lease.
   *
   * @param expiry when its slot returns unless renewed (ms)
   * @param grantedAt when it was granted: {@code maxProbeSeconds} counts from here (ms)
   * @param renewals how often its owner renewed it
   */
  record Lease(long expiry, long grantedAt, long renewals) {}

  private final Map<String, Lease> leases = new HashMap<>();
  private long sequence;

  /** Removes leases whose expiry is at or before {@code nowMillis}. */
  void removeExpired(long nowMillis) {
    leases.values().removeIf(l -> l.expiry() <= nowMillis);
  }

  /** Leases held, expired or not. */
  int size() {
    return leases.size();
  }

  /**
   * Grants a lease to {@code owner} at {@code nowMillis} expiring at {@code untilMillis}; returns
   * its id.
   */
  String grant(String owner, long nowMillis, long untilMillis) {
    sequence++;
    String id = Long.toString(sequence);
    leases.put(member(id, owner), new Lease(untilMillis, nowMillis, 0));
    return id;
  }

  /** The lease, or null when no such lease of this owner is held. */
  Lease get(String id, String owner) {
    return leases.get(member(id, owner));
  }

  /** The expiry of the lease, or null when no such lease of this owner is held. */
  Long expiryOf(String id, String owner) {
    Lease l = get(id, owner);
    return l == null ? null : l.expiry();
  }

  /** Moves a held lease's expiry to {@code untilMillis} and counts the renewal; returns it. */
  Lease renew(String id, String owner, long untilMillis) {
    return leases.computeIfPresent(
        member(id, owner), (k, l) -> new Lease(untilMillis, l.grantedAt(), l.renewals() + 1));
  }

  /** Removes one lease. */
  void remove(String id, String owner) {
    leases.remove(member(id, owner));
  }

  /** The earliest expiry of a held lease, 0 when none is held. */
  long earliestExpiry() {
    return leases.values().stream().mapToLong(Lease::expiry).min().orElse(0);
  }

  /** Drops every lease (a transition does). */
  void clear() {
    leases.clear();
  }

  private static String member(String id, String owner) {
    return id + "|" + owner;
  }
}
