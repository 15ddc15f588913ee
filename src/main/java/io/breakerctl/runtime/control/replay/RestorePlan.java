package io.breakerctl.runtime.control.replay;

import java.util.List;

/**
 * A restore's plan (dry run) or report.
 *
 * @param items one per breaker found in history, by id
 * @param dryRun whether nothing was written
 * @param redisTimeMillis the Redis time the plan was made at
 * @param correlationId the restore's correlation id (each breaker's audit record extends it)
 * @param source whose history is restored, and why that one ({@link BreakerRestore.Source})
 */
public record RestorePlan(
    List<RestoreItem> items,
    boolean dryRun,
    long redisTimeMillis,
    String correlationId,
    BreakerRestore.Source source) {

  /** Copies the list. */
  public RestorePlan {
    items = List.copyOf(items);
  }

  /** The items with {@code action}. */
  public List<RestoreItem> with(RestoreAction action) {
    return items.stream().filter(i -> i.action() == action).toList();
  }
}
