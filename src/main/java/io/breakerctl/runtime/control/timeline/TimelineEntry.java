package io.breakerctl.runtime.control.timeline;

import io.breakerctl.runtime.model.State;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * One entry of a breaker's timeline.
 *
 * <p>Entries are ordered by {@link #at()} (Redis time for transitions), then (epoch, stream id),
 * then {@link #id()}; that order and the identity never change once an entry exists, which is what
 * keeps cursor paging stable while the forwarder moves events from Redis into MongoDB.
 *
 * @param kind what the entry records
 * @param id the entry's identity: for a transition {@code breakerId|epoch|streamId}, otherwise the
 *     kind and the document's key
 * @param target the breaker id (the policy id for a policy version)
 * @param at when
 * @param epoch the incarnation of the breaker's keys (transitions and gaps), else empty
 * @param streamId the stream id (transitions), else empty
 * @param from the state before (transitions)
 * @param to the state after (transitions)
 * @param cause the transition's cause, the audit action, or empty
 * @param counts the cause's counts and thresholds as stored (failures, calls, threshold,
 *     failureRate, minimumCalls, openMillis, until, successes, permits, dropped, ...)
 * @param policyId the policy in force (transitions) or the policy versioned
 * @param policyVersion its version, 0 when none
 * @param node the node that won the transition
 * @param lease the probe lease involved, or empty
 * @param actor who acted (overrides, audit, notes, policy versions)
 * @param reason why, or a note's text
 * @param correlationId the manual action's correlation id, or empty
 * @param source where the entry was read
 */
public record TimelineEntry(
    TimelineKind kind,
    String id,
    String target,
    Instant at,
    String epoch,
    String streamId,
    Optional<State> from,
    Optional<State> to,
    String cause,
    Map<String, String> counts,
    String policyId,
    long policyVersion,
    String node,
    String lease,
    String actor,
    String reason,
    String correlationId,
    TimelineSource source) {

  /** Copies the counts. */
  public TimelineEntry {
    counts = Map.copyOf(counts);
  }

  /**
   * Whether this is a malformed stream entry ({@link
   * io.breakerctl.runtime.store.BreakerEvent#problem()}): cause {@code MALFORMED}, no states, its
   * fields and the problem in {@link #counts()}.
   */
  public boolean malformed() {
    return kind == TimelineKind.TRANSITION
        && TimelineEntries.MALFORMED.equals(cause)
        && to.isEmpty();
  }

  /** The position of the entry in every timeline: the value a cursor names. */
  TimelineKey key() {
    return new TimelineKey(at.toEpochMilli(), epoch, streamId, id);
  }
}
