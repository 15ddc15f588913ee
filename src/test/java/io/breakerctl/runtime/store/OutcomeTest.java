package io.breakerctl.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;

@DisplayName("Outcome")
class OutcomeTest {

  @Nested
  @DisplayName("validation")
  class Validation {

    @ParameterizedTest
    @NullAndEmptySource
    @DisplayName("rejects a null or empty node")
    void emptyNode(String node) {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> new Outcome(node, 1, 0, -1, "", ""))
          .withMessage("node must not be empty");
    }

    @Test
    @DisplayName("rejects negative failures, quoting both counts")
    void negativeFailures() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> new Outcome("n1", -1, 3, -1, "", ""))
          .withMessage("failures and successes must be >= 0 but were -1 and 3");
    }

    @Test
    @DisplayName("rejects negative successes, quoting both counts")
    void negativeSuccesses() {
      assertThatIllegalArgumentException()
          .isThrownBy(() -> new Outcome("n1", 2, -5, -1, "", ""))
          .withMessage("failures and successes must be >= 0 but were 2 and -5");
    }

    @Test
    @DisplayName("rejects a negative batch through the factory")
    void negativeBatch() {
      assertThatIllegalArgumentException().isThrownBy(() -> Outcome.successes("n1", -1));
    }

    @Test
    @DisplayName("accepts zero counts and normalises null generation and lease to empty")
    void normalises() {
      Outcome o = new Outcome("n1", 0, 0, -1, null, null);

      assertThat(o.generation()).isEmpty();
      assertThat(o.leaseId()).isEmpty();
    }
  }

  @Nested
  @DisplayName("factories")
  class Factories {

    @Test
    @DisplayName("failure: one failure, no duration, no lease")
    void failure() {
      assertThat(Outcome.failure("n1", "7")).isEqualTo(new Outcome("n1", 1, 0, -1, "7", ""));
    }

    @Test
    @DisplayName("success: one success with its duration")
    void success() {
      assertThat(Outcome.success("n1", "7", 120)).isEqualTo(new Outcome("n1", 0, 1, 120, "7", ""));
    }

    @Test
    @DisplayName("successes: a batch with unknown generation and no duration")
    void successes() {
      assertThat(Outcome.successes("n1", 40)).isEqualTo(new Outcome("n1", 0, 40, -1, "", ""));
    }

    @Test
    @DisplayName("probe: carries the lease, one success or one failure")
    void probe() {
      assertThat(Outcome.probe("n1", "9", "3", true))
          .isEqualTo(new Outcome("n1", 0, 1, -1, "9", "3"));
      assertThat(Outcome.probe("n1", "9", "3", false))
          .isEqualTo(new Outcome("n1", 1, 0, -1, "9", "3"));
    }
  }
}
