package io.breakerctl.runtime.fallback;

import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Answers a call that the breaker rejected (or that failed) with the fallback its policy names: a
 * static default, a cached snapshot, a deferred request's tracking id or a controlled failure, each
 * reported to the breaker's observer; a fallback that cannot serve ends in a {@link
 * ControlledFailureException} saying why. {@link Fallbacks} runs the call and hands it the
 * rejection or failure.
 */
final class FallbackAnswers<T> {
  private static final System.Logger LOG = System.getLogger(Fallbacks.class.getName());

  private final CircuitBreaker breaker;
  private final java.util.Set<FallbackPolicy> registered;
  private final StaticDefaults<T> staticDefaults;
  private final SnapshotSource snapshots;
  private final SnapshotCodec<T> codec;
  private final DeferredQueue deferred;
  private final Clock clock;

  /** Kinds refused at a call site, logged once each. */
  private final java.util.Set<FallbackPolicy> refusedReported =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private final java.util.concurrent.atomic.AtomicBoolean idleReported =
      new java.util.concurrent.atomic.AtomicBoolean();

  FallbackAnswers(
      CircuitBreaker breaker,
      java.util.Set<FallbackPolicy> registered,
      StaticDefaults<T> staticDefaults,
      SnapshotSource snapshots,
      SnapshotCodec<T> codec,
      DeferredQueue deferred,
      Clock clock) {
    this.breaker = breaker;
    this.registered = registered;
    this.staticDefaults = staticDefaults;
    this.snapshots = snapshots;
    this.codec = codec;
    this.deferred = deferred;
    this.clock = clock;
  }

  /** The kinds as a log names them: "CACHED, DEFERRED fallbacks". */
  static String describe(java.util.Set<FallbackPolicy> kinds) {
    return kinds.stream()
            .map(FallbackPolicy::name)
            .collect(java.util.stream.Collectors.joining(", "))
        + (kinds.size() == 1 ? " fallback" : " fallbacks");
  }

  private FallbackResult<T> staticDefault(
      Policy policy, FallbackTrigger trigger, State state, String reason, Exception original) {
    Optional<String> name = policy.staticDefault();
    Optional<Supplier<T>> value = staticDefaults.lookup(name);
    if (value.isEmpty()) {
      throw unserved(
          FallbackPolicy.STATIC_DEFAULT,
          Unserved.NOT_REGISTERED,
          trigger,
          state,
          reason,
          staticDefaults.missing(name),
          original);
    }
    return answer(
        FallbackPolicy.STATIC_DEFAULT,
        new FallbackResult<>(
            value.get().get(),
            Served.STATIC_DEFAULT,
            trigger,
            name.orElse(""),
            Optional.empty(),
            Optional.empty(),
            ""),
        -1);
  }

  /**
   * The fallback the breaker's policy names for a call that was rejected or failed ({@code
   * trigger}), if the call site {@code accepts} it; the rejection or failure itself for NONE.
   *
   * @throws ControlledFailureException when the policy says so or the fallback cannot serve
   */
  FallbackResult<T> fallback(
      FallbackTrigger trigger,
      State state,
      String reason,
      String key,
      Fallbacks.Submitted payload,
      Exception original,
      java.util.Set<FallbackPolicy> accepts)
      throws Exception {
    Policy policy = breaker.view().policy();
    FallbackPolicy kind = policy.fallbackPolicy();
    if (kind != FallbackPolicy.NONE
        && kind != FallbackPolicy.CONTROLLED_FAILURE
        && !accepts.contains(kind)) {
      String why =
          "the call site does not accept a "
              + kind
              + " answer (accepts: "
              + (accepts.isEmpty() ? "none" : describe(accepts))
              + ")";
      if (refusedReported.add(kind)) {
        LOG.log(
            System.Logger.Level.WARNING,
            "breakerctl breaker {0}: the policy names {1}, but {2}; such calls get a"
                + " ControlledFailureException (logged once)",
            breaker.id(),
            kind,
            why);
      }
      throw unserved(kind, Unserved.NOT_ACCEPTED, trigger, state, reason, why, original);
    }
    switch (kind) {
      case NONE -> {
        if (!registered.isEmpty() && idleReported.compareAndSet(false, true)) {
          LOG.log(
              System.Logger.Level.WARNING,
              "breakerctl breaker {0}: rejected a call ({1}) while {2} registered: its policy''s"
                  + " fallbackPolicy is NONE, so the caller gets the rejection (logged once)",
              breaker.id(),
              reason,
              describe(registered));
        }
        if (original == null) {
          throw refuse(trigger, state, reason, "", null);
        }
        throw original;
      }
      case STATIC_DEFAULT -> {
        return staticDefault(policy, trigger, state, reason, original);
      }
      case CACHED -> {
        return cached(trigger, state, reason, key, original);
      }
      case DEFERRED -> {
        if (deferred == null || payload == null) {
          throw unserved(
              kind,
              deferred == null ? Unserved.NOT_CONFIGURED : Unserved.NO_PAYLOAD,
              trigger,
              state,
              reason,
              deferred == null ? "no deferred store configured" : "the call has no payload",
              original);
        }
        String tracking;
        try {
          tracking = deferred.defer(breaker.id(), payload.tracking(), payload.payload());
        } catch (RuntimeException e) {
          throw unserved(
              kind,
              deferred.unserved(e).orElseThrow(() -> e),
              trigger,
              state,
              reason,
              "request not deferred: " + e.getMessage(),
              original);
        }
        breaker.observer().deferredStored();
        return answer(
            kind,
            new FallbackResult<>(
                null, Served.DEFERRED, trigger, "", Optional.empty(), Optional.empty(), tracking),
            -1);
      }
      default -> {
        breaker.observer().fallback(kind, -1);
        breaker.observer().response(true); // a controlled failure is a degraded answer
        throw refuse(trigger, state, reason, "", original);
      }
    }
  }

  private FallbackResult<T> cached(
      FallbackTrigger trigger, State state, String reason, String key, Exception original) {
    if (snapshots == null || key == null) {
      throw unserved(
          FallbackPolicy.CACHED,
          snapshots == null ? Unserved.NOT_CONFIGURED : Unserved.NO_BUSINESS_KEY,
          trigger,
          state,
          reason,
          snapshots == null ? "no snapshot store configured" : "the call has no business key",
          original);
    }
    SnapshotRead read;
    try {
      read = snapshots.serve(breaker.id(), key);
    } catch (RuntimeException e) {
      throw unserved(
          FallbackPolicy.CACHED,
          snapshots.unserved(e).orElseThrow(() -> e),
          trigger,
          state,
          reason,
          "snapshot not read: " + e.getMessage(),
          original);
    }
    if (read.outcome() != SnapshotRead.Outcome.SERVED) {
      throw unserved(
          FallbackPolicy.CACHED,
          Unserved.valueOf(read.outcome().name()),
          trigger,
          state,
          reason,
          "no snapshot served ("
              + read.outcome()
              + (read.problem().isEmpty() ? "" : ": " + read.problem())
              + ")",
          original);
    }
    FallbackSnapshot s = read.snapshot().orElseThrow();
    Duration age = Duration.between(s.capturedAt(), clock.instant());
    T value;
    try {
      value = codec.decode(read.payload().orElseThrow());
    } catch (RuntimeException e) {
      // the codec's message may quote the payload: named by its type only, and not kept as cause
      throw unserved(
          FallbackPolicy.CACHED,
          Unserved.UNDECODABLE,
          trigger,
          state,
          reason,
          "no snapshot served (UNDECODABLE: the payload decrypted but the codec threw "
              + e.getClass().getSimpleName()
              + "; its content is not shown)",
          original);
    }
    return answer(
        FallbackPolicy.CACHED,
        new FallbackResult<>(
            value,
            Served.CACHED,
            trigger,
            s.source(),
            Optional.of(s.capturedAt()),
            Optional.of(age),
            ""),
        age.toMillis());
  }

  private FallbackResult<T> answer(FallbackPolicy kind, FallbackResult<T> r, long ageMillis) {
    breaker.observer().fallback(kind, ageMillis);
    breaker.observer().response(true);
    breaker.fallbackServed();
    return r;
  }

  /** A fallback of {@code kind} that could not serve: reported, then a controlled failure. */
  private ControlledFailureException unserved(
      FallbackPolicy kind,
      Unserved why,
      FallbackTrigger trigger,
      State state,
      String reason,
      String detail,
      Exception cause) {
    breaker.observer().fallbackUnavailable(kind, why.code());
    breaker.observer().response(true); // a controlled failure is a degraded answer
    return new ControlledFailureException(
        breaker.id(), state, reason, trigger, detail, cause, Optional.of(why));
  }

  private ControlledFailureException refuse(
      FallbackTrigger trigger, State state, String reason, String unserved, Exception cause) {
    return new ControlledFailureException(
        breaker.id(), state, reason, trigger, unserved, cause, Optional.empty());
  }
}
