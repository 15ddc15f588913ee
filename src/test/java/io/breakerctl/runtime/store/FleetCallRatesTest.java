package io.breakerctl.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.breakerctl.runtime.store.NodeCallCounts.Counts;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("fleet call rates from the nodes' counts")
class FleetCallRatesTest {

  private static NodeCallCounts counts(long windowMillis, String id, long c, long r, long f) {
    return new NodeCallCounts(windowMillis, Map.of(id, new Counts(c, r, f)));
  }

  @Nested
  @DisplayName("arithmetic")
  class Arithmetic {
    @Test
    @DisplayName("one node: its counts divided by its window")
    void oneNode() {
      FleetCallRates rates = new FleetCallRates(Map.of("a", counts(10_000, "x:y", 50, 20, 5)));
      assertThat(rates.of("x:y")).isEqualTo(new FleetCallRates.Rates(5, 2, 0.5));
      assertThat(rates.windowMillis()).isEqualTo(10_000);
      assertThat(rates.nodes()).isEqualTo(1);
    }

    @Test
    @DisplayName("several nodes: each over its own window, summed; the longest window stated")
    void summedOverNodes() {
      Map<String, NodeCallCounts> byNode = new LinkedHashMap<>();
      byNode.put("a", counts(10_000, "x:y", 100, 0, 0)); // 10/s
      byNode.put("b", counts(20_000, "x:y", 100, 40, 20)); // 5/s, 2/s, 1/s
      byNode.put("c", counts(5_000, "other:dep", 500, 0, 0));
      FleetCallRates rates = new FleetCallRates(byNode);
      FleetCallRates.Rates r = rates.of("x:y");
      assertThat(r.calls()).isCloseTo(15, within(1e-9));
      assertThat(r.rejected()).isCloseTo(2, within(1e-9));
      assertThat(r.fallbacks()).isCloseTo(1, within(1e-9));
      assertThat(rates.windowMillis()).isEqualTo(20_000);
      assertThat(rates.byNode("x:y"))
          .extracting(FleetCallRates.NodeRates::node)
          .containsExactly("a", "b");
      assertThat(rates.byNode("x:y").get(1).windowMillis()).isEqualTo(20_000);
    }

    @Test
    @DisplayName("a breaker no node counted reads zero; no counts at all: no window")
    void idleAndNone() {
      FleetCallRates rates = new FleetCallRates(Map.of("a", counts(10_000, "x:y", 1, 0, 0)));
      assertThat(rates.of("idle:dep")).isEqualTo(FleetCallRates.Rates.ZERO);
      assertThat(rates.byNode("idle:dep")).isEmpty();
      assertThat(FleetCallRates.NONE.windowMillis()).isZero();
      assertThat(FleetCallRates.NONE.of("x:y")).isEqualTo(FleetCallRates.Rates.ZERO);
    }

    @Test
    @DisplayName("a node with no window (unreadable counts) does not count")
    void noWindowIgnored() {
      Map<String, NodeCallCounts> byNode = new LinkedHashMap<>();
      byNode.put("a", NodeCallCounts.NONE);
      byNode.put("b", counts(4_000, "x:y", 8, 0, 0));
      FleetCallRates rates = new FleetCallRates(byNode);
      assertThat(rates.nodes()).isEqualTo(1);
      assertThat(rates.of("x:y").calls()).isCloseTo(2, within(1e-9));
    }
  }

  @Nested
  @DisplayName("the JSON a beat stores")
  class Encoding {
    @Test
    @DisplayName("round trip")
    void roundTrip() {
      Map<String, Counts> m = new LinkedHashMap<>();
      m.put("a:b", new Counts(3, 2, 1));
      m.put("c:d:e", new Counts(0, 7, 0));
      NodeCallCounts c = new NodeCallCounts(1500, m);
      assertThat(c.toJson())
          .isEqualTo("{\"windowMillis\":1500,\"breakers\":{\"a:b\":[3,2,1],\"c:d:e\":[0,7,0]}}");
      assertThat(NodeCallCounts.parse(c.toJson())).isEqualTo(c);
    }

    @Test
    @DisplayName("broken or empty values read as no counts, negative counts as zero")
    void broken() {
      assertThat(NodeCallCounts.parse(null)).isEqualTo(NodeCallCounts.NONE);
      assertThat(NodeCallCounts.parse("")).isEqualTo(NodeCallCounts.NONE);
      assertThat(NodeCallCounts.parse("{not json")).isEqualTo(NodeCallCounts.NONE);
      assertThat(NodeCallCounts.parse("{\"breakers\":{}}")).isEqualTo(NodeCallCounts.NONE);
      assertThat(
              NodeCallCounts.parse("{\"windowMillis\":10,\"breakers\":{\"a:b\":[-1,2]}}")
                  .breakers())
          .containsEntry("a:b", new Counts(0, 2, 0));
    }
  }
}
