package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.BreakerId;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A breaker's event stream read forward from a position: every transition and override action the
 * store appended, in the order it appended them. {@link FleetStore} offers it to operators and the
 * control plane; the in-process store offers it beside the node port, so a test reads what a step
 * appended the same way on either store (the scenario table does).
 */
public interface EventTail {

  /**
   * Events after {@code afterStreamId} (exclusive; empty for the start), oldest first, at most
   * {@code count}.
   */
  CompletableFuture<List<BreakerEvent>> eventsAfter(BreakerId id, String afterStreamId, int count);
}
