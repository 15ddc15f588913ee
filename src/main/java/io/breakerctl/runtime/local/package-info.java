/**
 * The per-process breaker: {@link io.breakerctl.runtime.local.LocalStateMachine}, the state machine
 * a node runs in LOCAL mode and falls back to while Redis is unreachable.
 *
 * <p>It mirrors the Lua scripts in {@code src/main/resources/io/breakerctl/lua/} decision for
 * decision, so a breaker behaves the same whichever side keeps its state:
 *
 * <ul>
 *   <li>{@code acquire.lua}: {@link io.breakerctl.runtime.local.LocalStateMachine#tryAcquire} (the
 *       same reason codes, the same closed fast path that reads no clock, at most {@code
 *       halfOpenPermits} probe leases per generation counting live leases plus successes, lease ids
 *       from a counter, expired leases removed first);
 *   <li>{@code record.lua}: {@link io.breakerctl.runtime.local.LocalStateMachine#record} (slow
 *       calls as failures, the time-bucketed window of {@link
 *       io.breakerctl.runtime.model.Policy#WINDOW_BUCKETS} buckets with the same bucket arithmetic,
 *       the failure threshold and rate trips, stale generations and leases, probe results, the
 *       doubled open window capped at {@code maxOpenSeconds});
 *   <li>{@code renew.lua}: {@link io.breakerctl.runtime.local.HalfOpenProbes#renew};
 *   <li>{@code override.lua}: {@link io.breakerctl.runtime.local.LocalOverrides#set} and {@link
 *       io.breakerctl.runtime.local.LocalOverrides#clear};
 *   <li>{@code warm.lua}: {@link io.breakerctl.runtime.local.LocalStateMachine#warm} (monotonic per
 *       policy id: an older or equal version is STALE or UNCHANGED);
 *   <li>{@code prelude.lua} ({@code settle}, {@code transition}, {@code end_override}): changes
 *       made by time alone follow {@link io.breakerctl.runtime.model.EffectiveState#of} and are
 *       recorded by the first operation that notices them; every transition bumps the generation,
 *       drops live leases, resets the half-open success count and is checked against {@link
 *       io.breakerctl.runtime.model.Transitions}.
 * </ul>
 *
 * <p>The classes, by job:
 *
 * <ul>
 *   <li>{@link io.breakerctl.runtime.local.LocalStateMachine}: the script's hash fields under one
 *       lock, the call path ({@code tryAcquire} with its lock-free closed admission, {@code
 *       record}), the prelude, the published view its readers use, and {@code warm}; it hands out
 *       the three parts below, which run under its lock;
 *   <li>{@link io.breakerctl.runtime.local.HalfOpenProbes} ({@code probes()}): admitted probes,
 *       their results, renewals and timeouts, and the slots a lost half-open incarnation's probes
 *       hold ({@code reassert.lua});
 *   <li>{@link io.breakerctl.runtime.local.LocalOverrides} ({@code overrides()}): operator
 *       overrides set, updated and cleared;
 *   <li>{@link io.breakerctl.runtime.local.FleetSeeding} ({@code seeding()}): the fleet's shared
 *       state taken over without a transition, when a node degrades and when it reconciles;
 *   <li>the answers, as the scripts return them: {@link
 *       io.breakerctl.runtime.local.LocalAdmission}, {@link
 *       io.breakerctl.runtime.local.LocalRecordResult}, {@link
 *       io.breakerctl.runtime.local.LocalRenewal}, {@link
 *       io.breakerctl.runtime.local.LocalOverrideResult}, {@link
 *       io.breakerctl.runtime.local.LocalWarmResult}; the values held and read: {@link
 *       io.breakerctl.runtime.local.ActiveOverride}, {@link
 *       io.breakerctl.runtime.local.LocalCounts} and the transitions its listeners hear, {@link
 *       io.breakerctl.runtime.local.LocalTransition};
 *   <li>package-private parts the machine owns and guards with its lock: {@code SlidingWindow} (the
 *       window's buckets and trip rules), {@code ProbeLeases} (the lease set), {@code
 *       WarmedVersion} (the warmed policy id and version) and {@code TransitionDelivery}
 *       (listeners, delivered in order after the lock is released).
 * </ul>
 *
 * <p>Where the scripts use Redis {@code TIME}, the machine uses its injected {@link
 * java.time.Clock}. A change to one side must be made to the other: one scenario table ({@code
 * src/test/resources/scenarios/breaker-scenarios.yaml}: a policy, timed operations, and after each
 * the expected state, reason, counts and events) runs on this machine, through the in-process
 * store, in {@code ScenarioTableTest} and on the scripts, on a standalone server and a 3-master
 * cluster, in {@code ScenarioTableIT}, both with one side over the store ports ({@code
 * StoreScenarioSide}); a change that alters an answer on one side fails there.
 */
package io.breakerctl.runtime.local;
