package io.breakerctl.runtime.control.fallback;

import io.breakerctl.runtime.control.ControlException;
import io.breakerctl.runtime.control.ControlUnavailableException;
import io.breakerctl.runtime.fallback.Unserved;
import java.util.Optional;

/** What a control-plane failure means for a call the fallback toolkit answers. */
final class StoreFailures {
  private StoreFailures() {}

  /** MongoDB (with no hot copy) unavailable, or answering with an error; empty for other errors. */
  static Optional<Unserved> unserved(RuntimeException e) {
    if (e instanceof ControlUnavailableException) {
      return Optional.of(Unserved.CONTROL_UNAVAILABLE);
    }
    return e instanceof ControlException ? Optional.of(Unserved.CONTROL_ERROR) : Optional.empty();
  }
}
