/**
 * The MongoDB control plane: versioned policies, audit, notes and transition history.
 *
 * <h2>Collections (database {@code breakerctl} by default)</h2>
 *
 * <ul>
 *   <li>{@code policy_versions}: immutable versions {@code {policyId, version, spec, owner, labels,
 *       author, reason, approvedBy, createdAt, expiresAt?, rollbackOf?, revertOf?, correlationId,
 *       deleted?, origin}}; unique index {@code (policyId, version)}. {@code spec} is canonical
 *       (every field, see {@link io.breakerctl.runtime.control.policy.PolicySpec}); {@code origin}
 *       is where the version came from ({@link io.breakerctl.runtime.control.PolicyOrigin}: {@code
 *       ci:<commit>}, {@code hand}, {@code rollback:vN}, {@code revert:vN}; a version written
 *       before origins were reads as {@code unknown}).
 *   <li>{@code policies}: the current pointer {@code {_id: policyId, version, updatedAt}}.
 *   <li>{@code audit}: one record per manual action {@code {correlationId, action, target, actor,
 *       reason, at, expiresAt, before, after, transition?: {breakerId, epoch, streamId}}}; unique
 *       index {@code correlationId}.
 *   <li>{@code notes}: {@code {_id, breakerId, actor, at, text}}.
 *   <li>{@code history}: one document per transition, {@code _id = breakerId|epoch|streamId},
 *       unique index {@code (breakerId, epoch, streamId)}; {@code deployment} names the Redis it
 *       came from (absent on documents forwarded before identities existed).
 *   <li>{@code cursors}: the forwarder's cursor {@code {_id: breakerId|epoch, lastStreamId}}.
 *   <li>{@code gaps}: events a stream lost before forwarding (dropped at its cap, or given up when
 *       the history hold ended) {@code {_id: breakerId|epoch, breakerId, epoch, dropped, at}}
 *       ({@code at} = the epoch's start, the gap's timeline place).
 *   <li>{@code snapshots}: fallback snapshots {@code {_id: breakerId|keyHash, breakerId, keyHash,
 *       source, capturedAt, approvedBy, expiresAt, status, payload: {keyId, nonce, data}}}.
 *   <li>{@code deferred}: deferred requests {@code {_id: trackingId, breakerId, payload, status,
 *       attempts, result, createdAt}}.
 *   <li>{@code deployments}: the Redis deployments whose history is stored here {@code {_id: d-<12
 *       hex>, prefix, addresses: [host:port], firstSeen, lastSeen}} ({@link
 *       io.breakerctl.runtime.control.Deployments}).
 * </ul>
 *
 * <p>Indexes are created idempotently on first use ({@link
 * io.breakerctl.runtime.control.ControlDatabase#ensureIndexes()}). Only unique indexes carry
 * correctness; the non-unique {@code notes} and {@code history (breakerId, at)} indexes are query
 * aids (the in-process test server ignores them). TTL indexes are not used: expiry is computed by
 * whoever reads a document.
 *
 * <h2>Creating a version (no transactions)</h2>
 *
 * <ol>
 *   <li>Read the newest version N (the applier may pin the N it reviewed; a different N is a {@link
 *       io.breakerctl.runtime.control.PolicyConflictException} naming both).
 *   <li>Insert version N+1. This insert is the commit point: of several writers racing on N+1 the
 *       unique {@code (policyId, version)} index admits exactly one; the others get a conflict
 *       naming expected N and actual N+1, and nothing of theirs is written.
 *   <li>Move the pointer from N to N+1 with {@code findOneAndUpdate({_id, version: N})}. A writer
 *       that died between the two steps leaves the pointer behind the newest version; the next
 *       writer that finds it so moves it forward (compare-and-set, never backwards), so nothing
 *       blocks. Readers use the newest version, not the pointer.
 *   <li>Store the audit record (its correlation id is on the version), then warm.
 * </ol>
 *
 * <p>An unchanged spec (equal as a {@link io.breakerctl.runtime.model.Policy}, same expiry) creates
 * no version but is warmed again. A rollback to K is version N+1 with K's spec.
 *
 * <h2>Deleted policies</h2>
 *
 * <p>A deletion ({@code policy apply --prune}, {@link
 * io.breakerctl.runtime.control.PolicyControl#delete}) is version N+1 too, with {@code deleted:
 * true} and the spec it removed: audited like any change, never in force, and readers never look
 * past it to an older version ({@link io.breakerctl.runtime.control.PolicyVersion#inForce}). A
 * later version (an apply, a rollback to a version before the deletion) brings the policy back.
 *
 * <h2>Temporary versions</h2>
 *
 * <p>A version with {@code expiresAt} is in force until then; after it the newest older version
 * that is in force applies again. Readers compute this ({@link
 * io.breakerctl.runtime.control.PolicyStore#inForce}). Because Redis only accepts newer versions of
 * a policy id, the control plane records the revert as version N+1 ({@code revertOf: N}) when it
 * next runs ({@link io.breakerctl.runtime.control.PolicyControl#revertExpired()}, also done before
 * every apply or rollback of that policy) and warms it.
 *
 * <h2>Resolution and warming</h2>
 *
 * <p>A breaker is governed by its own policy, else {@code caller:*}, else {@code *:*} ({@link
 * io.breakerctl.runtime.control.policy.PolicyResolver}, the one copy of the rule). Applying a
 * breaker's policy warms that breaker; applying a default warms every breaker in Redis that
 * resolves to it (a breaker with a more specific policy is not touched). When a policy stops being
 * in force (deleted, or a temporary version expired with none before it) its breakers are
 * re-resolved: warmed with the next more general policy, or un-warmed ({@code warm.lua}'s un-warm
 * mode) so that their nodes run their own defaults again.
 *
 * <h2>Audit when MongoDB is down</h2>
 *
 * <p>Overrides apply in Redis first ({@link io.breakerctl.runtime.control.BreakerOverrides}); the
 * override event in the breaker's stream carries actor, reason, expiry and correlation id. If
 * MongoDB cannot take the audit record, the {@link io.breakerctl.runtime.control.HistoryForwarder}
 * stores it from the stream later, upserting by correlation id, so a record the CLI did store is
 * never duplicated; Redis keeps unforwarded events until the forwarder acknowledges them.
 *
 * <h2>Overrides Redis lost</h2>
 *
 * <p>An override a master acknowledged can be lost in a failover to a replica that missed it. Every
 * pass of the history forwarder ends with {@code OverrideGuard}: the overrides the audit holds live
 * are put back, through {@code reassert.lua}, where Redis is behind them (no keys, an older state),
 * whether or not any node uses the breaker; the {@code REASSERTED} transition names the forwarder.
 *
 * <h2>Reading history</h2>
 *
 * <p>{@link io.breakerctl.runtime.control.Timeline} merges every source into one ordered, stably
 * paged timeline; {@link io.breakerctl.runtime.control.Replay} computes states at an instant and
 * frames over a range; {@link io.breakerctl.runtime.control.BreakerRestore} rebuilds lost Redis
 * keys from history; {@link io.breakerctl.runtime.control.HistoryRetention} prunes old documents.
 * Fallback values and deferred requests are {@link io.breakerctl.runtime.control.FallbackSnapshots}
 * and {@link io.breakerctl.runtime.control.DeferredRequests}.
 */
package io.breakerctl.runtime.control;
