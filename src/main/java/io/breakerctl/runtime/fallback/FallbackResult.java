package io.breakerctl.runtime.fallback;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The answer of a call made through {@link Fallbacks}, saying who gave it: the caller can always
 * tell a fallback from a fresh answer.
 *
 * @param value the answer; null for {@link Served#DEFERRED}
 * @param served who answered
 * @param trigger why a fallback ran ({@link FallbackTrigger#NONE} for the dependency's answer)
 * @param source where cached data came from (the snapshot's source), the name of the static default
 *     that served (empty: the one registered without a name), else empty
 * @param capturedAt when cached data was captured, else empty
 * @param age how old cached data was when served, else empty
 * @param trackingId the deferred request's tracking id, else empty
 */
public record FallbackResult<T>(
    T value,
    Served served,
    FallbackTrigger trigger,
    String source,
    Optional<Instant> capturedAt,
    Optional<Duration> age,
    String trackingId) {

  static <T> FallbackResult<T> fresh(T value) {
    return new FallbackResult<>(
        value, Served.DEPENDENCY, FallbackTrigger.NONE, "", Optional.empty(), Optional.empty(), "");
  }

  /** Whether a fallback answered (anything but the dependency). */
  public boolean degraded() {
    return served != Served.DEPENDENCY;
  }

  /** Whether the value is stale cached data (never passed off as fresh). */
  public boolean stale() {
    return served == Served.CACHED;
  }
}
