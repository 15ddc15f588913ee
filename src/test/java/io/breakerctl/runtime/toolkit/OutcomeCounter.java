package io.breakerctl.runtime.toolkit;

import io.breakerctl.runtime.CallObserver;
import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.model.State;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** Counts what a breaker reports to its observer (outcomes, rejections, retries). */
final class OutcomeCounter implements CallObserver {
  final Map<CallOutcome, LongAdder> outcomes = new EnumMap<>(CallOutcome.class);
  final LongAdder retries = new LongAdder();
  final LongAdder budgetExhausted = new LongAdder();

  OutcomeCounter() {
    for (CallOutcome o : CallOutcome.values()) {
      outcomes.put(o, new LongAdder());
    }
  }

  long count(CallOutcome o) {
    return outcomes.get(o).sum();
  }

  @Override
  public void outcome(CallOutcome outcome, long nanos) {
    outcomes.get(outcome).increment();
  }

  @Override
  public void rejected(State state, String reason) {
    outcomes.get(CallOutcome.REJECTED).increment();
  }

  @Override
  public void retried(int attempt) {
    retries.increment();
  }

  @Override
  public void retryBudgetExhausted() {
    budgetExhausted.increment();
  }
}
