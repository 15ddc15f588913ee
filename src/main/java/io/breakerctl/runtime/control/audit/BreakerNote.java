package io.breakerctl.runtime.control.audit;

import io.breakerctl.runtime.model.BreakerId;
import java.time.Instant;

/**
 * A free-text note on a breaker, for incident review.
 *
 * @param id the note's id (its audit correlation id)
 * @param breakerId the breaker
 * @param actor who wrote it
 * @param at when
 * @param text the note
 */
public record BreakerNote(String id, BreakerId breakerId, String actor, Instant at, String text) {}
