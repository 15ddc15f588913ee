/**
 * Resilience4j over breakerctl: a {@link
 * io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry} ({@link
 * io.breakerctl.integration.resilience4j.BreakerctlCircuitBreakerRegistry}) whose breakers ({@link
 * io.breakerctl.integration.resilience4j.BreakerctlCircuitBreaker}) implement Resilience4j's {@code
 * CircuitBreaker} over breakerctl's, so that code decorated with Resilience4j ({@code
 * decorateSupplier}, {@code executeSupplier}, Spring's {@code @CircuitBreaker}) trips and recovers
 * fleet-wide without a change. Resilience4j is an optional dependency of breakerctl: only this
 * package uses it, and the runtime never imports this package. It uses the runtime's public API
 * only.
 *
 * <h2>Semantics</h2>
 *
 * <ul>
 *   <li><b>Permission.</b> {@code tryAcquirePermission} asks the breakerctl breaker ({@code
 *       tryAcquire}); {@code acquirePermission} throws Resilience4j's {@code
 *       CallNotPermittedException} on a rejection, so fallbacks, retries and a gateway's 503
 *       mapping keep working. Half-open admission is breakerctl's probe lease: {@code
 *       halfOpenPermits} calls fleet-wide per half-open window, not per node.
 *   <li><b>releasePermission</b> reports the permission as ignored: it counts neither way, and a
 *       probe lease goes back to the fleet at once (another node may probe without waiting for the
 *       lease's expiry).
 *   <li><b>Outcomes.</b> Resilience4j reports an outcome to the breaker, not to a permission: a
 *       report is matched to the permission granted last on the reporting thread (exact for every
 *       synchronous decorator and Spring's aspect), else to one a thread left unreported when it
 *       acquired again, else to the breaker's latest permission, taken from the thread it was
 *       granted on (an asynchronous call completed on another thread). With many asynchronous calls
 *       in flight a report may land on another pending permission of the same breaker than its own
 *       (the same state in all but a race with a transition).
 *   <li><b>Classification</b> is the instance config's, as Resilience4j's own breaker does it: a
 *       {@code CompletionException} or {@code ExecutionException} is classified by its cause;
 *       {@code ignoreExceptions} first (ignored: counts neither way, as releasePermission), then
 *       {@code recordExceptions} (a failure; a {@code TimeoutException} is reported as a timeout,
 *       also a failure), anything else a success; a result matching {@code recordResult} is a
 *       failure. Slow calls: see the policy below.
 *   <li><b>Node defaults.</b> The registry's default config becomes the breakerctl registry's
 *       defaults ({@link io.breakerctl.integration.resilience4j.PolicyMapping}): shown by {@code
 *       breakerctl status} and as drift like any registry defaults, and a policy applied with
 *       {@code breakerctl policy apply} wins. The rate decides ({@code failureThreshold} is set to
 *       its maximum); a count-based window (last N calls) becomes the base policy's time window (60
 *       s by default). The open window keeps Resilience4j's timing: {@code openSeconds} is the
 *       first wait ({@code waitDurationInOpenState}) and {@code maxOpenSeconds} the longest the
 *       wait function gives, so a fixed wait (the default) does not double after a failed probe
 *       unless a policy says so. {@code permittedNumberOfCallsInHalfOpenState} is {@code
 *       halfOpenPermits}: that many probes fleet-wide, and that many successes to close (one failed
 *       probe reopens; Resilience4j closes on the probes' failure rate). A slow call ({@code
 *       slowCallDurationThreshold}) counts as a failure when {@code slowCallRateThreshold} is below
 *       100 (breakerctl has no separate slow-call rate); at 100, Resilience4j's default, slow calls
 *       are not counted apart. An instance made with a config other than the default keeps its
 *       classification; its tunables are the node's (one policy per node) and the registry logs a
 *       warning naming the difference: apply a policy to its id.
 *   <li><b>State.</b> {@code getState} is the state this node acts on: CLOSED, OPEN, HALF_OPEN,
 *       FORCED_OPEN, DISABLED and METRICS_ONLY by name; FORCED_CLOSED, which Resilience4j lacks,
 *       reads METRICS_ONLY (every call admitted, outcomes counted, never trips: what FORCED_CLOSED
 *       does). {@code BreakerctlCircuitBreaker#view()} shows breakerctl's own state.
 *   <li><b>Metrics</b> come from the breaker's view: the fleet's failure window as this node last
 *       saw it; the failure rate is -1 while the window holds fewer than {@code minimumCalls}
 *       calls, as Resilience4j's; slow counts are 0 and the slow rate -1; not-permitted calls are
 *       this node's.
 *   <li><b>Transitions</b> ({@code transitionTo*}, {@code reset}: what {@code POST
 *       /actuator/circuitbreakers/{name}} calls) follow {@link
 *       io.breakerctl.integration.resilience4j.ActuatorOverrides}: REJECT (default) throws {@code
 *       UnsupportedOperationException} naming the setting; LOCAL throws too (the runtime's public
 *       API has no node-local override); FLEET applies an audited fleet override through {@link
 *       io.breakerctl.integration.resilience4j.FleetOverrides} with actor {@code actuator@<node>},
 *       the reason {@link
 *       io.breakerctl.integration.resilience4j.BreakerctlCircuitBreaker#ACTUATOR_REASON} and an
 *       expiry always: open and forced open become FORCED_OPEN, disabled DISABLED, metrics only
 *       METRICS_ONLY, closed and reset a CLEAR (a tripped breaker stays open until its window
 *       ends); half-open has no override and throws.
 *   <li><b>Events</b> reach the instance's {@code EventPublisher}: success, error, ignored error
 *       and call-not-permitted from this node's calls; state transitions as breakerctl reports them
 *       to this node (a trip another node won included); reset. Failure-rate-exceeded and
 *       slow-call-rate-exceeded are never raised (a trip is a transition to OPEN).
 *   <li><b>Names.</b> A Resilience4j instance name maps to a breakerctl id {@code
 *       caller:dependency}: by default {@code <application>:<name>} in id spelling ({@code
 *       memberService} → {@code claims:member-service}), or any function given to the builder; two
 *       names mapping to one id are refused.
 * </ul>
 */
package io.breakerctl.integration.resilience4j;
