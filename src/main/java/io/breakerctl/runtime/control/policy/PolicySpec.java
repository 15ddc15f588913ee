package io.breakerctl.runtime.control.policy;

import io.breakerctl.runtime.model.Criticality;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.PolicyField;
import io.breakerctl.runtime.model.RateLimitAction;
import io.breakerctl.runtime.model.StoreFailureMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code spec} of a policy document in its canonical form: every field, in a fixed order, at
 * its effective value ({@code null} for the optional {@code failureRateThreshold}, {@code
 * slowCallMillis} and {@code staticDefault} when off). This is what MongoDB stores and what diffs
 * compare, so a spec that spells out a default equals one that leaves it out.
 */
public final class PolicySpec {

  /** The spec fields, in document order ({@link PolicyField}, the one table). */
  public static final List<String> FIELDS = PolicyField.specNames();

  private PolicySpec() {}

  /**
   * The canonical spec of {@code p}: integers, seconds as whole numbers or decimals, enums by name.
   */
  public static Map<String, Object> toMap(Policy p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("failureThreshold", p.failureThreshold());
    m.put("windowSeconds", seconds(p.window()));
    m.put(
        "failureRateThreshold",
        p.failureRateThreshold().isPresent() ? p.failureRateThreshold().getAsDouble() : null);
    m.put("minimumCalls", p.minimumCalls());
    m.put("slowCallMillis", p.slowCallMillis().isPresent() ? p.slowCallMillis().getAsInt() : null);
    m.put("openSeconds", seconds(p.open()));
    m.put("maxOpenSeconds", seconds(p.maxOpen()));
    m.put("halfOpenPermits", p.halfOpenPermits());
    m.put("probeLeaseSeconds", seconds(p.probeLease()));
    m.put("maxProbeSeconds", seconds(p.maxProbe()));
    m.put("storeFailureMode", p.storeFailureMode().name());
    m.put("fallbackPolicy", p.fallbackPolicy().name());
    m.put("staticDefault", p.staticDefault().orElse(null));
    m.put("enabled", p.enabled());
    m.put("criticality", p.criticality().name());
    m.put("rateLimited", p.rateLimited().name());
    return m;
  }

  /**
   * Rebuilds a policy from a canonical spec as stored (absent fields take their defaults).
   *
   * @throws IllegalArgumentException when a stored value is out of range
   */
  public static Policy fromMap(Map<String, ?> m) {
    Policy.Builder b = Policy.builder();
    if (m.get("failureThreshold") instanceof Number n) {
      b.failureThreshold(n.intValue());
    }
    if (m.get("windowSeconds") instanceof Number n) {
      b.window(millis(n));
    }
    if (m.get("failureRateThreshold") instanceof Number n) {
      b.failureRateThreshold(n.doubleValue());
    }
    if (m.get("minimumCalls") instanceof Number n) {
      b.minimumCalls(n.intValue());
    }
    if (m.get("slowCallMillis") instanceof Number n) {
      b.slowCallMillis(n.intValue());
    }
    if (m.get("openSeconds") instanceof Number n) {
      b.open(millis(n));
    }
    if (m.get("maxOpenSeconds") instanceof Number n) {
      b.maxOpen(millis(n));
    }
    if (m.get("halfOpenPermits") instanceof Number n) {
      b.halfOpenPermits(n.intValue());
    }
    if (m.get("probeLeaseSeconds") instanceof Number n) {
      b.probeLease(millis(n));
    }
    if (m.get("maxProbeSeconds") instanceof Number n) {
      b.maxProbe(millis(n));
    }
    if (m.get("storeFailureMode") instanceof String s) {
      b.storeFailureMode(StoreFailureMode.valueOf(s));
    }
    if (m.get("fallbackPolicy") instanceof String s) {
      b.fallbackPolicy(FallbackPolicy.valueOf(s));
    }
    if (m.get("staticDefault") instanceof String s) {
      b.staticDefault(s);
    }
    if (m.get("enabled") instanceof Boolean e) {
      b.enabled(e);
    }
    if (m.get("criticality") instanceof String s) {
      b.criticality(Criticality.valueOf(s));
    }
    if (m.get("rateLimited") instanceof String s) {
      b.rateLimited(RateLimitAction.valueOf(s));
    }
    return b.build();
  }

  /**
   * The fields whose values differ between two policies, in document order. Paths are spelled
   * {@code spec.<field>}; values as the document spells them, {@code null} when off.
   */
  public static List<FieldChange> diff(Policy before, Policy after) {
    Map<String, Object> a = before == null ? null : toMap(before);
    Map<String, Object> b = after == null ? null : toMap(after);
    List<FieldChange> changes = new ArrayList<>();
    for (String f : FIELDS) {
      Object x = a == null ? null : a.get(f);
      Object y = b == null ? null : b.get(f);
      if (!Objects.equals(x, y)) {
        changes.add(new FieldChange("spec." + f, x, y));
      }
    }
    return changes;
  }

  /** Seconds as a whole number ({@code Long}) or a decimal ({@code Double}) of whole ms. */
  static Number seconds(Duration d) {
    long ms = d.toMillis();
    if (ms % 1000 == 0) {
      return ms / 1000;
    }
    return ms / 1000.0;
  }

  private static Duration millis(Number seconds) {
    return Duration.ofMillis(Math.round(seconds.doubleValue() * 1000));
  }

  /**
   * One field that differs.
   *
   * @param path the field path, e.g. {@code spec.failureThreshold}
   * @param before the old value, {@code null} when off or absent
   * @param after the new value, {@code null} when off or absent
   */
  public record FieldChange(String path, Object before, Object after) {
    @Override
    public String toString() {
      return path + ": " + before + " -> " + after;
    }
  }
}
