package io.breakerctl.runtime.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.conformance.StoreUnderTest.KeyTtls;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.ReassertResult;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import java.util.Map;

/**
 * How {@link ConformanceSuite} states and checks answers: each store answer as one line of the
 * fields a case promises ({@code allowed HALF_OPEN PROBE generation=2}), so a failure shows the
 * whole promised answer beside the store's; the checks of expiries against the store's time.
 */
final class Answers {
  private Answers() {}

  static void assertWithin(long value, CaseSteps.Timed<?> t, long offset, String what) {
    assertThat(value)
        .as("%s: the store's time of the step plus %d ms", what, offset)
        .isBetween(t.startMillis() + offset, t.endMillis() + offset);
  }

  static void assertKeysOutlive(KeyTtls ttls, long until, long idle, String what, CaseSteps s) {
    long remaining = until - ttls.storeTimeMillis();
    if (remaining <= idle + s.unit) {
      throw new CaseSteps.Late(
          "the expiry read for " + what + " came " + remaining + " ms before its end");
    }
    assertThat(ttls.pttlMillis().get(keyOf(ttls, 0))).as("the state hash exists").isNotEqualTo(-2L);
    for (Map.Entry<String, Long> k : ttls.pttlMillis().entrySet()) {
      if (k.getValue() == -1 || k.getValue() == -2) {
        continue;
      }
      assertThat(k.getValue())
          .as(
              "PTTL of %s while %s has %d ms to run (idle TTL %d ms)",
              k.getKey(), what, remaining, idle)
          .isGreaterThanOrEqualTo(remaining);
    }
  }

  /** Every key expires within {@code idle} (or is gone): nothing holds the breaker. */
  static void assertKeysExpireWithin(KeyTtls ttls, long idle, String what) {
    for (Map.Entry<String, Long> k : ttls.pttlMillis().entrySet()) {
      assertThat(k.getValue())
          .as("PTTL of %s %s (idle TTL %d ms)", k.getKey(), what, idle)
          .isNotEqualTo(-1L)
          .isLessThanOrEqualTo(idle);
    }
  }

  static void assertKeysNeverExpire(KeyTtls ttls, String what) {
    assertThat(ttls.pttlMillis().get(keyOf(ttls, 0))).as("the state hash exists").isNotEqualTo(-2L);
    for (Map.Entry<String, Long> k : ttls.pttlMillis().entrySet()) {
      assertThat(k.getValue())
          .as("PTTL of %s while %s (no end known: no expiry)", k.getKey(), what)
          .isIn(-1L, -2L);
    }
  }

  static String keyOf(KeyTtls ttls, int index) {
    return ttls.pttlMillis().keySet().stream().skip(index).findFirst().orElseThrow();
  }

  static String admission(AcquireResult r) {
    return (r.allowed() ? "allowed " : "rejected ")
        + r.state()
        + " "
        + r.reason().code()
        + " generation="
        + r.generation();
  }

  static String recorded(RecordResult r) {
    return r.state()
        + " "
        + r.reason().code()
        + " accepted="
        + r.accepted()
        + " transitioned="
        + r.transitioned()
        + " generation="
        + r.generation();
  }

  static String renewed(RenewResult r) {
    return r.state() + " " + r.outcome().code() + " generation=" + r.generation();
  }

  static String overridden(OverrideResult r) {
    return "changed="
        + r.changed()
        + " "
        + r.outcome().code()
        + " "
        + r.state()
        + " previous="
        + r.previous()
        + " generation="
        + r.generation();
  }

  static String reasserted(ReassertResult r) {
    return "written="
        + r.written()
        + " "
        + r.outcome().code()
        + " "
        + r.state()
        + " generation="
        + r.generation();
  }

  static String next(String generation, int by) {
    return Long.toString(Long.parseLong(generation) + by);
  }

  static String previous(String generation) {
    return Long.toString(Long.parseLong(generation) - 1);
  }
}
