package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.StoreFailureMode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How a {@link Policy} travels to the scripts (ten positional arguments) and lives in the state
 * hash ({@code p.*} fields next to {@code policyId} and {@code policyVersion}).
 */
public final class PolicyEncoding {
  private PolicyEncoding() {}

  /** A policy version as warmed into a breaker's hash. */
  public record WarmedPolicy(String policyId, long version, Policy policy) {}

  /**
   * The ten positional script arguments (ARGV[3..12]): failureThreshold, windowMillis, failureRate,
   * minimumCalls, slowCallMillis, openMillis, maxOpenMillis, halfOpenPermits, probeLeaseMillis,
   * enabled; an unset optional field is empty.
   */
  public static List<String> toArgs(Policy p) {
    return List.of(
        Integer.toString(p.failureThreshold()),
        Long.toString(p.window().toMillis()),
        p.failureRateThreshold().isPresent()
            ? stripZero(p.failureRateThreshold().getAsDouble())
            : "",
        Integer.toString(p.minimumCalls()),
        p.slowCallMillis().isPresent() ? Integer.toString(p.slowCallMillis().getAsInt()) : "",
        Long.toString(p.open().toMillis()),
        Long.toString(p.maxOpen().toMillis()),
        Integer.toString(p.halfOpenPermits()),
        Long.toString(p.probeLease().toMillis()),
        p.enabled() ? "1" : "0");
  }

  /** Ten empty policy arguments: scripts that need no caller policy. */
  public static final List<String> NO_POLICY = List.of("", "", "", "", "", "", "", "", "", "");

  private static String stripZero(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }

  /** The warmed policy in a breaker's hash fields, if one was warmed. */
  public static Optional<WarmedPolicy> fromFields(Map<String, String> f) {
    String version = f.get("policyVersion");
    if (version == null) {
      return Optional.empty();
    }
    Policy.Builder b = Policy.builder();
    b.failureThreshold(Integer.parseInt(f.getOrDefault("p.failureThreshold", "5")));
    b.window(Duration.ofMillis(Long.parseLong(f.getOrDefault("p.windowMillis", "60000"))));
    String rate = f.get("p.failureRate");
    b.failureRateThreshold(rate == null ? null : Double.valueOf(rate));
    b.minimumCalls(Integer.parseInt(f.getOrDefault("p.minimumCalls", "20")));
    String slow = f.get("p.slowCallMillis");
    b.slowCallMillis(slow == null ? null : Integer.valueOf(slow));
    b.open(Duration.ofMillis(Long.parseLong(f.getOrDefault("p.openMillis", "30000"))));
    b.maxOpen(Duration.ofMillis(Long.parseLong(f.getOrDefault("p.maxOpenMillis", "300000"))));
    b.halfOpenPermits(Integer.parseInt(f.getOrDefault("p.halfOpenPermits", "1")));
    b.probeLease(Duration.ofMillis(Long.parseLong(f.getOrDefault("p.probeLeaseMillis", "10000"))));
    b.enabled(!"0".equals(f.get("p.enabled")));
    b.storeFailureMode(
        StoreFailureMode.valueOf(f.getOrDefault("p.storeFailureMode", "LOCAL_ONLY")));
    b.fallbackPolicy(FallbackPolicy.valueOf(f.getOrDefault("p.fallbackPolicy", "NONE")));
    return Optional.of(
        new WarmedPolicy(f.getOrDefault("policyId", ""), Long.parseLong(version), b.build()));
  }
}
