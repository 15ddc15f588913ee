package io.breakerctl.integration.resilience4j;

import io.breakerctl.runtime.Permission;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The permissions a breaker granted whose outcome is not reported yet. Resilience4j reports an
 * outcome to the breaker ({@code onSuccess}, {@code onError}, {@code releasePermission}) without
 * naming the permission; breakerctl reports it on the permission (its generation, its probe lease).
 * A report takes, in this order: the permission granted last on the reporting thread (every
 * synchronous decorator and Spring's aspect report on the thread that acquired), else one a thread
 * left unreported when it acquired again, else the latest permission, taken from the slot of the
 * thread it was granted on (an asynchronous call reported on another thread).
 *
 * <p>The hot path (acquire and report on one thread) touches the thread's own slot only: one
 * thread-local lookup and one atomic swap each, no allocation, no shared write (the latest
 * permission is written when it changes, not per call: the closed state's permission is one shared
 * object in HYBRID).
 */
final class PendingPermissions {

  /** One thread's permission granted and not yet reported; another thread may take it. */
  private static final class Slot extends AtomicReference<Permission> {
    private static final long serialVersionUID = 1L;
  }

  private final ThreadLocal<Slot> slots = ThreadLocal.withInitial(Slot::new);
  private final ConcurrentLinkedQueue<Permission> displaced = new ConcurrentLinkedQueue<>();
  private volatile Permission latest;
  private volatile Slot latestSlot;

  /** Records an allowed permission granted on this thread. */
  void granted(Permission permission) {
    Slot s = slots.get();
    Permission previous = s.getAndSet(permission);
    if (previous != null) {
      // acquired again before reporting here: that call reports from another thread
      displaced.add(previous);
    }
    if (latest != permission) {
      latestSlot = s;
      latest = permission;
    }
  }

  /**
   * The permission a report now is about, taken; null when none was ever granted. The latest
   * permission, the last resort, may have been reported already (the closed state's shared
   * permission in HYBRID counts again, as it should; any other counts one report only).
   */
  Permission take() {
    Permission p = slots.get().getAndSet(null);
    if (p != null) {
      return p;
    }
    p = displaced.poll();
    if (p != null) {
      return p;
    }
    Permission l = latest;
    Slot ls = latestSlot;
    if (l != null && ls != null) {
      ls.compareAndSet(l, null); // taken from its thread's slot: not displaced and reported twice
    }
    return l;
  }
}
