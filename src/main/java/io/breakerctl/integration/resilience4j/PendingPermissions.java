package io.breakerctl.integration.resilience4j;

import io.breakerctl.runtime.Permission;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The permissions a breaker granted whose outcome is not reported yet. Resilience4j reports an
 * outcome to the breaker ({@code onSuccess}, {@code onError}, {@code releasePermission}) without
 * naming the permission; breakerctl reports it on the permission (its generation, its probe lease).
 * A report takes, in this order: the permission granted last on the reporting thread (every
 * synchronous decorator and Spring's aspect report on the thread that acquired), else one a thread
 * left unreported when it acquired again (an asynchronous call completed on another thread), else
 * the breaker's latest permission.
 *
 * <p>The hot path (acquire and report on one thread) touches only the thread's own slot: one
 * thread-local lookup each, no allocation, no shared write (the latest permission is written when
 * it changes, not per call: the closed state's permission is one shared object in HYBRID).
 */
final class PendingPermissions {

  /** One thread's permission granted and not yet reported; only its thread reads or writes it. */
  private static final class Slot {
    Permission permission;
  }

  private final ThreadLocal<Slot> slots = ThreadLocal.withInitial(Slot::new);
  private final ConcurrentLinkedQueue<Permission> displaced = new ConcurrentLinkedQueue<>();
  private volatile Permission latest;

  /** Records an allowed permission granted on this thread. */
  void granted(Permission permission) {
    Slot s = slots.get();
    Permission previous = s.permission;
    s.permission = permission;
    if (previous != null) {
      // acquired again before reporting here: that call reports from another thread
      displaced.add(previous);
    }
    if (latest != permission) {
      latest = permission;
    }
  }

  /**
   * The permission a report now is about, taken; null when none was ever granted. The latest
   * permission is the last resort: an asynchronous call reported elsewhere before its thread
   * acquired again, whose own permission then goes to the displaced ones and may be reported a
   * second time (a breakerctl permission other than the closed state's shared one counts one report
   * only, so a report can be lost there; never a count made up).
   */
  Permission take() {
    Slot s = slots.get();
    Permission p = s.permission;
    if (p != null) {
      s.permission = null;
      return p;
    }
    p = displaced.poll();
    return p != null ? p : latest;
  }
}
