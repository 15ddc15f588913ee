package io.breakerctl.runtime.store;

/**
 * The answer of the forwarded script.
 *
 * @param advanced whether the cursor moved
 * @param forwarded the cursor afterwards (empty if none)
 * @param lastEvent the newest event's stream id
 * @param epoch the breaker's current incarnation
 */
public record ForwardResult(boolean advanced, String forwarded, String lastEvent, String epoch) {}
