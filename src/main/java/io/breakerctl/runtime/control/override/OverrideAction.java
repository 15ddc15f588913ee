package io.breakerctl.runtime.control.override;

import io.breakerctl.runtime.store.OverrideResult;

/**
 * What an audited override did.
 *
 * @param result the override script's answer
 * @param correlationId the audit record's correlation id
 * @param auditStored true when the audit record is in MongoDB; false when MongoDB was unavailable
 *     and the audit rides in the breaker's event stream until the history forwarder stores it
 * @param auditError why the audit could not be stored now, empty otherwise
 * @param lostAnswer why the override script's answer was lost (a timeout, a failed connection)
 *     while a read-back found the override landed all the same, {@code result} rebuilt from Redis;
 *     empty when the script answered
 */
public record OverrideAction(
    OverrideResult result,
    String correlationId,
    boolean auditStored,
    String auditError,
    String lostAnswer) {}
