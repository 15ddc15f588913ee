package io.breakerctl.runtime.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Epoch orders incarnations by creation time, and nothing else")
class EpochTest {

  @Test
  @DisplayName("a smaller decimal epoch is before a larger one, whatever their lengths")
  void decimalOrder() {
    assertThat(Epoch.before("1765000000000000", "1765000000000001")).isTrue();
    assertThat(Epoch.before("1765000000000001", "1765000000000000")).isFalse();
    assertThat(Epoch.before("999999999999999", "1765000000000000")).isTrue();
    assertThat(Epoch.before("9", "10")).isTrue();
    assertThat(Epoch.before("10", "9")).isFalse();
    assertThat(Epoch.before("7", "7")).isFalse();
  }

  @Test
  @DisplayName("an empty, absent or non-numeric epoch is never before anything, nor after")
  void notComparable() {
    assertThat(Epoch.before("", "1765000000000000")).isFalse();
    assertThat(Epoch.before("1765000000000000", "")).isFalse();
    assertThat(Epoch.before(null, "5")).isFalse();
    assertThat(Epoch.before("lost-epoch", "5")).isFalse();
    assertThat(Epoch.before("5", "lost-epoch")).isFalse();
    assertThat(Epoch.before("05", "6")).isFalse();
    assertThat(Epoch.before("1", "1234567890123456789")).as("beyond a long").isFalse();
  }
}
