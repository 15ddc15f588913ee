package io.breakerctl.runtime.model;

import java.util.Arrays;
import java.util.List;

/**
 * The one table of a policy's fields: the name a policy document's {@code spec} uses (and the
 * canonical spec MongoDB stores, in this order), its type, the hash field {@code warm.lua} writes
 * ({@code p.*}), and its place in the scripts' one policy argument. The parser, the canonical spec,
 * the script encoding and the policy table of src/docs/control-plane.md are checked against it
 * ({@code PolicyFieldTableTest}), so a field is added here once, not in six lists.
 */
public enum PolicyField {
  /** Failures in the window that trip the breaker. */
  FAILURE_THRESHOLD("failureThreshold", Type.INTEGER, "p.failureThreshold", 0),
  /** The sliding window's length. */
  WINDOW("windowSeconds", Type.SECONDS, "p.windowMillis", 1),
  /** Failure percentage that trips once {@code minimumCalls} calls are in the window (optional). */
  FAILURE_RATE_THRESHOLD("failureRateThreshold", Type.PERCENT, "p.failureRate", 2),
  /** Calls the window needs before the rate counts. */
  MINIMUM_CALLS("minimumCalls", Type.INTEGER, "p.minimumCalls", 3),
  /** A call this slow counts as a failure (optional). */
  SLOW_CALL_MILLIS("slowCallMillis", Type.INTEGER, "p.slowCallMillis", 4),
  /** The first open window's length. */
  OPEN("openSeconds", Type.SECONDS, "p.openMillis", 5),
  /** The longest open window the doubling backoff reaches. */
  MAX_OPEN("maxOpenSeconds", Type.SECONDS, "p.maxOpenMillis", 6),
  /** Probes fleet-wide per half-open window (and successes needed to close). */
  HALF_OPEN_PERMITS("halfOpenPermits", Type.INTEGER, "p.halfOpenPermits", 7),
  /** How long a probe lease lasts before another node may probe. */
  PROBE_LEASE("probeLeaseSeconds", Type.SECONDS, "p.probeLeaseMillis", 8),
  /** How long a probe may hold its slot before it counts as failed (0: no bound). */
  MAX_PROBE("maxProbeSeconds", Type.SECONDS, "p.maxProbeMillis", 10),
  /** What a node does while Redis is unreachable. */
  STORE_FAILURE_MODE("storeFailureMode", Type.ENUM, "p.storeFailureMode", -1),
  /** What serves a rejected call. */
  FALLBACK_POLICY("fallbackPolicy", Type.ENUM, "p.fallbackPolicy", -1),
  /** The static safe default a STATIC_DEFAULT fallback serves, by its name in code (optional). */
  STATIC_DEFAULT("staticDefault", Type.NAME, "p.staticDefault", -1),
  /** Whether the breaker acts at all (false: counts, never rejects). */
  ENABLED("enabled", Type.BOOLEAN, "p.enabled", 9),
  /** How critical the dependency is: a tag on the breaker's meters, no change in behaviour. */
  CRITICALITY("criticality", Type.ENUM, "p.criticality", -1),
  /** What a rate-limit answer (429) does: IGNORE, BACKOFF on its Retry-After, or COUNT it. */
  RATE_LIMITED("rateLimited", Type.ENUM, "p.rateLimited", -1);

  /** How a document spells a field's value. */
  public enum Type {
    /** A whole number. */
    INTEGER,
    /** Seconds, whole or decimal, of whole milliseconds (milliseconds in the scripts). */
    SECONDS,
    /** A percentage, 0 to 100 exclusive of 0. */
    PERCENT,
    /** An enum constant by name. */
    ENUM,
    /** true or false (1 or 0 in the scripts). */
    BOOLEAN,
    /** A name as code registers it: {@code [a-z0-9][a-z0-9._-]{0,62}}. */
    NAME
  }

  private final String spec;
  private final Type type;
  private final String hashField;
  private final int argIndex;

  PolicyField(String spec, Type type, String hashField, int argIndex) {
    this.spec = spec;
    this.type = type;
    this.hashField = hashField;
    this.argIndex = argIndex;
  }

  /** The field's name in a document's {@code spec} and in the canonical spec. */
  public String spec() {
    return spec;
  }

  /** How its value is spelled. */
  public Type type() {
    return type;
  }

  /** The hash field {@code warm.lua} writes. */
  public String hashField() {
    return hashField;
  }

  /** Its place in the scripts' policy argument, -1 when the scripts do not take it. */
  public int argIndex() {
    return argIndex;
  }

  /** Whether a document may set it to null (off). */
  public boolean optional() {
    return this == FAILURE_RATE_THRESHOLD || this == SLOW_CALL_MILLIS || this == STATIC_DEFAULT;
  }

  /** The spec names in document order. */
  public static List<String> specNames() {
    return Arrays.stream(values()).map(PolicyField::spec).toList();
  }

  /** The fields the scripts' policy argument carries, in its order. */
  public static List<PolicyField> argumentFields() {
    return Arrays.stream(values())
        .filter(f -> f.argIndex >= 0)
        .sorted(java.util.Comparator.comparingInt(PolicyField::argIndex))
        .toList();
  }

  /** The field a document names {@code spec}, or null. */
  public static PolicyField bySpec(String spec) {
    for (PolicyField f : values()) {
      if (f.spec.equals(spec)) {
        return f;
      }
    }
    return null;
  }
}
