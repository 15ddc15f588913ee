package io.breakerctl.runtime;

import io.breakerctl.runtime.model.BreakerId;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One breaker as a service uses it. Obtain from {@link BreakerRegistry#breaker(BreakerId)}.
 *
 * <p>Redis is never a reason to fail a call: when it is slow or down the breaker decides with the
 * policy's {@code storeFailureMode}, and no call waits longer than the command timeout. What an
 * exception or a result counts as is decided by the breaker's {@link #classifier()}.
 */
public interface CircuitBreaker {

  /** The breaker's id. */
  BreakerId id();

  /**
   * Tells the breaker which fallbacks code registered for it ({@code Fallbacks.Builder#build} calls
   * it), so that a node reports a fallback its policy will not serve ({@code fallbackPolicy} NONE)
   * in its heartbeat, where {@code describe} shows it. The default ignores it.
   */
  default void fallbacksRegistered(
      java.util.Set<io.breakerctl.runtime.model.FallbackPolicy> kinds) {}

  /**
   * Tells the breaker which fallback kinds one call site accepts ({@code Fallbacks.Builder#build}
   * calls it with the kinds its calls and submits accept), so that the node reports them in its
   * heartbeat, whatever the policy in force, and {@code breakerctl policy apply} warns before a
   * policy names a kind the node's call sites refuse. A breaker with several call sites on a node
   * reports the intersection of what each accepts: the kinds every one of them accepts, so a kind
   * any one refuses is reported as refused. A per-call {@code accepts} argument is decided per call
   * and is not reported. The returned action withdraws the call site ({@code Fallbacks#close}). The
   * default ignores it.
   */
  default Runnable callSiteAccepts(
      java.util.Set<io.breakerctl.runtime.model.FallbackPolicy> kinds) {
    return () -> {};
  }

  /**
   * Runs {@code call} if permitted and records its classified outcome. Named apart from {@link
   * #call(Supplier)} so a lambda is never ambiguous.
   *
   * @throws CallNotPermittedException when rejected
   */
  default <T> T callChecked(Callable<T> call) throws Exception {
    return BreakerCalls.sync(id(), tryAcquire(), call);
  }

  /**
   * Runs {@code call} if permitted and records its classified outcome.
   *
   * @throws CallNotPermittedException when rejected
   */
  default <T> T call(Supplier<T> call) {
    try {
      return callChecked(call::get);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("a Supplier threw a checked exception", e);
    }
  }

  /**
   * Starts {@code call} if permitted and records its classified outcome when the stage completes. A
   * rejection is a stage failed with {@link CallNotPermittedException}; cancelling the returned
   * stage (or the call's own stage being cancelled) records nothing.
   */
  default <T> CompletionStage<T> callAsync(Supplier<? extends CompletionStage<T>> call) {
    return BreakerCalls.async(id(), tryAcquire(), call);
  }

  /** {@code call} wrapped once: each {@code get()} runs through {@link #call(Supplier)}. */
  default <T> Supplier<T> decorate(Supplier<T> call) {
    return () -> call(call);
  }

  /** {@code call} wrapped once: each {@code apply()} runs through {@link #call(Supplier)}. */
  default <A, T> Function<A, T> decorate(Function<A, T> call) {
    return a -> call(() -> call.apply(a));
  }

  /**
   * {@code call} wrapped once: each {@code call()} runs through {@link #callChecked(Callable)}
   * (named apart from {@link #decorate(Supplier)} so a lambda is never ambiguous).
   */
  default <T> Callable<T> decorateChecked(Callable<T> call) {
    return () -> callChecked(call);
  }

  /** {@code call} wrapped once: each {@code get()} runs through {@link #callAsync(Supplier)}. */
  default <T> Supplier<CompletionStage<T>> decorateAsync(
      Supplier<? extends CompletionStage<T>> call) {
    return () -> callAsync(call);
  }

  /** Low level: asks for permission; report the outcome on the returned permission. */
  Permission tryAcquire();

  /** The breaker as this node sees it now. */
  BreakerView view();

  /** Registers a listener for this breaker's events; returns a handle that removes it. */
  AutoCloseable onEvent(Consumer<CircuitEvent> listener);

  /**
   * Sets a cheap probe (a health call) that this node runs instead of real traffic to test recovery
   * while half-open; null removes it. Real calls are rejected while a probe is used.
   */
  void probe(Callable<Boolean> healthCheck);

  /**
   * What exceptions and results count as on this breaker (default {@link
   * FailureClassifier#DEFAULT}).
   */
  FailureClassifier classifier();

  /** Sets what exceptions and results count as on this breaker, for calls from now on. */
  void classifier(FailureClassifier classifier);

  /** Registers an observer of this breaker's calls; returns a handle that removes it. */
  AutoCloseable observe(CallObserver observer);

  /**
   * The observers of this breaker as one (what the retry and fallback helpers report to); {@link
   * CallObserver#NONE} when none is registered.
   */
  CallObserver observer();

  /**
   * Counts one call a fallback answered (a rejected or failed call served a cached answer, a static
   * default or a deferral), for the fleet's fallback/s in {@code status}, {@code describe} and
   * {@code top}. The fallback helper ({@code Fallbacks}) calls it; a breaker that keeps no fleet
   * counts ignores it.
   */
  default void fallbackServed() {}
}
