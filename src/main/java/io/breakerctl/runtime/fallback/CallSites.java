package io.breakerctl.runtime.fallback;

import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.model.FallbackPolicy;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * What one {@link Fallbacks} call site sets up beside its calls: its report, its capture thread.
 */
final class CallSites {
  private CallSites() {}

  /**
   * What this call site reports it accepts ({@link CircuitBreaker#callSiteAccepts}): the kinds its
   * calls accept and, when it has deferred work (so it may {@link Fallbacks#submit}), that its
   * submits accept too, so a kind either refuses is reported as refused. CONTROLLED_FAILURE and
   * NONE are always accepted.
   */
  static Set<FallbackPolicy> reported(Set<FallbackPolicy> calls, Set<FallbackPolicy> submits) {
    Set<FallbackPolicy> out = EnumSet.copyOf(always(calls));
    if (submits != null) {
      out.retainAll(always(submits));
    }
    return Collections.unmodifiableSet(out);
  }

  private static Set<FallbackPolicy> always(Set<FallbackPolicy> kinds) {
    Set<FallbackPolicy> out = EnumSet.of(FallbackPolicy.CONTROLLED_FAILURE, FallbackPolicy.NONE);
    out.addAll(kinds);
    return out;
  }

  /** The one daemon thread that captures fresh answers as snapshots, off the callers' threads. */
  static ThreadPoolExecutor captureExecutor(CircuitBreaker breaker) {
    ThreadPoolExecutor e =
        new ThreadPoolExecutor(
            1,
            1,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(1_000),
            r -> {
              Thread t = new Thread(r, "breakerctl-capture-" + breaker.id());
              t.setDaemon(true);
              return t;
            },
            new ThreadPoolExecutor.DiscardPolicy());
    e.allowCoreThreadTimeOut(true);
    return e;
  }
}
