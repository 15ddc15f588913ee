package io.breakerctl.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.State;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The written-out {@code equals} and {@code hashCode} keep the record's meaning. */
@DisplayName("NodeHeartbeat equality")
class NodeHeartbeatTest {

  private static final NodeHeartbeat BASE =
      new NodeHeartbeat("n1", State.CLOSED, "a:b", 3, false, 10, "t=5");

  @Test
  @DisplayName("equal components: equal, with equal hash codes")
  void equalComponents() {
    NodeHeartbeat same = new NodeHeartbeat("n1", State.CLOSED, "a:b", 3, false, 10, "t=5");
    assertThat(same).isEqualTo(BASE).hasSameHashCodeAs(BASE);
    assertThat(new NodeHeartbeat("n1", State.OPEN, "", 0, true, 0, null))
        .isEqualTo(new NodeHeartbeat("n1", State.OPEN, "", 0, true, 0));
  }

  @Test
  @DisplayName("a report that differs in any one component is not equal (the tick sends it)")
  void eachComponentCounts() {
    List<NodeHeartbeat> others =
        List.of(
            new NodeHeartbeat("n2", State.CLOSED, "a:b", 3, false, 10, "t=5"),
            new NodeHeartbeat("n1", State.OPEN, "a:b", 3, false, 10, "t=5"),
            new NodeHeartbeat("n1", State.CLOSED, "a:c", 3, false, 10, "t=5"),
            new NodeHeartbeat("n1", State.CLOSED, "a:b", 4, false, 10, "t=5"),
            new NodeHeartbeat("n1", State.CLOSED, "a:b", 3, true, 10, "t=5"),
            new NodeHeartbeat("n1", State.CLOSED, "a:b", 3, false, 11, "t=5"),
            new NodeHeartbeat("n1", State.CLOSED, "a:b", 3, false, 10, "t=6"),
            new NodeHeartbeat("n1", State.CLOSED, "a:b", 3, false, 10, "t=5", "oom"),
            new NodeHeartbeat("n1", State.CLOSED, "a:b", 3, false, 10, "t=5", "", "CACHED"));
    for (NodeHeartbeat other : others) {
      assertThat(other).as("%s", other).isNotEqualTo(BASE);
      assertThat(BASE).as("%s", other).isNotEqualTo(other);
    }
    assertThat(BASE).isNotEqualTo(null).isNotEqualTo("n1");
  }

  @Test
  @DisplayName("a degraded report carries its reason through the stored JSON; a healthy one none")
  void reasonRoundTrips() {
    NodeHeartbeat beat = new NodeHeartbeat("n1", State.CLOSED, "a:b", 3, true, 0, "", "noperm");
    assertThat(beat.toJson()).contains("\"degradedReason\":\"noperm\"");
    NodeHeartbeat read = NodeHeartbeat.parse("n1", beat.toJson(), 7);
    assertThat(read.degraded()).isTrue();
    assertThat(read.degradedReason()).isEqualTo("noperm");
    assertThat(new NodeHeartbeat("n1", State.CLOSED, "", 0, false, 0, "", "oom").toJson())
        .doesNotContain("degradedReason");
    assertThat(
            NodeHeartbeat.parse("n1", "{\"state\":\"CLOSED\",\"degraded\":true}", 7)
                .degradedReason())
        .as("a report from before the reason")
        .isEmpty();
  }

  @Test
  @DisplayName("idle fallbacks travel through the stored JSON; a report without them reads none")
  void idleFallbacksRoundTrip() {
    NodeHeartbeat beat =
        new NodeHeartbeat("n1", State.OPEN, "", 0, false, 0, "", "", "STATIC_DEFAULT,CACHED");
    assertThat(NodeHeartbeat.parse("n1", beat.toJson(), 7).idleFallbacks())
        .isEqualTo("STATIC_DEFAULT,CACHED");
    assertThat(BASE.toJson()).doesNotContain("idleFallbacks");
    assertThat(NodeHeartbeat.parse("n1", BASE.toJson(), 7).idleFallbacks()).isEmpty();
  }

  @Test
  @DisplayName(
      "accepted kinds travel through the stored JSON and count in equality; none reported reads"
          + " as none (refusing nothing); an unknown kind is left out")
  void acceptsRoundTrip() {
    NodeHeartbeat beat =
        new NodeHeartbeat(
            "n1", State.CLOSED, "", 0, false, 0, "", "", "", "s1", "DEFERRED,CONTROLLED_FAILURE");
    NodeHeartbeat read = NodeHeartbeat.parse("n1", beat.toJson(), 7);
    assertThat(read.accepts()).isEqualTo("DEFERRED,CONTROLLED_FAILURE");
    assertThat(read.acceptedKinds())
        .containsExactlyInAnyOrder(FallbackPolicy.DEFERRED, FallbackPolicy.CONTROLLED_FAILURE);
    NodeHeartbeat without =
        new NodeHeartbeat("n1", State.CLOSED, "", 0, false, 7, "", "", "", "s1", "");
    assertThat(read).isNotEqualTo(without);
    assertThat(read)
        .isEqualTo(
            new NodeHeartbeat(
                "n1",
                State.CLOSED,
                "",
                0,
                false,
                7,
                "",
                "",
                "",
                "s1",
                "DEFERRED,CONTROLLED_FAILURE"));
    assertThat(BASE.toJson()).doesNotContain("accepts");
    assertThat(NodeHeartbeat.parse("n1", BASE.toJson(), 7).acceptedKinds()).isEmpty();
    assertThat(
            new NodeHeartbeat("n1", State.CLOSED, "", 0, false, 0, "", "", "", "", "LATER,NONE")
                .acceptedKinds())
        .containsExactly(FallbackPolicy.NONE);
  }
}
