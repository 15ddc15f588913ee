package io.breakerctl.sandbox;

import io.breakerctl.runtime.Mode;

/**
 * What one mode's run of the demo measured, counted at the simulated dependency (a loopback TCP
 * server), not taken from the breakers' own view.
 *
 * @param mode the runtime mode every node ran
 * @param failuresAtTrip failures the shared window held when the breaker tripped (the trip event's
 *     count); null for LOCAL, where every node trips on its own window
 * @param doomedRequests calls that reached the failing dependency after it failed, until every node
 *     rejected
 * @param probesPerWindow calls that reached it in the first half-open window
 * @param meanAddedLatencyMicros the mean time the breaker added to a call that reached a dependency
 *     (the call's time through the breaker less the dependency's own)
 * @param calls calls the fleet made in this mode's run, admitted or rejected
 * @param allRejectedAfterMillis from the outage to the moment every node rejected
 * @param degradedNodes nodes that lost Redis at some moment of this run (on a starved machine a
 *     command can miss its timeout): each decided on its own meanwhile, from its last shared state,
 *     so it may have probed on its own (the rules of degraded decisions); 0 for LOCAL
 */
public record FleetRow(
    Mode mode,
    Long failuresAtTrip,
    long doomedRequests,
    long probesPerWindow,
    double meanAddedLatencyMicros,
    long calls,
    long allRejectedAfterMillis,
    long degradedNodes) {}
