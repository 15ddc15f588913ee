package io.breakerctl.runtime.control.override;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.OverrideRequest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * What one override request would do to each selected breaker, decided from one read of them all
 * ({@link BreakerOverrides#plan}): a dry run shows it, {@link BreakerOverrides#apply(OverridePlan,
 * java.util.function.BooleanSupplier)} carries it out, where the override script's own answer
 * decides again (the plan may be old by then).
 *
 * @param request the request planned
 * @param entries one per selected breaker, in the order selected
 */
public record OverridePlan(OverrideRequest request, List<Entry> entries) {

  /** Copies the entries. */
  public OverridePlan {
    entries = List.copyOf(entries);
  }

  /** What the request would do to one breaker. */
  public enum Decision {
    /** A new override would be in force. */
    WOULD_SET,
    /** The override already in force, set by another actor or for another reason, is updated. */
    WOULD_UPDATE,
    /**
     * The same override, set by the same actor with the same reason, is in force: nothing would
     * change, its expiry stands (a re-run after a partial change leaves it).
     */
    UNCHANGED,
    /** The override in force would be cleared; the machine resumes. */
    WOULD_CLEAR,
    /** A clear finds no override: nothing would change. */
    NOT_OVERRIDDEN,
    /** The breaker's keys cannot be read ({@link BreakerSnapshot#problem()}): the script fails. */
    WOULD_FAIL
  }

  /**
   * One breaker's part of the plan.
   *
   * @param id the breaker
   * @param snapshot what the read found
   * @param decision what the request would do
   * @param untilMillis the expiry the request leaves (store ms): for a force with a duration the
   *     held one when {@link Decision#UNCHANGED}, else the store's time plus the duration; 0 for a
   *     clear, a force until cleared, or a breaker that cannot be read
   */
  public record Entry(BreakerId id, BreakerSnapshot snapshot, Decision decision, long untilMillis) {

    /** The state in force before, empty when the breaker cannot be read. */
    public Optional<State> before() {
      return snapshot.problem().isPresent()
          ? Optional.empty()
          : Optional.of(snapshot.effectiveState());
    }
  }

  /**
   * The plan of {@code request} over the {@code selected} breakers of {@code store}, from one read
   * of them all (every snapshot requested before any is awaited); it writes nothing and needs no
   * control plane, so a dry run makes it alone.
   *
   * @throws io.breakerctl.runtime.store.StoreException when a breaker's state cannot be read
   */
  public static OverridePlan read(
      FleetStore store, List<BreakerId> selected, OverrideRequest request) {
    return OverridePlanner.plan(id -> store.snapshot(id, 0), selected, request);
  }

  /** The plan of {@code request} over {@code snapshots} (one per selected breaker). */
  public static OverridePlan of(OverrideRequest request, Collection<BreakerSnapshot> snapshots) {
    List<Entry> entries = new ArrayList<>(snapshots.size());
    for (BreakerSnapshot s : snapshots) {
      Decision d = decide(s, request);
      entries.add(new Entry(s.id(), s, d, until(s, request, d)));
    }
    return new OverridePlan(request, entries);
  }

  /** What {@code request} would do to the breaker {@code s} shows. */
  public static Decision decide(BreakerSnapshot s, OverrideRequest request) {
    if (s.problem().isPresent()) {
      return Decision.WOULD_FAIL;
    }
    State before = s.effectiveState();
    if (request.kind() == OverrideKind.CLEAR) {
      return before.isOverride() ? Decision.WOULD_CLEAR : Decision.NOT_OVERRIDDEN;
    }
    if (held(s, request)) {
      return Decision.UNCHANGED;
    }
    return before == request.kind().state() ? Decision.WOULD_UPDATE : Decision.WOULD_SET;
  }

  /** How many entries have {@code decision}. */
  public long count(Decision decision) {
    return entries.stream().filter(e -> e.decision() == decision).count();
  }

  /** The same override live, set by the same actor with the same reason. */
  private static boolean held(BreakerSnapshot s, OverrideRequest request) {
    return s.exists()
        && s.effectiveState() == request.kind().state()
        && s.overrideDetail()
            .filter(o -> o.actor().equals(request.actor()) && o.reason().equals(request.reason()))
            .isPresent();
  }

  private static long until(BreakerSnapshot s, OverrideRequest request, Decision d) {
    if (d == Decision.WOULD_FAIL
        || request.kind() == OverrideKind.CLEAR
        || request.duration().isZero()) {
      return 0;
    }
    if (d == Decision.UNCHANGED) {
      return s.overrideDetail().map(BreakerSnapshot.OverrideDetail::untilMillis).orElse(0L);
    }
    return s.redisTimeMillis() + request.duration().toMillis();
  }
}
