package io.breakerctl.integration.resilience4j;

import io.breakerctl.runtime.BreakerView;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

/**
 * A breaker's Resilience4j metrics from its breakerctl view: the failure window as this node last
 * saw the fleet's (SHARED, HYBRID) or its own (LOCAL, degraded). Slow calls are failures in
 * breakerctl and are not counted apart: the slow counts are 0 and the slow rate -1.
 *
 * @param view the breaker's view when the metrics were read
 * @param notPermitted calls this node's adapter did not permit since it was created
 */
record BreakerctlMetrics(BreakerView view, long notPermitted) implements CircuitBreaker.Metrics {

  /**
   * The failure rate in percent, -1 while the window holds fewer calls than the policy's {@code
   * minimumCalls} (as Resilience4j does below its {@code minimumNumberOfCalls}).
   */
  @Override
  public float getFailureRate() {
    if (view.windowCalls() < view.policy().minimumCalls() || view.windowCalls() == 0) {
      return -1f;
    }
    return (float) view.failureRate();
  }

  @Override
  public float getSlowCallRate() {
    return -1f;
  }

  @Override
  public int getNumberOfSlowCalls() {
    return 0;
  }

  @Override
  public int getNumberOfSlowSuccessfulCalls() {
    return 0;
  }

  @Override
  public int getNumberOfSlowFailedCalls() {
    return 0;
  }

  @Override
  public int getNumberOfBufferedCalls() {
    return clamp(view.windowCalls());
  }

  @Override
  public int getNumberOfFailedCalls() {
    return clamp(view.windowFailures());
  }

  @Override
  public long getNumberOfNotPermittedCalls() {
    return notPermitted;
  }

  @Override
  public int getNumberOfSuccessfulCalls() {
    return clamp(Math.max(0, view.windowCalls() - view.windowFailures()));
  }

  private static int clamp(long n) {
    return (int) Math.min(Integer.MAX_VALUE, n);
  }
}
