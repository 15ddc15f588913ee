/**
 * The MongoDB control plane: versioned policies, audit, notes, transition history, fallback
 * snapshots and deferred requests. This package is the plane's base, which every sub-package uses:
 * the database client ({@link io.breakerctl.runtime.control.ControlDatabase}, its collections,
 * indexes and bounded calls), its settings ({@link io.breakerctl.runtime.control.ControlConfig}),
 * the privileges a write needs ({@link io.breakerctl.runtime.control.ControlPrivileges}), the
 * errors every part throws ({@link io.breakerctl.runtime.control.ControlException} and its
 * subclasses), and the vocabulary several parts share: the identity of a transition ({@link
 * io.breakerctl.runtime.control.TransitionRef}) and the breakers a read addresses ({@link
 * io.breakerctl.runtime.control.BreakerPattern}).
 *
 * <h2>Sub-packages</h2>
 *
 * <p>Each depends on this base and only on the sub-packages listed before it, so there are no
 * circles between them:
 *
 * <ul>
 *   <li>{@code audit}: the audit trail of manual actions, its local spool, and operators' notes.
 *   <li>{@code policy}: policy documents (parser, spec, ids, the resolution rule) and the policy
 *       control plane: versions, apply, rollback, deletion, warming into Redis.
 *   <li>{@code fallback}: approved fallback snapshots, their encryption and hot copies, and
 *       deferred requests.
 *   <li>{@code timeline}: one ordered, stably paged timeline of every source, including the stream
 *       tail not yet forwarded.
 *   <li>{@code history}: the history forwarder (Redis streams into MongoDB), the deployments it
 *       records, the guard that puts back overrides Redis lost, and retention.
 *   <li>{@code override}: audited overrides (force, clear), made durable through the forwarder.
 *   <li>{@code replay}: states at an instant, frames over a range, and restoring lost Redis keys
 *       from history.
 * </ul>
 *
 * <h2>Collections (database {@code breakerctl} by default)</h2>
 *
 * <ul>
 *   <li>{@code policy_versions}: immutable versions {@code {policyId, version, spec, owner, labels,
 *       author, reason, approvedBy, createdAt, expiresAt?, rollbackOf?, revertOf?, correlationId,
 *       deleted?, origin}}; unique index {@code (policyId, version)}. {@code spec} is canonical
 *       (every field, see {@link io.breakerctl.runtime.control.policy.PolicySpec}); {@code origin}
 *       is where the version came from ({@link io.breakerctl.runtime.control.policy.PolicyOrigin}:
 *       {@code ci:<commit>}, {@code hand}, {@code rollback:vN}, {@code revert:vN}; a version
 *       written before origins were reads as {@code unknown}).
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
 *       io.breakerctl.runtime.control.history.Deployments}).
 * </ul>
 *
 * <p>Indexes are created idempotently on first use ({@link
 * io.breakerctl.runtime.control.ControlDatabase#ensureIndexes()}). Only unique indexes carry
 * correctness; the non-unique {@code notes} and {@code history (breakerId, at)} indexes are query
 * aids (the in-process test server ignores them). TTL indexes are not used: expiry is computed by
 * whoever reads a document.
 *
 * <h2>No transactions</h2>
 *
 * <p>Nothing uses multi-document transactions, so the plane works on a standalone server, a replica
 * set and the in-process test server: correctness comes from single-document compare-and-set and
 * unique indexes (how a policy version is created: {@link io.breakerctl.runtime.control.policy}).
 */
package io.breakerctl.runtime.control;
