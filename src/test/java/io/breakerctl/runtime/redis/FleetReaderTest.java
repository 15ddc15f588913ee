package io.breakerctl.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.store.FleetScan;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a fleet read names the slots it could not read. */
class FleetReaderTest {

  @Test
  void slotsAsRanges() {
    List<Integer> third = new ArrayList<>();
    for (int s = 5460; s >= 0; s--) {
      third.add(s); // any order
    }
    assertThat(FleetReader.ranges(third)).isEqualTo("0-5460");
    assertThat(FleetReader.ranges(List.of(7, 1, 2, 3, 9, 16383))).isEqualTo("1-3,7,9,16383");
    assertThat(FleetReader.ranges(List.of())).isEmpty();
  }

  @Test
  void missingNamesSlotsNodeAndReason() {
    assertThat(new FleetScan.Missing("0-5460", "127.0.0.1:7000", "pfail").describe())
        .isEqualTo("slots 0-5460 on 127.0.0.1:7000 (pfail)");
    assertThat(new FleetScan.Missing("5461", "", "no master holds them").describe())
        .isEqualTo("slots 5461 (no master holds them)");
    assertThat(new FleetScan.Missing("all", "", "timeout").describe())
        .isEqualTo("every key (timeout)");
  }
}
