package io.breakerctl.runtime.internal;

import io.breakerctl.runtime.CallObserver;
import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.model.State;
import java.util.ArrayList;
import java.util.List;

/** The observers of one breaker, as one {@link CallObserver} (a fan-out when several). */
final class CallObservers {
  private final List<CallObserver> list = new ArrayList<>();
  private volatile CallObserver current = CallObserver.NONE;

  CallObserver current() {
    return current;
  }

  synchronized AutoCloseable add(CallObserver observer) {
    list.add(java.util.Objects.requireNonNull(observer, "observer"));
    rebuild();
    return () -> remove(observer);
  }

  private synchronized void remove(CallObserver observer) {
    list.remove(observer);
    rebuild();
  }

  private void rebuild() {
    current =
        list.isEmpty()
            ? CallObserver.NONE
            : list.size() == 1 ? list.get(0) : new FanOut(list.toArray(new CallObserver[0]));
  }

  /** Several observers, called in the order they were added. */
  private record FanOut(CallObserver[] all) implements CallObserver {
    @Override
    public void outcome(CallOutcome outcome, long nanos) {
      for (CallObserver o : all) {
        o.outcome(outcome, nanos);
      }
    }

    @Override
    public void rejected(State state, String reason) {
      for (CallObserver o : all) {
        o.rejected(state, reason);
      }
    }

    @Override
    public void leaseAcquireTimedOut() {
      for (CallObserver o : all) {
        o.leaseAcquireTimedOut();
      }
    }

    @Override
    public void newestApprovedSnapshot(long capturedAtMillis) {
      for (CallObserver o : all) {
        o.newestApprovedSnapshot(capturedAtMillis);
      }
    }

    @Override
    public void retried(int attempt) {
      for (CallObserver o : all) {
        o.retried(attempt);
      }
    }

    @Override
    public void retryBudgetExhausted() {
      for (CallObserver o : all) {
        o.retryBudgetExhausted();
      }
    }

    @Override
    public void fallback(FallbackPolicy kind, long ageMillis) {
      for (CallObserver o : all) {
        o.fallback(kind, ageMillis);
      }
    }

    @Override
    public void fallbackUnavailable(FallbackPolicy kind) {
      for (CallObserver o : all) {
        o.fallbackUnavailable(kind);
      }
    }

    @Override
    public void fallbackUnavailable(FallbackPolicy kind, String reason) {
      for (CallObserver o : all) {
        o.fallbackUnavailable(kind, reason);
      }
    }

    @Override
    public void deferredQuarantined() {
      for (CallObserver o : all) {
        o.deferredQuarantined();
      }
    }

    @Override
    public void response(boolean degraded) {
      for (CallObserver o : all) {
        o.response(degraded);
      }
    }

    @Override
    public void deferredStored() {
      for (CallObserver o : all) {
        o.deferredStored();
      }
    }

    @Override
    public void deferredFinished(boolean done) {
      for (CallObserver o : all) {
        o.deferredFinished(done);
      }
    }

    @Override
    public void deferredPending(long count) {
      for (CallObserver o : all) {
        o.deferredPending(count);
      }
    }
  }
}
