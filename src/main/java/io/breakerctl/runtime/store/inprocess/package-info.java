/**
 * {@link io.breakerctl.runtime.store.inprocess.InProcessBreakerStore}: the store contract kept in
 * this process, one {@code LocalStateMachine} per breaker with the scripts' answers, messages and
 * snapshot fields, on an injected clock. For tests of the runtime and of services that embed it
 * without Redis; it can be made unavailable, slow or forgetful to show what a node does then. The
 * conformance suite ({@code src/docs/conformance.md}) holds it to the Lua scripts case by case.
 */
package io.breakerctl.runtime.store.inprocess;
