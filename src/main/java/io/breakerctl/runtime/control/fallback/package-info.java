/**
 * The control plane's side of fallbacks: approved last-known-good values and deferred requests,
 * which the per-call toolkit ({@link io.breakerctl.runtime.fallback}) reads and writes through its
 * own interfaces.
 *
 * <ul>
 *   <li>{@link io.breakerctl.runtime.control.fallback.FallbackSnapshots}: snapshots per breaker and
 *       business key ({@code snapshots}), captured, approved, revoked and served; business keys are
 *       hashed with a salt ({@link io.breakerctl.runtime.control.fallback.BusinessKeys}), payloads
 *       encrypted ({@link io.breakerctl.runtime.control.fallback.PayloadCipher}, {@link
 *       io.breakerctl.runtime.control.fallback.PayloadKeys}), and approved ones copied into Redis
 *       ({@link io.breakerctl.runtime.HotSnapshots}) so a call never waits on MongoDB; {@link
 *       io.breakerctl.runtime.control.fallback.FallbackCatalog} lists them for operators.
 *   <li>{@link io.breakerctl.runtime.control.fallback.DeferredRequests}: requests deferred while a
 *       breaker is open ({@code deferred}), encrypted, replayed once it closes.
 * </ul>
 */
package io.breakerctl.runtime.control.fallback;
