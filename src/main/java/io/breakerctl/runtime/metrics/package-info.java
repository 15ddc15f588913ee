/**
 * Micrometer meters of the runtime's breakers: {@link io.breakerctl.runtime.metrics.BreakerMetrics}
 * binds one breaker, {@link io.breakerctl.runtime.metrics.BreakerRegistryMetrics} every breaker a
 * node obtains through it.
 *
 * <p>Each breaker gets, tagged {@code breaker=<id>}, {@code caller}, {@code dependency}, {@code
 * criticality} (the policy's) and {@code node=<node id>}:
 *
 * <table>
 *   <caption>meters</caption>
 *   <tr><th>meter</th><th>type</th><th>tags</th><th>value</th></tr>
 *   <tr><td>{@code breakerctl.breaker.state}</td><td>gauge</td><td>{@code state}</td>
 *       <td>1 for the state the node acts on now, 0 for the six others</td></tr>
 *   <tr><td>{@code breakerctl.breaker.degraded}</td><td>gauge</td><td></td>
 *       <td>1 while the breaker's Redis master does not answer and the node decides alone</td></tr>
 *   <tr><td>{@code breakerctl.breaker.pending.successes}</td><td>gauge</td><td></td>
 *       <td>successes not yet flushed to Redis (HYBRID batches them)</td></tr>
 *   <tr><td>{@code breakerctl.breaker.policy.version}</td><td>gauge</td><td></td>
 *       <td>version of the policy in force (0: the registry's defaults)</td></tr>
 *   <tr><td>{@code breakerctl.breaker.window.failures}, {@code .calls}, {@code .failure.rate}</td>
 *       <td>gauge</td><td></td>
 *       <td>the failure window the breaker trips on (rate in percent)</td></tr>
 *   <tr><td>{@code breakerctl.breaker.rejections}</td><td>counter</td><td>{@code reason}</td>
 *       <td>calls rejected on this node</td></tr>
 *   <tr><td>{@code breakerctl.breaker.transitions}</td><td>counter</td>
 *       <td>{@code from}, {@code to}</td><td>state changes this node saw</td></tr>
 *   <tr><td>{@code breakerctl.breaker.probes}</td><td>counter</td><td>{@code outcome}</td>
 *       <td>half-open probes this node ran ({@code success}, {@code failure})</td></tr>
 *   <tr><td>{@code breakerctl.breaker.calls}</td><td>timer</td><td>{@code outcome}</td>
 *       <td>permitted calls by outcome, downstream latency</td></tr>
 *   <tr><td>{@code breakerctl.breaker.calls.allowed}</td><td>function counter</td><td></td>
 *       <td>permitted calls that reported an outcome</td></tr>
 *   <tr><td>{@code breakerctl.breaker.lease.denied}</td><td>counter</td><td></td>
 *       <td>half-open acquires denied: PROBES_BUSY, or NO_LEASE after an acquire timed out</td></tr>
 *   <tr><td>{@code breakerctl.breaker.retries}, {@code .retry.budget.exhausted}</td>
 *       <td>counters</td><td></td><td>retries started, retries refused by the budget</td></tr>
 *   <tr><td>{@code breakerctl.breaker.fallbacks}, {@code .fallback.age}, {@code .responses}</td>
 *       <td>counter, timer, counter</td><td>{@code kind}, -, {@code degraded}</td>
 *       <td>fallback answers, age of cached data served, answers by who gave them</td></tr>
 *   <tr><td>{@code breakerctl.breaker.snapshot.age}</td><td>gauge</td><td></td>
 *       <td>seconds since the newest approved snapshot was captured (read in the background)</td></tr>
 *   <tr><td>{@code breakerctl.breaker.fallback.unavailable}</td><td>counter</td>
 *       <td>{@code kind}</td><td>fallbacks that could not serve (e.g. a static default the
 *       policy names that this node has not registered)</td></tr>
 *   <tr><td>{@code breakerctl.breaker.deferred.stored}, {@code .finished}, {@code .pending}</td>
 *       <td>counter, counter, gauge</td><td>-, {@code result}, -</td>
 *       <td>deferred requests stored, replayed to the end, pending fleet-wide (counted in the
 *       control plane in the background)</td></tr>
 *   <tr><td>{@code breakerctl.redis.commands}, {@code .failures}</td>
 *       <td>function timer, function counter</td><td>{@code node}, {@code command}</td>
 *       <td>every command the node sent through its store, by kind ({@link
 *       io.breakerctl.runtime.StoreCommand}: acquire, record, flush, override, reassert, warm,
 *       state, stamps, ping, warm_up): latency of those that answered, count of those that failed
 *       ({@code BreakerRegistryMetrics})</td></tr>
 *   <tr><td>{@code breakerctl.redis.degraded.seconds}</td><td>function counter</td>
 *       <td>{@code node} only</td><td>time the node has been degraded (summed over its masters)</td></tr>
 * </table>
 *
 * <p>Gauges read {@link io.breakerctl.runtime.CircuitBreaker#view()} when the meter registry polls;
 * counters follow {@link io.breakerctl.runtime.CircuitBreaker#onEvent}. Nothing here touches Redis.
 * Counters are per node: a fleet-wide trip is counted once by every node that sees it, so the
 * fleet's authoritative history is the breaker's event stream ({@code breakerctl history}).
 */
package io.breakerctl.runtime.metrics;
