/**
 * The runtime services embed: {@link io.breakerctl.runtime.BreakerRegistry} and {@link
 * io.breakerctl.runtime.CircuitBreaker}.
 *
 * <h2>Modes</h2>
 *
 * <ul>
 *   <li>{@code LOCAL}: the in-process {@link io.breakerctl.runtime.local.LocalStateMachine}, which
 *       mirrors the Lua scripts (same window, leases, backoff, overrides).
 *   <li>{@code SHARED}: every call runs the acquire script; failures and probe results go to the
 *       record script at once, successes in batches (recording each success cost a second script
 *       call, ~19 µs of Redis CPU, for no decision: {@code scripts/bench runtime}).
 *   <li>{@code HYBRID} (default): admission from a {@code SharedView} of the breaker's hash kept
 *       fresh by the {@code <prefix>:events} pub/sub channel (a full re-read after every
 *       (re)subscription) and a periodic refresh (1 s); time-based changes are computed at Redis
 *       time with {@link io.breakerctl.runtime.model.EffectiveState} using the offset measured at
 *       the last read. Failures go to the record script asynchronously, carrying the successes
 *       pending on this node; successes are flushed in batches with the node's heartbeat (1 s);
 *       probe leases come from the acquire script. A closed-state call touches no network.
 * </ul>
 *
 * <h2>Redis is never a reason to fail a call</h2>
 *
 * Commands a call waits on are bounded by the command timeout (50 ms) with the caller's own
 * deadline; Lettuce rejects commands while disconnected. {@code StoreGuard} marks Redis down after
 * three consecutive unavailable answers; from then on no call waits, the policy's {@code
 * storeFailureMode} decides ({@code LOCAL_ONLY}: the local machine, which has seen every outcome;
 * {@code LAST_KNOWN}: the last shared view for 30 s; {@code ALLOW_ALL}), and a background check
 * reconnects every 250 ms. On recovery each breaker reconciles: a shared OPEN is adopted by the
 * local machine, and failures counted while degraded are recorded, so a local trip reaches the
 * fleet. DEGRADED and RECOVERED are events and the degraded flag is in every heartbeat.
 *
 * <h2>Policies and history</h2>
 *
 * A breaker runs the policy warmed into its hash (adopted at once on a {@code policy} message),
 * else the one its {@link io.breakerctl.runtime.PolicySource} resolves (the MongoDB control plane
 * when configured: own id, {@code caller:*}, {@code *:*}, warmed on the way), else the registry's
 * defaults; heartbeats report the version. With a control plane, transitions this node wins are
 * handed (bounded queue, never blocking) to a worker that stores them in MongoDB, and the node
 * takes part in the election of the fleet's history forwarder (the {@code forwarder-lease.lua}
 * script on {@code <prefix>:forwarder}).
 *
 * <h2>Measured</h2>
 *
 * The fleet table (20 nodes, threshold 5, one call in flight each; {@code FleetTableIT}, {@code
 * FleetSplitIT}) and the propagation figures are in the README's Performance section.
 */
package io.breakerctl.runtime;
