package io.breakerctl.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("known breaker ids: the nearest ones for a typo")
class KnownBreakersTest {

  @Test
  @DisplayName("edit distance")
  void distance() {
    assertThat(KnownBreakers.distance("orders:pricing", "orders:pricing")).isZero();
    assertThat(KnownBreakers.distance("orders:pricng", "orders:pricing")).isEqualTo(1);
    assertThat(KnownBreakers.distance("ordres:pricing", "orders:pricing")).isEqualTo(2);
    assertThat(KnownBreakers.distance("", "abc")).isEqualTo(3);
  }

  @Test
  @DisplayName("up to three close ids, nearest first; far ones and the id itself never")
  void nearest() {
    List<String> known =
        List.of(
            "orders:pricing",
            "orders:pricing",
            "orders:billing",
            "orders:pricer",
            "claims:members",
            "orders:pricng");
    assertThat(KnownBreakers.nearest("orders:pricng", known))
        .containsExactly("orders:pricing", "orders:pricer");
    assertThat(KnownBreakers.nearest("payments:card", known)).isEmpty();
  }
}
