package io.breakerctl.runtime.control;

import io.breakerctl.runtime.redis.OverrideResult;

/**
 * What an audited override did.
 *
 * @param result the override script's answer
 * @param correlationId the audit record's correlation id
 * @param auditStored true when the audit record is in MongoDB; false when MongoDB was unavailable
 *     and the audit rides in the breaker's event stream until the history forwarder stores it
 * @param auditError why the audit could not be stored now, empty otherwise
 */
public record OverrideAction(
    OverrideResult result, String correlationId, boolean auditStored, String auditError) {}
