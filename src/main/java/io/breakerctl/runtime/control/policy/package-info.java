/**
 * Policies: documents without I/O side effects (ids, parsing and validation of YAML/JSON files, the
 * canonical spec with field-by-field diffs, the resolution rule) and the policy control plane that
 * stores them as versions in MongoDB and warms them into Redis ({@link
 * io.breakerctl.runtime.control.policy.PolicyControl}, {@link
 * io.breakerctl.runtime.control.policy.PolicyStore}, {@link
 * io.breakerctl.runtime.control.policy.PolicyVersion}).
 *
 * <p>A document is {@code {apiVersion: breakerctl/v1, kind: Policy, metadata: {id, owner, labels,
 * expiresAt}, spec: {...}}}; only {@code metadata.id} is required and every spec field defaults as
 * {@link io.breakerctl.runtime.model.Policy} documents. {@link
 * io.breakerctl.runtime.control.policy.PolicyParser} validates the parsed tree and reports every
 * problem with file, document index, field path and the bad value.
 *
 * <h2>Creating a version (no transactions)</h2>
 *
 * <ol>
 *   <li>Read the newest version N (the applier may pin the N it reviewed; a different N is a {@link
 *       io.breakerctl.runtime.control.policy.PolicyConflictException} naming both).
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
 * io.breakerctl.runtime.control.policy.PolicyControl#delete}) is version N+1 too, with {@code
 * deleted: true} and the spec it removed: audited like any change, never in force, and readers
 * never look past it to an older version ({@link
 * io.breakerctl.runtime.control.policy.PolicyVersion#inForce}). A later version (an apply, a
 * rollback to a version before the deletion) brings the policy back.
 *
 * <h2>Temporary versions</h2>
 *
 * <p>A version with {@code expiresAt} is in force until then; after it the newest older version
 * that is in force applies again. Readers compute this ({@link
 * io.breakerctl.runtime.control.policy.PolicyStore#inForce}). Because Redis only accepts newer
 * versions of a policy id, the control plane records the revert as version N+1 ({@code revertOf:
 * N}) when it next runs ({@link
 * io.breakerctl.runtime.control.policy.PolicyControl#revertExpired()}, also done before every apply
 * or rollback of that policy) and warms it.
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
 */
package io.breakerctl.runtime.control.policy;
