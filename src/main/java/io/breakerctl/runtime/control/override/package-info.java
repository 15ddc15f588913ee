/**
 * Audited overrides: {@link io.breakerctl.runtime.control.override.BreakerOverrides} forces or
 * clears a breaker in Redis, then stores the action's audit record and (through one pass of the
 * history forwarder for the breaker) its transition, so a {@code force} is durable when it returns;
 * {@link io.breakerctl.runtime.control.override.OverrideAction} says what it did. It sits above
 * {@code audit} and {@code history}, which it uses.
 *
 * <h2>The plan of a batch</h2>
 *
 * <p>An operator's override over many breakers is planned from one read of them all ({@link
 * io.breakerctl.runtime.control.override.OverridePlan}: unchanged, would set, update or clear,
 * would fail), which a dry run shows; applying it ({@link
 * io.breakerctl.runtime.control.override.BreakerOverrides#apply(
 * io.breakerctl.runtime.control.override.OverridePlan, java.util.function.BooleanSupplier)}) asks
 * the override script to keep an override the same actor holds with the same reason, so whether a
 * breaker was set or left unchanged comes from the script's own answer, a kept breaker is neither
 * written nor audited, and every breaker gets a step ({@link
 * io.breakerctl.runtime.control.override.AppliedOverrides}) whatever happens.
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
