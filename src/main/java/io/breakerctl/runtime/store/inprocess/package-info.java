/**
 * {@link io.breakerctl.runtime.store.inprocess.InProcessBreakerStore}: the store contract kept in
 * this process, one {@code LocalStateMachine} per breaker with the scripts' answers, messages and
 * snapshot fields, on an injected clock. For tests of the runtime and of services that embed it
 * without Redis; it can be made unavailable, slow or forgetful to show what a node does then. The
 * conformance suite ({@code src/docs/conformance.md}) holds it to the Lua scripts case by case.
 *
 * <p>The classes, by job (all but the store itself package-private):
 *
 * <ul>
 *   <li>{@code InProcessBreakerStore}: the script emulation, command by command (acquire, record,
 *       renew, override, reassert, warm, state, events, stamps, hot fallback data, node liveness),
 *       routed to the breaker it concerns, and the controls a test uses (faults, flush, lost keys,
 *       command counts);
 *   <li>{@code InProcessBreaker}: one breaker's keys: its machine, incarnation (epoch), node
 *       heartbeats, warmed and callers' policy, the events it appends and the messages it
 *       publishes, the hash fields a snapshot shows, and {@code reassert.lua}, which has no twin on
 *       the machine;
 *   <li>{@code EventStream}: one breaker's event stream tail, ids and retention as {@code XADD};
 *   <li>{@code CommandRunner}: each command counted, failed as injected, and run alone under the
 *       store's lock, its messages delivered once the lock is released;
 *   <li>{@code StoreFaults}: what a test injects: the store unreachable, one kind of command
 *       unreachable or refused with an error reply, fleet messages lost;
 *   <li>{@code FleetChannel}: the fleet messages (pub/sub): subscriptions, delivery to every
 *       subscriber, beacons.
 * </ul>
 */
package io.breakerctl.runtime.store.inprocess;
