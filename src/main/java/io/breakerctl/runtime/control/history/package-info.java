/**
 * Transition history: from the breakers' event streams in Redis into MongoDB, and kept there for a
 * bounded time.
 *
 * <ul>
 *   <li>{@link io.breakerctl.runtime.control.history.HistoryForwarder} moves every breaker's events
 *       into {@code history}, idempotently, with a durable cursor per (breaker, epoch) in {@code
 *       cursors}; records the events a stream lost ({@code gaps}) and the audit that override
 *       events carry; one pass is a {@link io.breakerctl.runtime.control.history.SyncResult}.
 *   <li>{@link io.breakerctl.runtime.control.history.Deployments} gives each Redis an identity that
 *       every stored history document carries, so history goes back only into the Redis it came
 *       from ({@link io.breakerctl.runtime.control.history.DeploymentMismatchException}).
 *   <li>{@link io.breakerctl.runtime.control.history.OverrideGuard} ends every pass by putting back
 *       the live overrides Redis lost.
 *   <li>{@link io.breakerctl.runtime.control.history.HistoryRetention} prunes old history, audit,
 *       notes, gaps, expired snapshots and finished deferred requests, one batch per pass.
 * </ul>
 *
 * <p>The forwarder uses {@code audit}, {@code policy} (it warms policies back into a Redis that
 * lost its data), {@code timeline} (the places of gaps and the order of transitions) and {@code
 * fallback} (the statuses retention prunes by); none of them uses this package.
 *
 * <h2>Overrides Redis lost</h2>
 *
 * <p>An override a master acknowledged can be lost in a failover to a replica that missed it. Every
 * pass of the history forwarder ends with {@code OverrideGuard}: the overrides the audit holds live
 * are put back, through {@code reassert.lua}, where Redis is behind them (no keys, an older state),
 * whether or not any node uses the breaker; the {@code REASSERTED} transition names the forwarder.
 */
package io.breakerctl.runtime.control.history;
