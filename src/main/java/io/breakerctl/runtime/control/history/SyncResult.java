package io.breakerctl.runtime.control.history;

import java.util.List;

/**
 * What one forwarder pass did.
 *
 * @param breakers breakers visited
 * @param events transition events newly stored in {@code history} (already stored ones are not
 *     counted)
 * @param audits audit records newly stored from override events
 * @param failures one line per breaker that could not be forwarded (retried next pass)
 * @param reasserted breakers whose override, live in MongoDB and lost by Redis, the pass put back
 *     ({@link OverrideGuard})
 */
public record SyncResult(
    int breakers, int events, int audits, List<String> failures, List<String> reasserted) {

  /** Copies the lists. */
  public SyncResult {
    failures = List.copyOf(failures);
    reasserted = List.copyOf(reasserted);
  }
}
