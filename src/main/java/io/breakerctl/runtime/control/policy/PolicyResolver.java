package io.breakerctl.runtime.control.policy;

import io.breakerctl.runtime.model.BreakerId;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The one resolution rule: a breaker is governed by its own policy, else by its caller's default
 * ({@code caller:*}), else by the fleet default ({@code *:*}), else by none (the node's built-in
 * policy).
 */
public final class PolicyResolver {

  private PolicyResolver() {}

  /** The policy ids that may govern {@code id}, most specific first. */
  public static List<PolicyId> candidates(BreakerId id) {
    return List.of(PolicyId.of(id), PolicyId.callerDefault(id.caller()), PolicyId.ALL);
  }

  /**
   * Resolves {@code id} against the policies in force.
   *
   * @param inForce the policy in force for an id, empty when there is none
   * @return the most specific policy in force, empty when none applies
   */
  public static <T> Optional<Resolved<T>> resolve(
      BreakerId id, Function<PolicyId, Optional<T>> inForce) {
    for (PolicyId candidate : candidates(id)) {
      Optional<T> p = inForce.apply(candidate);
      if (p.isPresent()) {
        return Optional.of(new Resolved<>(candidate, p.get()));
      }
    }
    return Optional.empty();
  }

  /**
   * The result of a resolution.
   *
   * @param policyId the policy that governs the breaker
   * @param value what the lookup returned for it
   */
  public record Resolved<T>(PolicyId policyId, T value) {}
}
