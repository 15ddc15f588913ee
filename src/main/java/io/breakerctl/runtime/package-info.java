/**
 * The runtime services embed: {@link io.breakerctl.runtime.BreakerRegistry} and {@link
 * io.breakerctl.runtime.CircuitBreaker}.
 *
 * <h2>The API and the implementation</h2>
 *
 * A service uses this package and {@code runtime.model} (and, when it wants them, the toolkits in
 * {@code runtime.fallback}, {@code runtime.retry} and {@code runtime.metrics}). The implementation
 * is {@code io.breakerctl.runtime.internal}, which no other package names: {@link
 * io.breakerctl.runtime.BreakerRegistry.Builder#build()} reaches it through {@link
 * io.breakerctl.runtime.BreakerRegistry.Provider}, a service file in the jar, so nothing here
 * depends on it and it may change freely. The store contract ({@code runtime.store}), its adapters
 * ({@code runtime.redis}, {@code runtime.store.inprocess}), the local machine ({@code
 * runtime.local}) and the control plane ({@code runtime.control}) are the runtime's and the CLI's;
 * a service meets them only through the builder's options (a store for tests, the control plane's
 * {@code ControlConfig}). {@code ArchitectureTest} holds these boundaries.
 *
 * <h2>Modes</h2>
 *
 * <ul>
 *   <li>{@code LOCAL}: the in-process {@link io.breakerctl.runtime.local.LocalStateMachine}, which
 *       mirrors the Lua scripts (same window, leases, backoff, overrides).
 *   <li>{@code SHARED}: every call runs the acquire script; failures and probe results go to the
 *       record script at once, successes in batches (recording each success cost a second script
 *       call, ~19 µs of Redis CPU, for no decision: {@code scripts/bench runtime}).
 *   <li>{@code HYBRID} (default): admission from a {@code SharedView} of the breaker's hash kept
 *       fresh by the {@code <prefix>:events} pub/sub channel (a full re-read after every
 *       (re)subscription; while the subscription works, a canary per master every 5 s and a stamp
 *       sweep every 60 s cover data lost without a message, else a full refresh every second; a
 *       pushed transition sets the view at once and the breaker is read in full 50-100 ms later,
 *       jittered, so a trip does not send the whole fleet's reads to Redis in the same instant);
 *       time-based changes are computed at Redis time with {@link
 *       io.breakerctl.runtime.model.EffectiveState} using the offset measured at the last read.
 *       Failures go to the record script asynchronously, carrying the successes pending on this
 *       node; successes wait until the window needs them (every 1 s tick for a failure-rate policy,
 *       else within {@code flushInterval}, 20 s); what a tick sends goes as one pipelined write per
 *       master ({@code BreakerStore.batch}). The node's liveness is one {@code alive.lua} write per
 *       {@code heartbeatInterval} for all its breakers; a breaker's report goes when it changes.
 *       Probe leases come from the acquire script. A closed-state call touches no network.
 * </ul>
 *
 * <h2>Call rates for the fleet view</h2>
 *
 * Every breaker counts, on the caller's thread in striped counters ({@code LongAdder}: no lock,
 * nothing sent), the calls it admitted, the calls it rejected and the calls a fallback answered
 * ({@link io.breakerctl.runtime.CircuitBreaker#fallbackServed}, called by {@code Fallbacks}). The
 * node's liveness beat, once per {@code heartbeatInterval}, takes the counts since the previous
 * beat and sends them with that window's length in the same {@code alive.lua} write ({@link
 * io.breakerctl.runtime.store.NodeCallCounts}): the figures change every beat and ride the one
 * write that happens every beat anyway, so a call never costs a Redis command for them and the
 * per-breaker reports stay as rare as they were. Readers ({@code status}, {@code describe}, {@code
 * top}) divide each live node's counts by its own window and sum over the nodes ({@link
 * io.breakerctl.runtime.store.FleetCallRates}), stating the longest window: the rates describe
 * about the last heartbeat interval. A node's counts expire with its liveness.
 *
 * <h2>Redis is never a reason to fail a call</h2>
 *
 * Commands a call waits on are bounded by the command timeout (50 ms) with the caller's own
 * deadline; Lettuce rejects commands while disconnected and reconnects with jittered backoff (50 ms
 * doubling to 1 s). {@code StoreGuard} notices a loss within about one command timeout of the first
 * failed command (that failure starts one confirming PING; three unavailable answers in a row also
 * count), and the registry logs the loss once and the recovery once through {@code System.Logger},
 * never per attempt.
 *
 * <h2>Degraded decisions start from the fleet's state</h2>
 *
 * A node decides from the last shared state it holds whenever Redis does not answer in time:
 *
 * <ul>
 *   <li><b>A command failed or timed out, the node is not (yet) degraded</b>: OPEN stays OPEN until
 *       its window ends, a live override stays in force, a half-open breaker without a lease from
 *       Redis rejects ({@code NO_LEASE}: no lease, no probe); only a view of CLOSED admits. SHARED
 *       nodes keep the view updated from every acquire answer for the same purpose. The acquire may
 *       still run in Redis after the node gave up on it and be granted a probe lease nobody holds;
 *       each node names the lease it asks for ({@code acquire.lua}'s lease argument) and, once the
 *       abandoned acquire completes, gives it back ({@code Outcome.release}: a record with the
 *       lease and no outcome, on the same connection, so it runs after the acquire). A probe whose
 *       outcome counts neither way (IGNORED) gives its lease back too. Left alone, such a lease
 *       kept the whole fleet half-open until its expiry ({@code probeLeaseSeconds}, 10 s).
 *   <li><b>Degraded</b>: the breaker's local machine is seeded from that view once per degradation
 *       (stored state, open window, override and its expiry converted with the measured Redis-time
 *       offset, generation). A view that is OPEN or HALF_OPEN becomes a fresh local open window
 *       from the moment of the loss (one more {@code openSeconds}) before the node probes on its
 *       own, so a short stall at the moment of recovery never turns into one probe per node; a long
 *       outage still recovers per process. Then {@code storeFailureMode} decides: {@code
 *       LOCAL_ONLY} the seeded machine; {@code LAST_KNOWN} the last view for the registry's {@code
 *       lastKnownFor} (30 s; half-open rejects), then the seeded machine; {@code ALLOW_ALL} admits
 *       (by choice: a stall long enough to degrade the node admits every call from then on, while a
 *       single slow answer before that is still decided from the view).
 *   <li><b>Overrides</b>: an operator override the node has seen (FORCED_OPEN rejects,
 *       FORCED_CLOSED and DISABLED admit, METRICS_ONLY counts and never rejects) stays in force in
 *       every {@code storeFailureMode}, past {@code lastKnownFor} included, until its expiry or
 *       clear. A node started while Redis is down has never read the shared state and cannot know
 *       an override or a trip: it decides per process until Redis answers.
 *   <li><b>Never worse than LOCAL</b>: the local machine of a SHARED or HYBRID node counts every
 *       outcome of this node at the fleet's generation while Redis answers ({@code follow}: a fleet
 *       CLOSED at a new generation starts its count afresh, a fleet away from CLOSED leaves it open
 *       from now). When its own failures open it while the fleet's view is CLOSED (records lost or
 *       late, a refusal not yet noticed, a fleet count another node's success reset), the node's
 *       own trip is in force: it rejects ({@code LOCAL_TRIP}) and runs its local machine's probes,
 *       whose outcomes still go to Redis, until its local machine closes or the fleet's state
 *       moves. Nothing of it is written as shared state; a degradation meanwhile keeps it and
 *       publishes it at recovery as a trip made while degraded.
 * </ul>
 *
 * <p>The guard ({@code StoreGuard}) leaves degraded only after a recovery check's 8 PINGs, 10 ms
 * apart, each answered within the command timeout and their median within a fifth of it: a Redis
 * that answers just under the timeout is one degraded episode, not one per answer that arrives in
 * time, and a few answers late for want of a core do not hold a node degraded.
 *
 * <p>On recovery each breaker reconciles before the node counts as up: it adopts the shared state
 * exactly (stored state, window, override and expiry, generation) into its view and its local
 * machine, reports a TRANSITION only when what it enforces changes, sends the outcomes counted
 * meanwhile when the shared breaker counts them, and publishes a trip its local machine made while
 * degraded ({@code reassert.lua}, a FAILURE_THRESHOLD event marked {@code degraded=1}). Pub/sub
 * never stays lost: a failed (re)subscription closes its connection and retries with jittered
 * backoff, and a subscription whose connection stays closed for 2 s (a Cluster node that died) is
 * replaced. Before {@code build()} returns, a registry warms what the first trip a fresh JVM sees
 * runs: its message path (one message to itself through its own subscription, then trips and closes
 * of a scratch breaker alternating, with the event a listener gets, each message with the fields
 * the scripts publish: a thinner one left the first real trip's field names to de-optimize the
 * compiled JSON parser in every JVM at once), a HYBRID node's rejections (300 calls its scratch
 * breaker's open view rejects), and the client side of the record script (300 pipelined
 * record-shaped {@code EVAL}s of a script that writes nothing and answers as the record script's
 * fast path and its trip do, on a breaker nobody uses: about 1 ms of Redis CPU per start). The
 * answer to a failure's record is handled by a class, not a lambda, so the first failure does not
 * link a call site before its record leaves. The first trip then arrives by push, through compiled
 * code.
 *
 * <h2>A failover must not undo a trip</h2>
 *
 * Redis replication is asynchronous: a promoted replica may have missed a trip, and a flush or an
 * empty replica loses every key. A node never adopts a view older than its own for the same epoch
 * (a lower generation); when what Redis holds (same epoch at a lower generation, or a new epoch)
 * lacks a running open window or a live override this node enforces, it keeps its view and calls
 * {@code reassert.lua}, which writes it back once (cause {@code REASSERTED}, fields {@code
 * lostEpoch}, {@code lostGeneration}) with a generation above the node's, so the fleet stays open
 * and the stream records what happened. A Redis that went back in time (restarted from an older
 * RDB, restored from a backup: the same epoch at a lower generation, or an older epoch, {@link
 * io.breakerctl.runtime.model.Epoch}) holds older state rather than none: the node never trades its
 * open window or override for an older one (a window a failed probe doubled, an extended override),
 * and the re-assertion gives the keys a new epoch ({@code RdbRewindIT}).
 *
 * <h2>Policies and history</h2>
 *
 * A breaker runs the policy warmed into its hash (adopted at once on a {@code policy} message),
 * else the one its {@link io.breakerctl.runtime.PolicySource} resolves (the MongoDB control plane
 * when configured: own id, {@code caller:*}, {@code *:*}, warmed on the way), else the registry's
 * defaults; heartbeats report the version. With a control plane, transitions this node wins are
 * handed (bounded queue, never blocking) to a worker that stores them in MongoDB, and the node
 * takes part in the election of the fleet's history forwarder (the {@code forwarder-lease.lua}
 * script on {@code <prefix>:forwarder}).
 *
 * <h2>The store boundary</h2>
 *
 * The breaker and the registry ({@code runtime.internal}) depend only on {@link
 * io.breakerctl.runtime.store.BreakerStore}, the node port: the Redis store (the scripts) or {@link
 * io.breakerctl.runtime.store.inprocess.InProcessBreakerStore} (one local machine per breaker, for
 * tests and in-process fleets). The operators' port, {@link io.breakerctl.runtime.store.FleetStore}
 * (snapshots, event tails, fleet passes, forwarding, restore), is what the control plane, the CLI
 * and the console use; a registry connected to Redis hands its history forwarder one over its own
 * connection. The store package imports only {@code runtime.model}; {@code ArchitectureTest} holds
 * the packages to their floors. Results carry typed vocabularies ({@code AdmissionReason}, {@code
 * RecordOutcome}, ...) whose names are the scripts' wire codes. Background work that fails
 * (refresh, flush, forwarding, policy resolution, subscription, messages) is counted per {@link
 * io.breakerctl.runtime.BackgroundTask} and logged once per change of condition. The registry wraps
 * its store in one timing point ({@code MeteredStore}): every command its breakers and background
 * work send is timed and its failures counted by {@link io.breakerctl.runtime.StoreCommand}, which
 * {@link io.breakerctl.runtime.BreakerRegistry#storeStats} reports and {@code
 * BreakerRegistryMetrics} publishes.
 *
 * <h2>Classification, async calls, retries, fallbacks</h2>
 *
 * A breaker's {@link io.breakerctl.runtime.FailureClassifier} turns each exception or result into a
 * {@link io.breakerctl.runtime.CallOutcome}; only successes and failures (failure, timeout, slow)
 * reach the window. Under a policy with {@code slowCallMillis} a call still running when it crosses
 * it counts as slow then, once ({@code InFlightCalls}: buckets by start time, swept on the
 * registry's timer; probes excepted, {@code maxProbeSeconds} bounds them). {@link
 * io.breakerctl.runtime.CircuitBreaker#callAsync} records when the stage completes (cancellation
 * records nothing); {@code decorate*} wrap a client once. Retries live in {@code runtime.retry},
 * fallbacks in {@code runtime.fallback}; both, and the per-call meters of {@code runtime.metrics},
 * report through the breaker's {@link io.breakerctl.runtime.CallObserver}, which takes primitives
 * and enums only, so the closed-state path stays allocation-free.
 *
 * <h2>Measured</h2>
 *
 * The fleet table (20 nodes, threshold 5, one call in flight each; {@code FleetTableIT}, {@code
 * FleetSplitIT}) and the propagation figures are in src/docs/performance.md.
 */
package io.breakerctl.runtime;
