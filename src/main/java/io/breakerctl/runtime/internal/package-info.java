/**
 * The runtime's implementation: the registry and the breaker behind {@link
 * io.breakerctl.runtime.BreakerRegistry}, reached only through {@link
 * io.breakerctl.runtime.BreakerRegistry.Provider} ({@link
 * io.breakerctl.runtime.internal.DefaultRegistryProvider}, a service file). No other package names
 * this one; it may change without notice.
 *
 * <h2>The registry</h2>
 *
 * {@code DefaultBreakerRegistry} holds the breakers, the store, the scheduler and the ticker, and
 * gives each job to a part of its own: {@code StoreConnection} (connect, subscribe and resubscribe,
 * the silent-subscription watch, the warm-up's hello), {@code ShardGuards} (one {@code StoreGuard}
 * per master: degradation, the recovery check, the move of breakers at a failover, the
 * reconciliation), {@code ViewRefresher} (queued and coalesced reads, the canary, the stamp sweep,
 * the refresh without pub/sub), {@code RegistryFlusher} (the flush tick, the liveness beat with the
 * call counts, the flush at close) and {@code MessagePath} (pub/sub messages to their breakers, and
 * the JIT warm-up of that path). Every interval it measures reads its {@code Ticker}, and every
 * periodic task runs on its scheduler, both given through {@link
 * io.breakerctl.runtime.RegistryOptions}: a test replaces them and moves time by hand.
 *
 * <h2>The breaker</h2>
 *
 * {@code DistributedBreaker} composes parts with one job each over the state they share ({@code
 * BreakerState}: the view of the fleet's state, the hot path's closed permission, the own trip, the
 * seed of the local machine, the policy in force, the counts not yet sent; its monitor guards what
 * must change together). Admission is a strategy per mode ({@code Admissions}: LOCAL asks the local
 * machine, SHARED the acquire script, HYBRID the shared view), SHARED and HYBRID wrapped in {@code
 * DegradedAdmission}, which decides by the policy's {@code storeFailureMode} while the store is
 * down ({@code DegradedDecisions}); {@code Decisions} and {@code Grants} are what the strategies
 * compose. {@code ViewTracker} learns the fleet's state (answers, messages, reads), re-asserts what
 * Redis lost and keeps the local machine in step; {@code Reconciliation} is the way back from a
 * degradation; {@code OutcomeRouter} sends outcomes (batched successes, failures at once); {@code
 * ProbeLeases} names, renews and gives back probe leases; {@code PolicyAdoption} adopts, resolves
 * and re-warms the policy; {@code BreakerReports} sends the report; {@code BreakerEvents} tells the
 * listeners; {@code BreakerWarmUp} is the breaker's part of the JIT warm-up. A part takes the parts
 * below it at construction and never the breaker; a grant reports to the breaker through {@code
 * GrantOwner}, and the breaker reaches its registry only through {@code BreakerContext}.
 */
package io.breakerctl.runtime.internal;
