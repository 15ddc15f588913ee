package io.breakerctl.runtime.control.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.breakerctl.runtime.control.policy.FallbackAcceptance.Refusal;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.NodeHeartbeat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Which live nodes refuse the fallback a policy names ({@link FallbackAcceptance#refusals}). */
class FallbackAcceptanceTest {
  private static final BreakerId B = BreakerId.parse("payments:bank");
  private static final PolicyId OWN = PolicyId.of(B);
  private static final PolicyId CALLER = PolicyId.parse("payments:*");

  private static NodeHeartbeat node(String name, String accepts) {
    return new NodeHeartbeat(name, State.CLOSED, "", 0, false, 1, "", "", "", "", accepts);
  }

  private static final List<NodeHeartbeat> FLEET =
      List.of(
          node("writer", "DEFERRED,CONTROLLED_FAILURE,NONE"),
          node("reader", "NONE,CACHED,STATIC_DEFAULT,DEFERRED,CONTROLLED_FAILURE"),
          node("old", ""));

  private static List<Refusal> refusals(
      Optional<PolicyId> warmed, Map<PolicyId, FallbackPolicy> checked, Set<PolicyId> removed) {
    return FallbackAcceptance.refusals(B, warmed, FLEET, checked, removed);
  }

  @Test
  @DisplayName(
      "a kind a node's call sites do not accept is a refusal naming breaker, node, policy and what"
          + " it accepts; a node that reported nothing refuses nothing")
  void refusedKind() {
    List<Refusal> r =
        refusals(Optional.empty(), Map.of(OWN, FallbackPolicy.STATIC_DEFAULT), Set.of());
    assertThat(r)
        .containsExactly(
            new Refusal(
                B,
                "writer",
                OWN,
                FallbackPolicy.STATIC_DEFAULT,
                Set.of(
                    FallbackPolicy.DEFERRED,
                    FallbackPolicy.CONTROLLED_FAILURE,
                    FallbackPolicy.NONE)));
    assertThat(r.get(0).describe())
        .contains(
            "payments:bank",
            "node writer",
            "STATIC_DEFAULT",
            "accept only NONE,DEFERRED,CONTROLLED_FAILURE",
            "controlled failure");
  }

  @Test
  @DisplayName("a kind every live node accepts, NONE and CONTROLLED_FAILURE refuse nothing")
  void acceptedKinds() {
    for (FallbackPolicy k :
        List.of(FallbackPolicy.DEFERRED, FallbackPolicy.NONE, FallbackPolicy.CONTROLLED_FAILURE)) {
      assertThat(refusals(Optional.empty(), Map.of(OWN, k), Set.of())).as("%s", k).isEmpty();
    }
  }

  @Test
  @DisplayName(
      "the most specific policy decides: a checked default under a more specific warmed policy"
          + " is not checked, unless that policy is being removed; a checked more specific one wins")
  void mostSpecificDecides() {
    Map<PolicyId, FallbackPolicy> callerCached = Map.of(CALLER, FallbackPolicy.CACHED);
    assertThat(refusals(Optional.of(OWN), callerCached, Set.of()))
        .as("the breaker keeps its own policy")
        .isEmpty();
    assertThat(refusals(Optional.of(OWN), callerCached, Set.of(OWN)))
        .as("its own policy is pruned: the caller default would govern it")
        .extracting(Refusal::node, Refusal::policyId)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("writer", CALLER));
    assertThat(refusals(Optional.of(PolicyId.ALL), callerCached, Set.of()))
        .as("a less specific warmed policy is replaced")
        .hasSize(1);
    assertThat(
            refusals(
                Optional.empty(),
                Map.of(CALLER, FallbackPolicy.CACHED, OWN, FallbackPolicy.DEFERRED),
                Set.of()))
        .as("the breaker's own policy in the same files names DEFERRED")
        .isEmpty();
    assertThat(
            FallbackAcceptance.refusals(
                BreakerId.parse("orders:bank"), Optional.empty(), FLEET, callerCached, Set.of()))
        .as("a breaker of another caller")
        .isEmpty();
  }
}
