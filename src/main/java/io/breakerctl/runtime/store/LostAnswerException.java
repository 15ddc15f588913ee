package io.breakerctl.runtime.store;

import io.breakerctl.runtime.model.BreakerId;

/**
 * A write failed with a timeout or a lost connection and did not land as far as a read-back could
 * tell ({@link StoreFutures#await}): {@link WriteOutcome#NOT_APPLIED}, nothing was written and
 * running it again is safe; or {@link WriteOutcome#UNKNOWN}, Redis did not answer the read-back
 * either, and the correlation id finds the change in the breaker's event stream (and history) if it
 * landed.
 */
public class LostAnswerException extends StoreUnavailableException {
  private static final long serialVersionUID = 1L;

  private final WriteOutcome outcome;
  private final transient BreakerId id;
  private final String correlationId;

  /**
   * The write to {@code id} carrying {@code correlationId} failed with {@code cause}, and the
   * read-back found {@code outcome} (NOT_APPLIED or UNKNOWN; {@code readBack} says why unknown).
   */
  public LostAnswerException(
      WriteOutcome outcome,
      BreakerId id,
      String correlationId,
      String readBack,
      StoreException cause) {
    super(
        cause.getMessage()
            + (outcome == WriteOutcome.NOT_APPLIED
                ? "; the change did not land, nothing was written (read back from Redis after the"
                    + " connection was closed: no change carries correlation id "
                    + correlationId
                    + ")"
                : "; the outcome is unknown: the change may or may not have landed (correlation id "
                    + correlationId
                    + "; Redis did not answer the read-back: "
                    + readBack
                    + ")"),
        cause,
        cause.fault());
    if (outcome == WriteOutcome.APPLIED) {
      throw new IllegalArgumentException("a write that landed is no failure");
    }
    this.outcome = outcome;
    this.id = id;
    this.correlationId = correlationId;
  }

  /** NOT_APPLIED or UNKNOWN. */
  public WriteOutcome outcome() {
    return outcome;
  }

  /** The breaker written to. */
  public BreakerId id() {
    return id;
  }

  /** The write's correlation id. */
  public String correlationId() {
    return correlationId;
  }
}
