package io.breakerctl.runtime.store;

import java.util.Locale;

/**
 * Why the coordinator could not do its job: the typed reason a {@link StoreException} carries, the
 * reason a node's degradation is reported with ({@code timeout}, {@code oom}, {@code noperm}, ...)
 * and what the CLI names in its error. Decided once, where Lettuce's answer is translated ({@code
 * StoreErrors}), from the error code Redis puts first in its reply ({@code -OOM ...}, {@code
 * -READONLY ...}); nothing downstream reads reply text.
 *
 * <p>{@link #hard()} faults are answers, not silences: Redis is there and refuses the node's work
 * (a full Redis under {@code noeviction}, a replica after a failover, an ACL that denies a script).
 * One of them degrades the node at once, since every further command would get the same answer; a
 * timeout degrades it only when a confirming PING fails too (or after a few in a row).
 */
public enum StoreFault {
  /** No answer within the command timeout. */
  TIMEOUT(false),
  /** The connection failed or is closed. */
  UNREACHABLE(false),
  /** {@code -OOM}: {@code maxmemory} reached under {@code noeviction}; writes are refused. */
  OOM(true),
  /** {@code -READONLY}: the server is a replica (a failover moved the master elsewhere). */
  READONLY(true),
  /** {@code -LOADING}: the server is loading its dataset. */
  LOADING(true),
  /** {@code -BUSY}: a script runs past {@code busy-reply-threshold}. */
  BUSY(true),
  /** {@code -MASTERDOWN}: a replica lost its master and serves no stale data. */
  MASTERDOWN(true),
  /** {@code -CLUSTERDOWN}: the Cluster is down or the slot is not served. */
  CLUSTERDOWN(true),
  /** {@code -TRYAGAIN}: a slot is being migrated. */
  TRYAGAIN(true),
  /** {@code -NOPERM}: the ACL user may not run the command or touch the key. */
  NOPERM(true),
  /** {@code -WRONGPASS} or {@code -NOAUTH}: the credentials were refused. */
  AUTH(true),
  /** A runtime error inside a script (a Lua error, not one the script raised on purpose). */
  SCRIPT(true),
  /**
   * {@code -WRONGTYPE}: a key of the breaker holds another type than the store keeps there (a wrong
   * prefix, or something else writing under it): a fault of the data, not of the coordinator.
   */
  WRONGTYPE(false),
  /** Any other error reply: a fault of the request, not of the coordinator. */
  OTHER(false);

  private final boolean hard;

  StoreFault(boolean hard) {
    this.hard = hard;
  }

  /** True when Redis answered and refused the node's work: one such answer degrades the node. */
  public boolean hard() {
    return hard;
  }

  /** The reason as the node's report, the events, the metrics and the CLI spell it. */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }
}
