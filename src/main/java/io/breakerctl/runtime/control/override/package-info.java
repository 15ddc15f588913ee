/**
 * Audited overrides: {@link io.breakerctl.runtime.control.override.BreakerOverrides} forces or
 * clears a breaker in Redis, then stores the action's audit record and (through one pass of the
 * history forwarder for the breaker) its transition, so a {@code force} is durable when it returns;
 * {@link io.breakerctl.runtime.control.override.OverrideAction} says what it did. It sits above
 * {@code audit} and {@code history}, which it uses.
 *
 * <h2>Audit when MongoDB is down</h2>
 *
 * <p>Overrides apply in Redis first ({@link
 * io.breakerctl.runtime.control.override.BreakerOverrides}); the override event in the breaker's
 * stream carries actor, reason, expiry and correlation id. If MongoDB cannot take the audit record,
 * the {@link io.breakerctl.runtime.control.history.HistoryForwarder} stores it from the stream
 * later, upserting by correlation id, so a record the CLI did store is never duplicated; Redis
 * keeps unforwarded events until the forwarder acknowledges them.
 */
package io.breakerctl.runtime.control.override;
