package io.breakerctl.testing.scenario;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.breakerctl.runtime.model.Policy;
import java.time.Duration;
import java.util.List;

/**
 * One row of the scenario table ({@code src/test/resources/scenarios/breaker-scenarios.yaml}): a
 * policy and timed steps, each with what both sides must answer.
 *
 * @param name unique, used as the breaker id's dependency segment and the test name
 * @param about what the scenario shows
 * @param policy the policy every caller passes (the script's ARGV[3] until a warm replaces it)
 * @param steps in time order
 */
public record Scenario(String name, String about, PolicyFields policy, List<Step> steps) {

  /**
   * Policy fields in milliseconds; null takes the default of {@link Policy}.
   *
   * @param threshold failureThreshold
   * @param window windowMillis
   * @param rate failureRateThreshold (percent)
   * @param minCalls minimumCalls
   * @param slow slowCallMillis
   * @param open openMillis
   * @param maxOpen maxOpenMillis
   * @param permits halfOpenPermits
   * @param lease probeLeaseMillis
   * @param enabled false turns the breaker off
   * @param maxProbe maxProbeMillis (0: no bound)
   */
  public record PolicyFields(
      Integer threshold,
      Long window,
      Double rate,
      Integer minCalls,
      Integer slow,
      Long open,
      Long maxOpen,
      Integer permits,
      Long lease,
      Boolean enabled,
      Long maxProbe) {

    /** This policy with every field {@code over} sets replaced. */
    public PolicyFields with(PolicyFields over) {
      if (over == null) {
        return this;
      }
      return new PolicyFields(
          or(over.threshold, threshold),
          or(over.window, window),
          or(over.rate, rate),
          or(over.minCalls, minCalls),
          or(over.slow, slow),
          or(over.open, open),
          or(over.maxOpen, maxOpen),
          or(over.permits, permits),
          or(over.lease, lease),
          or(over.enabled, enabled),
          or(over.maxProbe, maxProbe));
    }

    /**
     * This policy with every time (window, open, maxOpen, lease, maxProbe) {@code k} times longer.
     */
    public PolicyFields scaled(long k) {
      return new PolicyFields(
          threshold,
          times(window, k),
          rate,
          minCalls,
          slow,
          times(open, k),
          times(maxOpen, k),
          permits,
          times(lease, k),
          enabled,
          times(maxProbe, k));
    }

    /** The runtime policy. */
    public Policy toPolicy() {
      Policy.Builder b = Policy.builder();
      if (threshold != null) {
        b.failureThreshold(threshold);
      }
      if (window != null) {
        b.window(Duration.ofMillis(window));
      }
      b.failureRateThreshold(rate);
      if (minCalls != null) {
        b.minimumCalls(minCalls);
      }
      b.slowCallMillis(slow);
      if (open != null) {
        b.open(Duration.ofMillis(open));
      }
      if (maxOpen != null) {
        b.maxOpen(Duration.ofMillis(maxOpen));
      }
      if (permits != null) {
        b.halfOpenPermits(permits);
      }
      if (lease != null) {
        b.probeLease(Duration.ofMillis(lease));
      }
      if (enabled != null) {
        b.enabled(enabled);
      }
      if (maxProbe != null) {
        b.maxProbe(Duration.ofMillis(maxProbe));
      }
      return b.build();
    }

    private static <T> T or(T a, T b) {
      return a != null ? a : b;
    }
  }

  private static Long times(Long v, long k) {
    return v == null ? null : v * k;
  }

  /**
   * The same scenario with every clock time {@code k} times longer: step times, policy windows,
   * override durations and the expected until and open. Counts and call durations (slow calls)
   * stay. Since the bucket count is fixed, a scaled scenario answers as the original does.
   */
  public Scenario scaled(long k) {
    if (k == 1) {
      return this;
    }
    return new Scenario(
        name, about, policy.scaled(k), steps.stream().map(s -> s.scaled(k)).toList());
  }

  /**
   * The scenario's start must fall on a multiple of this (ms) so that its window buckets, numbered
   * from the epoch, split its steps the same way every run: the least common multiple of the bucket
   * lengths of its windows.
   */
  public long alignMillis() {
    long align = bucketOf(policy.window());
    for (Step s : steps) {
      if (s.policy() != null && s.policy().window() != null) {
        long b = bucketOf(s.policy().window());
        align = align / gcd(align, b) * b;
      }
    }
    return align;
  }

  private static long bucketOf(Long window) {
    long w = window == null ? Policy.DEFAULT_WINDOW.toMillis() : window;
    return Math.max(1, w / Policy.WINDOW_BUCKETS);
  }

  private static long gcd(long a, long b) {
    return b == 0 ? a : gcd(b, a % b);
  }

  /**
   * One timed operation and its expected answer. Operations ({@code do}):
   *
   * <ul>
   *   <li>{@code fail}: {@code n} failures (default 1); {@code admittedIn} the generation they were
   *       admitted in (default unknown), or {@code admitted} an earlier acquire's name;
   *   <li>{@code ok}: {@code n} successes (default 1); {@code ms} the one call's duration (slow
   *       calls); {@code admittedIn}/{@code admitted} as for fail;
   *   <li>{@code acquire}: asks as {@code node} (default n1), remembered as {@code as};
   *   <li>{@code probe}: the result ({@code result} ok, fail, or release: the lease given back with
   *       no outcome; {@code ms} for a slow one) of the probe admitted by the acquire named {@code
   *       lease}, reported by that acquire's node (or {@code node}) with its generation (or {@code
   *       admittedIn});
   *   <li>{@code renew}: the renewal of the lease of the probe admitted by the acquire named {@code
   *       lease}, by that acquire's node (or {@code node}) with its generation (or {@code
   *       admittedIn}); {@code until} is the lease's new expiry (RENEWED) or the reopened window's
   *       end (PROBE_TIMED_OUT);
   *   <li>{@code force}: the override {@code kind} for {@code for} ms (0 or absent: until cleared);
   *       {@code clear}: clears it;
   *   <li>{@code warm}: policy {@code policyId} (default "scenario") {@code version} with {@code
   *       policy} fields over the scenario's;
   *   <li>{@code check}: reads the effective state, changes nothing.
   * </ul>
   *
   * <p>Expected: {@code state} (the effective state the operation answers), {@code reason} (the
   * acquire reason, the record reason, the override or warm outcome), {@code window} ("f/c" after a
   * record), {@code gen} (the generation after), {@code lease} (the lease id an acquire gets),
   * {@code until} (an acquire's untilMillis, relative to the scenario's start; 0 for none), {@code
   * open} (the open window a record opened, ms), {@code totals} ("failures/successes" ever
   * recorded), {@code events} (every event the step appended, "FROM>TO CAUSE"; absent for none).
   */
  public record Step(
      long at,
      @JsonProperty("do") String op,
      Long n,
      Long ms,
      String node,
      String as,
      String lease,
      String admitted,
      Long admittedIn,
      String result,
      String kind,
      @JsonProperty("for") Long forMs,
      String policyId,
      Long version,
      PolicyFields policy,
      String state,
      String reason,
      String window,
      String gen,
      @JsonProperty("leaseId") String leaseId,
      Long until,
      Long open,
      String totals,
      List<String> events) {

    /** This step with its clock times {@code k} times longer (see {@link Scenario#scaled}). */
    Step scaled(long k) {
      return new Step(
          at * k,
          op,
          n,
          ms,
          node,
          as,
          lease,
          admitted,
          admittedIn,
          result,
          kind,
          times(forMs, k),
          policyId,
          version,
          policy == null ? null : policy.scaled(k),
          state,
          reason,
          window,
          gen,
          leaseId,
          times(until, k),
          times(open, k),
          totals,
          events);
    }

    /** The node that runs the step. */
    public String nodeOr(String fallback) {
      return node != null ? node : fallback;
    }

    /** The count of outcomes of a fail or ok step. */
    public long count() {
      return n == null ? 1 : n;
    }

    /** The events the step must append. */
    public List<String> expectedEvents() {
      return events == null ? List.of() : events;
    }

    @Override
    public String toString() {
      return "at " + at + " " + op + (kind != null ? " " + kind : "");
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
