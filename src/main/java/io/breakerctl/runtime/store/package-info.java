/**
 * The shared-state contract: {@link io.breakerctl.runtime.store.BreakerStore}, the port a breaker
 * and its registry use (acquire, renew, record, override, re-assert, warm, read, subscribe), {@link
 * io.breakerctl.runtime.store.EventTail}, a breaker's events read forward (the operators' {@code
 * FleetStore} and the in-process store offer it), and the vocabulary it speaks: the scripts'
 * answers ({@code AcquireResult}, {@code RecordResult}, {@code OverrideResult} ...), the requests
 * ({@code Outcome}, {@code OverrideRequest}, {@code Reassertion}, {@code RestoreRequest}), what a
 * read gives ({@code BreakerSnapshot}, {@code BreakerEvent}, {@code NodeHeartbeat}, {@code
 * NodeLiveness}, {@code FleetCallRates}) and the failures ({@link
 * io.breakerctl.runtime.store.StoreException} and its kinds, each carrying a typed {@link
 * io.breakerctl.runtime.store.StoreFault}; a failed TLS connect is a {@link
 * io.breakerctl.runtime.store.StoreTlsException} naming its {@link
 * io.breakerctl.runtime.store.TlsFailure}). {@link io.breakerctl.runtime.store.StoreFutures} waits
 * for a store's futures and rethrows its failure unwrapped.
 *
 * <p>This package depends on {@code runtime.model} only: the Redis adapter ({@code runtime.redis})
 * and the in-process store ({@code runtime.store.inprocess}) implement it, the runtime, the control
 * plane and the CLI use it. How a script's positional reply becomes an answer is the adapter's
 * business ({@code ScriptAnswers}). The hash and stream field names are this package's and its
 * adapters' too: everyone else reads a snapshot or an event through its typed accessors.
 */
package io.breakerctl.runtime.store;
