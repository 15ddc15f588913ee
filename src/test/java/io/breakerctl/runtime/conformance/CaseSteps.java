package io.breakerctl.runtime.conformance;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.AcquireResult;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.BreakerStore;
import io.breakerctl.runtime.store.NodeHeartbeat;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.OverrideRequest;
import io.breakerctl.runtime.store.OverrideResult;
import io.breakerctl.runtime.store.ReassertResult;
import io.breakerctl.runtime.store.Reassertion;
import io.breakerctl.runtime.store.RecordResult;
import io.breakerctl.runtime.store.RenewResult;
import io.breakerctl.runtime.store.StoreFutures;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * One attempt of one conformance case on one breaker: the store commands a case sends, as node
 * {@code node-<i>}, with the case's policy, and the time steps that keep a verdict independent of
 * the machine's speed ({@link #before}, {@link #awaitTime}, {@link #timed}).
 */
final class CaseSteps {
  private static final AtomicInteger SEQ = new AtomicInteger();

  /**
   * A step that ran too late for the case to prove anything (it was meant to run before a lease,
   * window or override ended): the attempt is repeated on a fresh breaker with the unit doubled.
   */
  static final class Late extends RuntimeException {
    Late(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * A step with the store's time read before and after it: whatever the store decided, it decided
   * at a time in [{@code startMillis}, {@code endMillis}].
   */
  record Timed<T>(long startMillis, T value, long endMillis) {}

  private final StoreUnderTest sut;
  private final IntFunction<BreakerStore> stores;
  private final String caseId;
  final BreakerId id;
  final long unit;
  private Policy policy = Policy.DEFAULT;

  CaseSteps(StoreUnderTest sut, IntFunction<BreakerStore> stores, String caseId, long unitMillis) {
    this.sut = sut;
    this.stores = stores;
    this.caseId = caseId;
    this.unit = unitMillis;
    this.id = BreakerId.parse("conformance:" + caseId + "-" + SEQ.incrementAndGet());
  }

  /** Another breaker for the same attempt (same stores, unit and policy). */
  CaseSteps another() {
    CaseSteps s = new CaseSteps(sut, stores, caseId, unit);
    s.policy = policy;
    return s;
  }

  /** The same breaker reached through other stores (e.g. the key-expiry hook's). */
  CaseSteps through(IntFunction<BreakerStore> other) {
    CaseSteps s = new CaseSteps(sut, other, caseId, unit);
    s.policy = policy;
    return s;
  }

  /** {@code n} units. */
  Duration units(long n) {
    return Duration.ofMillis(n * unit);
  }

  /** Uses {@code p} in every command from now on. */
  CaseSteps policy(Policy p) {
    this.policy = p;
    return this;
  }

  Policy policy() {
    return policy;
  }

  /** Node {@code i}'s name (its id in every command it sends). */
  static String node(int i) {
    return "node-" + i;
  }

  BreakerStore store(int i) {
    return stores.apply(i);
  }

  // ---- time ----

  /** The store's time now, as a read of the breaker reports it. */
  long now() {
    return snapshot(0).redisTimeMillis();
  }

  /** Returns once the store's time is at least {@code storeMillis}. */
  void awaitTime(long storeMillis) {
    sut.awaitStoreTime(id, storeMillis);
  }

  /** Runs {@code step} between two reads of the store's time. */
  <T> Timed<T> timed(Supplier<T> step) {
    long start = now();
    T value = step.get();
    return new Timed<>(start, value, now());
  }

  /**
   * Runs {@code step}, which the case needs to have run before {@code deadline} (store ms), and
   * proves it did: a read of the store's time after the step is still before the deadline.
   *
   * @throws Late otherwise
   */
  <T> T before(long deadline, String what, Supplier<T> step) {
    T value = step.get();
    long after = now();
    if (after >= deadline) {
      throw new Late(what + " ended at store time " + after + ", not before " + deadline);
    }
    return value;
  }

  // ---- commands ----

  BreakerSnapshot snapshot(int i) {
    return StoreFutures.await(store(i).state(id));
  }

  AcquireResult acquire(int i) {
    return StoreFutures.await(store(i).acquire(id, node(i), policy));
  }

  RecordResult record(int i, Outcome o) {
    return StoreFutures.await(store(i).record(id, o, policy));
  }

  /**
   * Node {@code i}'s report with no outcome: CLOSED on its defaults, with these idle fallbacks,
   * session and accepted kinds.
   */
  RecordResult report(int i, String idleFallbacks, String session, String accepts) {
    NodeHeartbeat own =
        new NodeHeartbeat(
            node(i), State.CLOSED, "", 0, false, 0, "", "", idleFallbacks, session, accepts);
    return StoreFutures.await(
        store(i).record(id, new Outcome(node(i), 0, 0, -1, "", ""), policy, own));
  }

  /** The nodes' reports on the breaker as the fleet view reads them. */
  java.util.List<NodeHeartbeat> reports() {
    return sut.reports(id);
  }

  /** One failure of a call admitted in {@code generation} ("" unknown), no lease. */
  RecordResult failure(int i, String generation) {
    return record(i, new Outcome(node(i), 1, 0, -1, generation, ""));
  }

  /** One success of a call admitted in {@code generation} ("" unknown), no lease. */
  RecordResult success(int i, String generation) {
    return record(i, new Outcome(node(i), 0, 1, -1, generation, ""));
  }

  /** A probe's result under {@code lease}, admitted in {@code generation}. */
  RecordResult probe(int i, String generation, String lease, boolean ok) {
    return record(i, Outcome.probe(node(i), generation, lease, ok));
  }

  /** Renews {@code lease} of a probe still running, granted in {@code generation}. */
  RenewResult renew(int i, String generation, String lease) {
    return StoreFutures.await(store(i).renew(id, node(i), policy, lease, generation));
  }

  /** Gives {@code lease} back unused. */
  RecordResult release(int i, String lease) {
    return record(i, Outcome.release(node(i), lease));
  }

  OverrideResult override(int i, OverrideKind kind, Duration forOrZero) {
    return StoreFutures.await(
        store(i)
            .override(
                id,
                new OverrideRequest(kind, "operator", "conformance " + caseId, forOrZero, "c-1")));
  }

  /**
   * An override asking to keep the same override, actor and reason when held ({@link
   * OverrideRequest#keep}), with its own reason and correlation id.
   */
  OverrideResult overrideKeeping(
      int i, OverrideKind kind, Duration forOrZero, String reason, String corr) {
    return StoreFutures.await(
        store(i)
            .override(
                id, new OverrideRequest(kind, "operator", reason, forOrZero, corr).keeping()));
  }

  ReassertResult reassert(int i, Reassertion r) {
    return StoreFutures.await(store(i).reassert(id, node(i), r, policy));
  }

  /**
   * Trips the breaker from CLOSED: {@code failureThreshold} failures from node {@code i}; returns
   * the answer to the last one (the trip).
   */
  RecordResult trip(int i) {
    RecordResult last = null;
    for (int n = 0; n < policy.failureThreshold(); n++) {
      last = failure(i, "");
    }
    return last;
  }

  @Override
  public String toString() {
    return id + " (unit " + unit + " ms)";
  }
}
