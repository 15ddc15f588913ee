package io.breakerctl.cli.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.store.FleetCallRates;
import io.breakerctl.runtime.store.NodeCallCounts;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("call rates as status, describe and top show them")
class RateFormatTest {

  @Test
  @DisplayName("short cells: hundredths below 10/s, tenths below 100/s, then whole, then k")
  void perSecond() {
    assertThat(BreakerTables.perSecond(0)).isEqualTo("0");
    assertThat(BreakerTables.perSecond(0.25)).isEqualTo("0.25");
    assertThat(BreakerTables.perSecond(4.5)).isEqualTo("4.5");
    assertThat(BreakerTables.perSecond(12.34)).isEqualTo("12.3");
    assertThat(BreakerTables.perSecond(120.4)).isEqualTo("120");
    assertThat(BreakerTables.perSecond(12_345)).isEqualTo("12.3k");
    assertThat(BreakerTables.window(10_000)).isEqualTo("over the last 10s");
  }

  @Test
  @DisplayName("the view's rates: rounded to hundredths, the window kept; none without counts")
  void viewRates() {
    FleetCallRates rates =
        new FleetCallRates(
            Map.of(
                "n1",
                new NodeCallCounts(3_000, Map.of("a:b", new NodeCallCounts.Counts(10, 1, 2)))));
    assertThat(BreakerViews.rates(rates, "a:b"))
        .isEqualTo(new BreakerView.Rates(3.33, 0.33, 0.67, 3_000));
    assertThat(BreakerViews.rates(rates, "idle:dep"))
        .isEqualTo(new BreakerView.Rates(0, 0, 0, 3_000));
    assertThat(BreakerViews.rates(FleetCallRates.NONE, "a:b")).isEqualTo(BreakerView.Rates.NONE);
    assertThat(BreakerViews.nodeRates(rates, "a:b"))
        .containsExactly(new BreakerDetailView.NodeRates("n1", 3.33, 0.33, 0.67, 3_000));
  }
}
