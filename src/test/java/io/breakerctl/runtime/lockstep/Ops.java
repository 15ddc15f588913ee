package io.breakerctl.runtime.lockstep;

import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

/**
 * The generators: a policy of short durations (tens of ms, so a sequence crosses bucket, window,
 * open, lease and override boundaries within a second) and sequences of {@link Op}s over it.
 */
final class Ops {
  private Ops() {}

  /**
   * A policy, in the scenario table's field names (so a counterexample reads as a table row).
   *
   * @param maxOpenTimes maxOpen as a multiple of open
   */
  record Shape(
      int threshold,
      int window,
      Integer rate,
      int minCalls,
      Integer slow,
      int open,
      int maxOpenTimes,
      int permits,
      int lease,
      int maxProbe,
      boolean enabled) {

    Policy toPolicy() {
      return Policy.builder()
          .failureThreshold(threshold)
          .window(Duration.ofMillis(window))
          .failureRateThreshold(rate == null ? null : rate.doubleValue())
          .minimumCalls(minCalls)
          .slowCallMillis(slow)
          .open(Duration.ofMillis(open))
          .maxOpen(Duration.ofMillis((long) open * maxOpenTimes))
          .halfOpenPermits(permits)
          .probeLease(Duration.ofMillis(lease))
          .maxProbe(Duration.ofMillis(maxProbe))
          .enabled(enabled)
          .build();
    }

    @Override
    public String toString() {
      return "{threshold: "
          + threshold
          + ", window: "
          + window
          + (rate == null ? "" : ", rate: " + rate + ", minCalls: " + minCalls)
          + (slow == null ? "" : ", slow: " + slow)
          + ", open: "
          + open
          + ", maxOpen: "
          + open * maxOpenTimes
          + ", permits: "
          + permits
          + ", lease: "
          + lease
          + (maxProbe == 0 ? "" : ", maxProbe: " + maxProbe)
          + (enabled ? "" : ", enabled: false")
          + "}";
    }
  }

  /** A policy and the operations run under it. */
  record Sequence(Shape shape, List<Op> ops) {
    @Override
    public String toString() {
      StringBuilder b = new StringBuilder("policy " + shape + ", " + ops.size() + " ops:");
      for (int i = 0; i < ops.size(); i++) {
        b.append("\n    ").append(i + 1).append(". ").append(ops.get(i));
      }
      return b.toString();
    }
  }

  static Arbitrary<Shape> shapes() {
    Arbitrary<Integer> threshold = Arbitraries.integers().between(1, 4);
    Arbitrary<Integer> window = Arbitraries.of(50, 100, 200);
    Arbitrary<Integer> rate =
        Arbitraries.frequencyOf(
            Tuple.of(3, Arbitraries.just((Integer) null)), Tuple.of(1, Arbitraries.of(50, 100)));
    Arbitrary<Integer> minCalls = Arbitraries.integers().between(1, 5);
    Arbitrary<Integer> slow =
        Arbitraries.frequencyOf(
            Tuple.of(2, Arbitraries.just((Integer) null)), Tuple.of(1, Arbitraries.of(20, 60)));
    Arbitrary<Integer> open = Arbitraries.of(20, 50);
    Arbitrary<Integer> maxOpenTimes = Arbitraries.of(1, 2, 4);
    Arbitrary<Integer> permits = Arbitraries.integers().between(1, 3);
    Arbitrary<Integer> lease = Arbitraries.of(25, 60);
    Arbitrary<Integer> maxProbe =
        Arbitraries.frequencyOf(
            Tuple.of(1, Arbitraries.just(0)), Tuple.of(1, Arbitraries.of(15, 40)));
    Arbitrary<Boolean> enabled =
        Arbitraries.frequencyOf(
            Tuple.of(9, Arbitraries.just(true)), Tuple.of(1, Arbitraries.just(false)));
    return Combinators.combine(
            Combinators.combine(
                    List.of(
                        threshold,
                        window,
                        rate,
                        minCalls,
                        slow,
                        open,
                        maxOpenTimes,
                        permits,
                        lease,
                        maxProbe))
                .as(v -> v),
            enabled)
        .as(
            (v, e) ->
                new Shape(
                    v.get(0), v.get(1), v.get(2), v.get(3), v.get(4), v.get(5), v.get(6), v.get(7),
                    v.get(8), v.get(9), e));
  }

  /** The policy a warm writes: {@code variant} 0 is the caller's own, 1-3 differ from it. */
  static Policy variant(Policy base, int variant) {
    Policy.Builder b = base.toBuilder();
    switch (variant) {
      case 1 ->
          b.failureThreshold(base.failureThreshold() + 1).window(base.window().multipliedBy(2));
      case 2 ->
          b.halfOpenPermits(1)
              .failureRateThreshold(null)
              .open(Duration.ofMillis(30))
              .maxOpen(Duration.ofMillis(120));
      case 3 -> b.enabled(!base.enabled());
      default -> {}
    }
    return b.build();
  }

  static Arbitrary<Op.Gen> gens() {
    return Arbitraries.frequencyOf(
        Tuple.of(4, Arbitraries.just(Op.Gen.UNKNOWN)),
        Tuple.of(3, Arbitraries.just(Op.Gen.CURRENT)),
        Tuple.of(1, Arbitraries.just(Op.Gen.PREVIOUS)));
  }

  static Arbitrary<Op> ops() {
    Arbitrary<Op> fail =
        Combinators.combine(Arbitraries.integers().between(1, 3), gens()).as(Op.Fail::new);
    Arbitrary<Op> succeed =
        Combinators.combine(Arbitraries.integers().between(1, 12), gens()).as(Op.Succeed::new);
    Arbitrary<Op> call =
        Combinators.combine(Arbitraries.of(5, 25, 45, 80), gens()).as(Op.Call::new);
    Arbitrary<Op> acquire =
        Combinators.combine(
                Arbitraries.frequencyOf(
                    Tuple.of(3, Arbitraries.just(Side.NODE)),
                    Tuple.of(1, Arbitraries.just(Side.OTHER))),
                Arbitraries.of(false, true))
            .as(Op.Acquire::new);
    Arbitrary<Op> probe =
        Combinators.combine(
                Arbitraries.frequencyOf(
                    Tuple.of(4, Arbitraries.just(0)),
                    Tuple.of(1, Arbitraries.integers().between(1, 3))),
                Arbitraries.frequencyOf(
                    Tuple.of(3, Arbitraries.just(Op.Result.OK)),
                    Tuple.of(2, Arbitraries.just(Op.Result.FAIL)),
                    Tuple.of(1, Arbitraries.just(Op.Result.SLOW))),
                Arbitraries.frequencyOf(
                    Tuple.of(6, Arbitraries.just(false)), Tuple.of(1, Arbitraries.just(true))),
                gens(),
                Arbitraries.frequencyOf(
                    Tuple.of(5, Arbitraries.just(true)), Tuple.of(1, Arbitraries.just(false))))
            .as(Op.Probe::new);
    Arbitrary<Op> release =
        Combinators.combine(
                Arbitraries.integers().between(0, 2),
                Arbitraries.frequencyOf(
                    Tuple.of(5, Arbitraries.just(false)), Tuple.of(1, Arbitraries.just(true))))
            .as(Op.Release::new);
    Arbitrary<Op> renew =
        Combinators.combine(
                Arbitraries.frequencyOf(
                    Tuple.of(4, Arbitraries.just(0)),
                    Tuple.of(1, Arbitraries.integers().between(1, 3))),
                Arbitraries.frequencyOf(
                    Tuple.of(6, Arbitraries.just(false)), Tuple.of(1, Arbitraries.just(true))),
                Arbitraries.frequencyOf(
                    Tuple.of(5, Arbitraries.just(true)), Tuple.of(1, Arbitraries.just(false))))
            .as(Op.Renew::new);
    Arbitrary<Op> force =
        Combinators.combine(
                Arbitraries.of(
                    State.FORCED_OPEN, State.FORCED_CLOSED, State.DISABLED, State.METRICS_ONLY),
                Arbitraries.frequencyOf(
                    Tuple.of(2, Arbitraries.just(20)),
                    Tuple.of(2, Arbitraries.just(60)),
                    Tuple.of(1, Arbitraries.just(0))))
            .as(Op.Force::new);
    Arbitrary<Op> clear = Arbitraries.just(new Op.Clear());
    Arbitrary<Op> warm =
        Combinators.combine(
                Arbitraries.of("p1", "p2"),
                Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(0, 3))
            .as(Op.Warm::new);
    Arbitrary<Op> wait = Arbitraries.of(2, 10, 25, 60, 120).map(Op.Wait::new);
    return Arbitraries.frequencyOf(
        Tuple.of(10, fail),
        Tuple.of(5, succeed),
        Tuple.of(3, call),
        Tuple.of(20, acquire),
        Tuple.of(18, probe),
        Tuple.of(3, release),
        Tuple.of(8, renew),
        Tuple.of(3, force),
        Tuple.of(2, clear),
        Tuple.of(2, warm),
        Tuple.of(16, wait));
  }

  static Arbitrary<Sequence> sequences(int minOps, int maxOps) {
    return Combinators.combine(
            shapes(),
            ops()
                .list()
                .ofMinSize(minOps)
                .ofMaxSize(maxOps)
                .withSizeDistribution(RandomDistribution.uniform()))
        .as(Sequence::new);
  }
}
