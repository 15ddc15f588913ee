package io.breakerctl.runtime.store.inprocess;

import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The faults a test injects into an {@link InProcessBreakerStore}: the whole store unreachable,
 * commands of one kind unreachable or refused with an error reply, fleet messages lost. The store
 * asks here before it runs a command ({@link #failure}) and before it delivers a message ({@link
 * #delivers}). Thread-safe.
 */
final class StoreFaults {
  private volatile boolean available = true;
  private volatile boolean dropping;
  private final Set<String> failingKinds = ConcurrentHashMap.newKeySet();
  private final Map<String, StoreFault> refusedKinds = new ConcurrentHashMap<>();

  /** Whether the store answers at all (false: every command fails as an unreachable Redis). */
  boolean available() {
    return available;
  }

  void available(boolean answers) {
    this.available = answers;
  }

  void failing(String kind, boolean fails) {
    if (fails) {
      failingKinds.add(kind);
    } else {
      failingKinds.remove(kind);
    }
  }

  void refusing(String kind, StoreFault fault) {
    if (fault != null) {
      refusedKinds.put(kind, fault);
    } else {
      refusedKinds.remove(kind);
    }
  }

  void dropMessages(boolean drop) {
    this.dropping = drop;
  }

  /** Whether a fleet message published now reaches the subscribers. */
  boolean delivers() {
    return available && !dropping;
  }

  /**
   * The error a command of {@code kind} fails with now, null when it runs: unreachable (the store
   * or this kind), else the error reply this kind is refused with.
   */
  StoreException failure(String kind) {
    if (!available || failingKinds.contains(kind)) {
      return new StoreUnavailableException("the in-process store is unavailable", null);
    }
    StoreFault refused = refusedKinds.get(kind);
    if (refused == null) {
      return null;
    }
    String what = kind + ": " + refused.name() + " (in-process store)";
    return switch (refused) {
      case NOPERM, AUTH -> new StorePermissionException(what, null, refused);
      case OTHER -> new StoreException(what, null);
      default -> new StoreUnavailableException(what, null, refused);
    };
  }
}
