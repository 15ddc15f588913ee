package io.breakerctl.runtime.fallback;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.FallbackPolicy;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What one call site reports it accepts ({@link CallSites#reported}). */
class FallbacksReportedTest {

  @Test
  @DisplayName(
      "a call site reports what its calls accept, with CONTROLLED_FAILURE and NONE; one that may"
          + " submit, only what its calls and its submits both accept")
  void reported() {
    assertThat(CallSites.reported(EnumSet.allOf(FallbackPolicy.class), null))
        .isEqualTo(EnumSet.allOf(FallbackPolicy.class));
    assertThat(CallSites.reported(Set.of(FallbackPolicy.CACHED), null))
        .containsExactlyInAnyOrder(
            FallbackPolicy.CACHED, FallbackPolicy.CONTROLLED_FAILURE, FallbackPolicy.NONE);
    assertThat(
            CallSites.reported(
                EnumSet.allOf(FallbackPolicy.class),
                Set.of(FallbackPolicy.DEFERRED, FallbackPolicy.CONTROLLED_FAILURE)))
        .as("the default submit accepts of a call site with deferred work")
        .containsExactlyInAnyOrder(
            FallbackPolicy.DEFERRED, FallbackPolicy.CONTROLLED_FAILURE, FallbackPolicy.NONE);
    assertThat(
            CallSites.reported(
                Set.of(FallbackPolicy.STATIC_DEFAULT), Set.of(FallbackPolicy.DEFERRED)))
        .containsExactlyInAnyOrder(FallbackPolicy.CONTROLLED_FAILURE, FallbackPolicy.NONE);
  }
}
