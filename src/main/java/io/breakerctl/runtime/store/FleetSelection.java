package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.BreakerId;
import java.util.function.Predicate;

/** Which breakers a {@link FleetScan} reads: an id, a pattern, a caller or a dependency. */
public interface FleetSelection {
  /** The SCAN MATCH glob of the selected state hashes under {@code prefix} (a superset). */
  String scanGlob(String prefix);

  /** Whether a breaker whose hash the scan found is selected. */
  Predicate<BreakerId> matcher();

  /** Every breaker under the prefix. */
  FleetSelection ALL =
      new FleetSelection() {
        @Override
        public String scanGlob(String prefix) {
          return prefix + ":{*}";
        }

        @Override
        public Predicate<BreakerId> matcher() {
          return id -> true;
        }
      };
}
