package io.breakerctl.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.Policy;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A running registry keeps its own copy of the configuration, never the builder. */
@DisplayName("Registry options are copied at build()")
class RegistryOptionsTest {

  @Test
  @DisplayName("reusing a builder does not change a registry built before")
  void builderReuse() {
    BreakerRegistry.Builder b =
        BreakerRegistry.builder()
            .mode(Mode.LOCAL)
            .nodeId("first")
            .defaults(Policy.builder().failureThreshold(3).build());
    try (BreakerRegistry first = b.build()) {
      b.nodeId("second").defaults(Policy.builder().failureThreshold(9).build()).mode(Mode.HYBRID);
      b.redisUri("redis://127.0.0.1:1");

      assertThat(first.nodeId()).isEqualTo("first");
      assertThat(first.mode()).isEqualTo(Mode.LOCAL);
      CircuitBreaker cb = first.breaker("reuse:dep");
      assertThat(cb.view().policy().failureThreshold()).isEqualTo(3);
      for (int i = 0; i < 3; i++) {
        cb.tryAcquire().onFailure(new IllegalStateException("down"), 1_000_000);
      }
      assertThat(cb.tryAcquire().allowed()).as("trips at its own threshold, 3").isFalse();
    }
  }
}
