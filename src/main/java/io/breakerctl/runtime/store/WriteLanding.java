package io.breakerctl.runtime.store;

import java.util.Map;
import java.util.Optional;

/**
 * What a read-back found about a write that carries a correlation id.
 *
 * @param outcome whether the write landed
 * @param event the breaker's event carrying the correlation id, when found among the newest events
 *     of its stream the store reads back
 * @param fields the breaker's hash as read with the evidence (empty unless applied)
 * @param detail why the outcome is unknown (the read-back's last failure), else empty
 */
public record WriteLanding(
    WriteOutcome outcome,
    Optional<BreakerEvent> event,
    Map<String, String> fields,
    String detail) {}
