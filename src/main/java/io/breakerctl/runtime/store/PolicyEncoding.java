package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.Criticality;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.PolicyField;
import io.breakerctl.runtime.model.RateLimitAction;
import io.breakerctl.runtime.model.StoreFailureMode;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * How a {@link Policy} travels to the scripts (one argument of eleven comma-separated values) and
 * lives in the state hash ({@code p.*} fields next to {@code policyId} and {@code policyVersion}).
 */
public final class PolicyEncoding {
  private PolicyEncoding() {}

  /** A policy version as warmed into a breaker's hash. */
  public record WarmedPolicy(String policyId, long version, Policy policy) {}

  /**
   * The policy as the scripts' one policy argument (ARGV[3]): eleven comma-separated values,
   * failureThreshold, windowMillis, failureRate, minimumCalls, slowCallMillis, openMillis,
   * maxOpenMillis, halfOpenPermits, probeLeaseMillis, enabled (1|0), maxProbeMillis (0: no bound);
   * an unset optional field is empty. (Ten values, as nodes built before maxProbeSeconds send,
   * still decode: maxProbeMillis takes its default.) Plain decimals only (no exponent), as the
   * scripts' pattern expects.
   */
  public static String toArg(Policy p) {
    return String.join(
        ",",
        Integer.toString(p.failureThreshold()),
        Long.toString(p.window().toMillis()),
        p.failureRateThreshold().isPresent() ? plain(p.failureRateThreshold().getAsDouble()) : "",
        Integer.toString(p.minimumCalls()),
        p.slowCallMillis().isPresent() ? Integer.toString(p.slowCallMillis().getAsInt()) : "",
        Long.toString(p.open().toMillis()),
        Long.toString(p.maxOpen().toMillis()),
        Integer.toString(p.halfOpenPermits()),
        Long.toString(p.probeLease().toMillis()),
        p.enabled() ? "1" : "0",
        Long.toString(p.maxProbe().toMillis()));
  }

  /** The policy argument of scripts that need no caller policy: every field its default. */
  public static final String NO_POLICY = "";

  private static String plain(double d) {
    return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
  }

  /**
   * Decodes a policy argument ({@link #toArg}); an empty value is every default.
   *
   * @throws IllegalArgumentException for a value that is not ten or eleven comma-separated fields
   */
  public static Policy fromArg(String arg) {
    Policy.Builder b = Policy.builder();
    if (arg == null || arg.isEmpty()) {
      return b.build();
    }
    String[] v = arg.split(",", -1);
    if (v.length != 11 && v.length != 10) {
      throw new IllegalArgumentException(
          "a policy argument has 11 comma-separated fields but this has " + v.length);
    }
    if (!v[0].isEmpty()) {
      b.failureThreshold(Integer.parseInt(v[0]));
    }
    if (!v[1].isEmpty()) {
      b.window(Duration.ofMillis(Long.parseLong(v[1])));
    }
    b.failureRateThreshold(v[2].isEmpty() ? null : Double.valueOf(v[2]));
    if (!v[3].isEmpty()) {
      b.minimumCalls(Integer.parseInt(v[3]));
    }
    b.slowCallMillis(v[4].isEmpty() ? null : Integer.valueOf(v[4]));
    if (!v[5].isEmpty()) {
      b.open(Duration.ofMillis(Long.parseLong(v[5])));
    }
    if (!v[6].isEmpty()) {
      b.maxOpen(Duration.ofMillis(Long.parseLong(v[6])));
    }
    if (!v[7].isEmpty()) {
      b.halfOpenPermits(Integer.parseInt(v[7]));
    }
    if (!v[8].isEmpty()) {
      b.probeLease(Duration.ofMillis(Long.parseLong(v[8])));
    }
    b.enabled(!"0".equals(v[9]));
    if (v.length > 10 && !v[10].isEmpty()) {
      b.maxProbe(Duration.ofMillis(Long.parseLong(v[10])));
    }
    return b.build();
  }

  /**
   * The registry defaults the nodes run with while no policy is warmed, as the record script stores
   * them ({@code nodePolicy}), if any node recorded them. Only the script fields are known:
   * storeFailureMode, fallbackPolicy and staticDefault read as their defaults.
   */
  public static Optional<Policy> nodeDefaults(Map<String, String> f) {
    String arg = f.get("nodePolicy");
    if (arg == null || f.containsKey("policyVersion")) {
      return Optional.empty();
    }
    try {
      return Optional.of(fromArg(arg));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** The {@code p.*} fields in the policy argument's order, as {@code warm.lua} writes them. */
  private static final String[] ARG_FIELDS =
      PolicyField.argumentFields().stream().map(PolicyField::hashField).toArray(String[]::new);

  /**
   * The hash fields {@code warm.lua} writes for {@code w} (an unset optional field is absent): what
   * {@link #fromFields} reads back.
   */
  public static Map<String, String> toFields(WarmedPolicy w) {
    Map<String, String> f = new java.util.LinkedHashMap<>();
    String arg = toArg(w.policy());
    String[] v = arg.split(",", -1);
    for (int i = 0; i < ARG_FIELDS.length; i++) {
      if (!v[i].isEmpty()) {
        f.put(ARG_FIELDS[i], v[i]);
      }
    }
    f.put("policy", arg);
    f.put(PolicyField.STORE_FAILURE_MODE.hashField(), w.policy().storeFailureMode().name());
    f.put(PolicyField.FALLBACK_POLICY.hashField(), w.policy().fallbackPolicy().name());
    w.policy().staticDefault().ifPresent(n -> f.put(PolicyField.STATIC_DEFAULT.hashField(), n));
    f.put(PolicyField.CRITICALITY.hashField(), w.policy().criticality().name());
    f.put(PolicyField.RATE_LIMITED.hashField(), w.policy().rateLimited().name());
    f.put("policyId", w.policyId());
    f.put("policyVersion", Long.toString(w.version()));
    return f;
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
    String maxProbe = f.get(PolicyField.MAX_PROBE.hashField());
    if (maxProbe != null) {
      b.maxProbe(Duration.ofMillis(Long.parseLong(maxProbe)));
    }
    b.storeFailureMode(
        StoreFailureMode.valueOf(f.getOrDefault("p.storeFailureMode", "LOCAL_ONLY")));
    b.fallbackPolicy(FallbackPolicy.valueOf(f.getOrDefault("p.fallbackPolicy", "NONE")));
    b.staticDefault(f.get(PolicyField.STATIC_DEFAULT.hashField()));
    b.criticality(Criticality.valueOf(f.getOrDefault(PolicyField.CRITICALITY.hashField(), "NONE")));
    b.rateLimited(
        RateLimitAction.valueOf(f.getOrDefault(PolicyField.RATE_LIMITED.hashField(), "IGNORE")));
    return Optional.of(
        new WarmedPolicy(f.getOrDefault("policyId", ""), Long.parseLong(version), b.build()));
  }
}
