/**
 * Fallbacks chosen by a breaker's {@code fallbackPolicy}: {@link
 * io.breakerctl.runtime.fallback.Fallbacks} answers a rejected (or failed) call with a cached
 * snapshot, a static default, a deferred request's tracking id, or a {@link
 * io.breakerctl.runtime.fallback.ControlledFailureException}; every answer says who gave it ({@link
 * io.breakerctl.runtime.fallback.FallbackResult#served()}). Static defaults are registered in code,
 * by name, and the policy's {@code staticDefault} names the one that serves; a name the node has
 * not registered is a controlled failure naming breaker and name. Snapshots and deferred requests
 * live in the control plane ({@code snapshots}, {@code deferred}); a deferred request is replayed
 * by one node under a MongoDB lease after the breaker closes ({@code FallbackIT}).
 *
 * <p>This package imports nothing of the control plane: it reads and captures snapshots through
 * {@link io.breakerctl.runtime.fallback.SnapshotSource} and stores and replays deferred requests
 * through {@link io.breakerctl.runtime.fallback.DeferredQueue}, interfaces the control plane's
 * {@code FallbackSnapshots} and {@code DeferredRequests} ({@code runtime.control.fallback})
 * implement, and the values they exchange ({@link io.breakerctl.runtime.fallback.FallbackSnapshot},
 * {@link io.breakerctl.runtime.fallback.SnapshotRead}, {@link
 * io.breakerctl.runtime.fallback.DeferredRequest}, their statuses, {@link
 * io.breakerctl.runtime.fallback.SnapshotApproval}) are defined here. A store tells its own
 * failures apart ({@code unserved}): MongoDB unavailable or answering with an error.
 */
package io.breakerctl.runtime.fallback;
