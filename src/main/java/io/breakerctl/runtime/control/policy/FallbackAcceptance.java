package io.breakerctl.runtime.control.policy;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetScan;
import io.breakerctl.runtime.store.FleetSelection;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

/**
 * Whether the live nodes' call sites accept the fallback a policy names, before it is applied:
 * every node reports, per breaker, the kinds every one of its call sites accepts ({@link
 * NodeHeartbeat#accepts}, see {@code CircuitBreaker#callSiteAccepts}); a policy whose {@code
 * fallbackPolicy} is a kind some live node's call sites do not accept would answer those calls with
 * a controlled failure, never that kind. {@code breakerctl policy validate --fleet} and {@code
 * policy apply} warn with each {@link Refusal}, and refuse with {@code --strict}.
 *
 * <p>Which policy a breaker would run is decided from what Redis holds: the checked policies and
 * the breaker's warmed policy, most specific first ({@link PolicyResolver#candidates}): a breaker
 * whose warmed policy is more specific than every checked one that could govern it keeps it and is
 * not checked, unless that policy is among those being removed ({@code --prune}). A node that
 * reported no kinds (no {@code Fallbacks}, or a runtime from before the report) refuses nothing.
 */
public final class FallbackAcceptance {

  private FallbackAcceptance() {}

  /**
   * A live node whose call sites do not all accept the kind a policy names.
   *
   * @param breaker the breaker
   * @param node the node
   * @param policyId the policy that would govern the breaker
   * @param kind the policy's {@code fallbackPolicy}
   * @param accepts what every call site of the breaker on the node accepts
   */
  public record Refusal(
      BreakerId breaker,
      String node,
      PolicyId policyId,
      FallbackPolicy kind,
      Set<FallbackPolicy> accepts) {

    /** One line for an operator: breaker, node, what the policy names and what it accepts. */
    public String describe() {
      return "breaker "
          + breaker
          + ": policy "
          + policyId
          + " names fallbackPolicy "
          + kind
          + ", but node "
          + node
          + "'s call sites accept only "
          + accepts.stream().map(Enum::name).collect(Collectors.joining(","))
          + ": its calls would get a controlled failure, not "
          + kind;
    }
  }

  /**
   * What a check found: the refusals, and what could not be read (empty when every breaker the
   * policies may govern was read).
   */
  public record Check(List<Refusal> refusals, List<String> unread) {
    /** Copies the lists. */
    public Check {
      refusals = List.copyOf(refusals);
      unread = List.copyOf(unread);
    }
  }

  /**
   * The decision for one breaker: the policy that would govern it (the most specific of {@code
   * checked}, unless its warmed policy is more specific and not {@code removed}), and each of
   * {@code live} (the live nodes' reports) whose call sites do not accept that policy's kind.
   *
   * @param warmed the id of the policy warmed into the breaker's keys, if any
   * @param checked the policies checked, by id, and the kind each names
   * @param removed policies being deleted (their warmed copies govern nothing afterwards)
   */
  public static List<Refusal> refusals(
      BreakerId breaker,
      Optional<PolicyId> warmed,
      List<NodeHeartbeat> live,
      Map<PolicyId, FallbackPolicy> checked,
      Set<PolicyId> removed) {
    for (PolicyId candidate : PolicyResolver.candidates(breaker)) {
      FallbackPolicy kind = checked.get(candidate);
      if (kind != null) {
        List<Refusal> out = new ArrayList<>();
        for (NodeHeartbeat n : live) {
          Set<FallbackPolicy> accepts = n.acceptedKinds();
          if (!accepts.isEmpty() && !accepts.contains(kind)) {
            out.add(new Refusal(breaker, n.node(), candidate, kind, accepts));
          }
        }
        return out;
      }
      if (warmed.filter(candidate::equals).isPresent() && !removed.contains(candidate)) {
        return List.of(); // a more specific policy in force keeps governing it
      }
    }
    return List.of();
  }

  /**
   * Reads the live nodes' reports of every breaker {@code policies} may govern and checks them,
   * within {@code timeout}. A policy of one breaker reads that breaker; a default ({@code
   * caller:*}, {@code *:*}) reads the fleet.
   *
   * @param removed policies being deleted in the same change
   */
  public static Check check(
      FleetStore redis,
      Duration timeout,
      Collection<PolicyDocument> policies,
      Set<PolicyId> removed) {
    Map<PolicyId, FallbackPolicy> checked = new LinkedHashMap<>();
    for (PolicyDocument d : policies) {
      checked.put(d.id(), d.policy().fallbackPolicy());
    }
    List<Refusal> refusals = new ArrayList<>();
    List<String> unread = new ArrayList<>();
    if (checked.values().stream()
        .allMatch(k -> k == FallbackPolicy.NONE || k == FallbackPolicy.CONTROLLED_FAILURE)) {
      return new Check(refusals, unread); // no call site refuses these
    }
    if (checked.keySet().stream().anyMatch(PolicyId::isDefault)) {
      FleetScan fleet = redis.fleet(timeout, 200);
      fleet.snapshots(
          new Governed(checked.keySet()),
          s -> refusals.addAll(refusals(s, checked, removed)),
          (id, problem) -> unread.add(id + ": " + problem));
      fleet.missing().forEach(m -> unread.add(m.describe()));
      return new Check(refusals, unread);
    }
    Map<BreakerId, CompletableFuture<BreakerSnapshot>> reads = new LinkedHashMap<>();
    for (PolicyId p : checked.keySet()) {
      BreakerId b = p.breaker().orElseThrow();
      reads.put(b, redis.snapshot(b, 0));
    }
    reads.forEach(
        (b, read) -> {
          try {
            refusals.addAll(refusals(StoreFutures.await(read, timeout), checked, removed));
          } catch (StoreException e) {
            unread.add(b + ": " + e.getMessage());
          }
        });
    return new Check(refusals, unread);
  }

  private static List<Refusal> refusals(
      BreakerSnapshot s, Map<PolicyId, FallbackPolicy> checked, Set<PolicyId> removed) {
    Optional<PolicyId> warmed;
    try {
      warmed = s.warmedPolicy().map(w -> PolicyId.parse(w.policyId()));
    } catch (IllegalArgumentException e) {
      warmed = Optional.empty(); // a malformed warmed id governs nothing the checked ones would
    }
    return refusals(s.id(), warmed, s.nodes(), checked, removed);
  }

  /** The breakers any of the checked policies may govern. */
  private record Governed(Set<PolicyId> policies) implements FleetSelection {
    @Override
    public String scanGlob(String prefix) {
      return FleetSelection.ALL.scanGlob(prefix);
    }

    @Override
    public java.util.function.Predicate<BreakerId> matcher() {
      return b -> PolicyResolver.candidates(b).stream().anyMatch(policies::contains);
    }
  }
}
