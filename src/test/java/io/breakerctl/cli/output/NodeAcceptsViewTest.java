package io.breakerctl.cli.output;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.NodeHeartbeat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * describe's node rows say which fallback kinds a node's call sites accept, and what they refuse.
 */
@DisplayName("describe: the kinds a node's call sites accept, and the warmed policy's they refuse")
class NodeAcceptsViewTest {
  private static final long NOW = 1_796_000_000_000L;

  private static BreakerSnapshot snapshot(String fallbackPolicy, NodeHeartbeat... nodes) {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("epoch", "1795999000000000");
    f.put("state", "CLOSED");
    f.put("generation", "1");
    f.put("policyId", "claims:*");
    f.put("policyVersion", "3");
    f.put("p.failureThreshold", "5");
    f.put("p.fallbackPolicy", fallbackPolicy);
    return new BreakerSnapshot(
        BreakerId.parse("claims:members"), f, List.of(), List.of(), List.of(nodes), NOW);
  }

  private static NodeHeartbeat node(String name, String accepts) {
    return new NodeHeartbeat(
        name, State.CLOSED, "claims:*", 3, false, NOW - 1_000, "", "", "", "", accepts);
  }

  @Test
  @DisplayName("a node whose call sites accept only DEFERRED refuses a warmed STATIC_DEFAULT")
  void refusesTheWarmedKind() {
    BreakerDetailView v =
        BreakerViews.detail(
            snapshot(
                "STATIC_DEFAULT",
                node("strict", "NONE,DEFERRED,CONTROLLED_FAILURE"),
                node("open", "NONE,STATIC_DEFAULT,CONTROLLED_FAILURE"),
                node("silent", "")));

    assertThat(v.nodes())
        .extracting(BreakerDetailView.NodeView::node, BreakerDetailView.NodeView::refuses)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("strict", "STATIC_DEFAULT"),
            org.assertj.core.groups.Tuple.tuple("open", ""),
            org.assertj.core.groups.Tuple.tuple("silent", ""));
    assertThat(v.nodes().get(0).accepts())
        .containsExactly("NONE", "DEFERRED", "CONTROLLED_FAILURE");
    assertThat(v.nodes().get(2).accepts()).isEmpty();
  }

  @Test
  @DisplayName("the table's note names the refused kind and what the call sites accept")
  void theNoteSaysIt() {
    BreakerDetailView v =
        BreakerViews.detail(
            snapshot("STATIC_DEFAULT", node("strict", "NONE,DEFERRED,CONTROLLED_FAILURE")));
    java.io.StringWriter w = new java.io.StringWriter();
    java.io.PrintWriter out = new java.io.PrintWriter(w);
    BreakerTables.describe(
        v,
        Style.plain(
            java.time.Clock.fixed(java.time.Instant.ofEpochMilli(NOW), java.time.ZoneOffset.UTC)),
        out);
    out.flush();
    assertThat(w.toString())
        .contains("call sites refuse STATIC_DEFAULT (accept NONE+DEFERRED+CONTROLLED_FAILURE)");
  }
}
