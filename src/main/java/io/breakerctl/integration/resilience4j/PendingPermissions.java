package io.breakerctl.integration.resilience4j;

import io.breakerctl.runtime.Permission;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The permissions a breaker granted whose outcome is not reported yet. Resilience4j reports an
 * outcome to the breaker ({@code onSuccess}, {@code onError}, {@code releasePermission}) without
 * naming the permission; breakerctl reports it on the permission (its generation, its probe lease).
 * A report takes, in this order: the permission granted last on the reporting thread (every
 * synchronous decorator and Spring's aspect report on the thread that acquired), else one granted
 * on a thread that has acquired again since without reporting (an asynchronous call completed
 * elsewhere), else the breaker's latest permission. A permission is taken once.
 */
final class PendingPermissions {

  /** One granted permission and whether a report took it. */
  private static final class Pending extends AtomicBoolean {
    private static final long serialVersionUID = 1L;
    final transient Permission permission;

    Pending(Permission permission) {
      this.permission = permission;
    }

    boolean take() {
      return !get() && compareAndSet(false, true);
    }
  }

  private final ThreadLocal<Pending> slot = new ThreadLocal<>();
  private final ConcurrentLinkedQueue<Pending> displaced = new ConcurrentLinkedQueue<>();
  private volatile Pending latest;

  /** Records an allowed permission granted on this thread. */
  void granted(Permission permission) {
    Pending p = new Pending(permission);
    Pending previous = slot.get();
    if (previous != null && !previous.get()) {
      // acquired again before reporting here: its report comes from another thread
      displaced.add(previous);
    }
    slot.set(p);
    Pending l = latest;
    if (l == null || l.permission != permission) {
      latest = p; // the closed state's shared permission is written once, not per call
    }
  }

  /** The permission a report now is about, taken; null when none was ever granted. */
  Permission take() {
    Pending p = slot.get();
    if (p != null) {
      slot.set(null);
      if (p.take()) {
        return p.permission;
      }
    }
    for (Pending d = displaced.poll(); d != null; d = displaced.poll()) {
      if (d.take()) {
        return d.permission;
      }
    }
    Pending l = latest;
    if (l == null) {
      return null;
    }
    l.take(); // taken now: not displaced later and reported twice
    return l.permission;
  }
}
