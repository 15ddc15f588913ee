package io.breakerctl.runtime.fallback;

import io.breakerctl.runtime.CallNotPermittedException;
import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.model.FallbackPolicy;
import io.breakerctl.runtime.retry.Retry;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.Supplier;

/**
 * Calls through one breaker with the fallback its policy's {@code fallbackPolicy} names, run when
 * the breaker rejects a call and, with {@link Builder#onFailure}, when the call fails (a failure or
 * timeout by the breaker's classifier):
 *
 * <ul>
 *   <li>{@code CACHED}: the last approved, unexpired snapshot for the business key ({@link
 *       SnapshotSource}, the control plane's {@code FallbackSnapshots}), served as {@link
 *       Served#CACHED} with its source and age, never as fresh; an expired, pending, revoked or
 *       undecryptable snapshot is never served (a controlled failure says which). While the policy
 *       says CACHED, every fresh answer is captured as the key's new snapshot, off the caller's
 *       thread (a bounded queue; dropped when full);
 *   <li>{@code STATIC_DEFAULT}: the default registered in code under the name the policy's {@code
 *       staticDefault} names ({@link Builder#staticDefault(String, Supplier)}), or the one
 *       registered without a name ({@link Builder#staticDefault(Supplier)}) while it names none;
 *       read per call, so a node serves a newly named default as soon as it adopts the policy. A
 *       name this node has not registered is a controlled failure naming the breaker and the name
 *       (logged once, counted as {@code fallbackUnavailable}), never a null;
 *   <li>{@code DEFERRED}: for {@link #submit}, the request's payload is stored in the control plane
 *       and the caller gets its tracking id ({@link Served#DEFERRED}), the idempotency key every
 *       run of the request gets ({@link DeferredWork#run(byte[], String)}); whenever the breaker
 *       admits calls, one node runs it with the {@link DeferredWork} under a lease and records the
 *       result, read back with {@link #deferred} (at least once: see {@link DeferredReplayer});
 *   <li>{@code CONTROLLED_FAILURE}: a {@link ControlledFailureException} naming the breaker, its
 *       state and the reason;
 *   <li>{@code NONE}: the rejection or the failure itself.
 * </ul>
 *
 * A fallback that cannot serve (none configured, MongoDB unavailable, no servable snapshot, a
 * static default not registered) ends in a {@link ControlledFailureException} that says why, and is
 * reported to the observer ({@code fallbackUnavailable}). Every answer is reported to the breaker's
 * observer ({@code fallback}, {@code response}), so metrics show fallbacks by kind, the age of
 * cached data served and the share of degraded answers.
 */
public final class Fallbacks<T> implements AutoCloseable {
  private final CircuitBreaker breaker;
  private final boolean onFailure;
  private final StaticDefaults<T> staticDefaults;
  private final SnapshotSource snapshots;
  private final SnapshotCodec<T> codec;
  private final Duration captureTtl;
  private final SnapshotApproval approval;
  private final String source;
  private final DeferredQueue deferred;
  private final DeferredWork<T> work;
  private final ThreadPoolExecutor captures;
  private final DeferredReplayer<T> replayer;
  private final SnapshotAgeCheck ages;
  private final Retry retry;
  private final FallbackAnswers<T> answers;

  private static final System.Logger LOG = System.getLogger(Fallbacks.class.getName());

  /** The fallback kinds code registered here (static defaults, cached answers, deferred work). */
  private final java.util.Set<FallbackPolicy> registered;

  /** The kinds a call site accepts through {@link #call} and through {@link #submit}. */
  private final java.util.Set<FallbackPolicy> accepts;

  private final java.util.Set<FallbackPolicy> submitAccepts;

  /** Withdraws what this call site reported it accepts (at {@link #close}). */
  private final Runnable withdraw;

  private Fallbacks(Builder<T> b) {
    this.breaker = b.breaker;
    this.onFailure = b.onFailure;
    this.staticDefaults = b.staticDefaults.build(b.breaker.id());
    this.snapshots = b.snapshots;
    this.codec = b.codec;
    this.captureTtl = b.captureTtl;
    this.approval = b.approval;
    this.source = b.source;
    this.deferred = b.deferred;
    this.work = b.work;
    this.retry = b.retry;
    this.accepts = b.accepts;
    this.submitAccepts = b.submitAccepts;
    this.captures = snapshots == null ? null : CallSites.captureExecutor(breaker);
    this.ages =
        snapshots == null ? null : new SnapshotAgeCheck(breaker, snapshots, b.snapshotAgeInterval);
    this.replayer =
        deferred == null || work == null
            ? null
            : new DeferredReplayer<>(
                breaker,
                deferred,
                work,
                b.owner,
                b.lease,
                b.replayInterval,
                b.pendingCountInterval,
                b.maxAttempts);
    java.util.Set<FallbackPolicy> kinds = java.util.EnumSet.noneOf(FallbackPolicy.class);
    if (staticDefaults.any()) {
      kinds.add(FallbackPolicy.STATIC_DEFAULT);
    }
    if (snapshots != null) {
      kinds.add(FallbackPolicy.CACHED);
    }
    if (deferred != null) {
      kinds.add(FallbackPolicy.DEFERRED);
    }
    this.registered = java.util.Collections.unmodifiableSet(kinds);
    this.answers =
        new FallbackAnswers<>(
            breaker, registered, staticDefaults, snapshots, codec, deferred, b.clock);
    if ((snapshots != null && !snapshots.encrypts())
        || (deferred != null && !deferred.encrypts())) {
      LOG.log(
          System.Logger.Level.WARNING,
          "breakerctl breaker {0}: fallback payloads (snapshots, deferred requests) are stored in"
              + " clear: no keys configured (PayloadKeys; BREAKERCTL_FALLBACK_KEYS is read only"
              + " when passed in, PayloadKeys.fromEnvironment(System.getenv()))",
          breaker.id());
    }
    breaker.fallbacksRegistered(registered);
    this.withdraw =
        breaker.callSiteAccepts(CallSites.reported(accepts, work == null ? null : submitAccepts));
    if (!registered.isEmpty() && policy() == FallbackPolicy.NONE) {
      LOG.log(
          System.Logger.Level.WARNING,
          "breakerctl breaker {0}: {1} registered, but its policy''s fallbackPolicy is NONE, so a"
              + " rejected call gets the rejection (CallNotPermittedException), not the"
              + " fallback. A fallback serves only when the policy names it: set fallbackPolicy"
              + " in the breaker''s policy (breakerctl policy apply) or in the registry''s"
              + " defaults",
          breaker.id(),
          FallbackAnswers.describe(registered));
    }
  }

  /** The fallback kinds code registered for this breaker here. */
  public java.util.Set<FallbackPolicy> registered() {
    return registered;
  }

  /** A builder for calls through {@code breaker}. */
  public static <T> Builder<T> builder(CircuitBreaker breaker) {
    return new Builder<>(breaker);
  }

  /**
   * Runs {@code call} through the breaker; on rejection (and failure, when configured) answers with
   * the policy's fallback. {@code businessKey} names the cached snapshot (hashed before it is
   * stored; never a metric tag); null when there is none.
   *
   * @throws ControlledFailureException when the policy says so or the fallback cannot serve
   */
  public FallbackResult<T> call(String businessKey, Callable<T> call) throws Exception {
    return call(businessKey, call, accepts);
  }

  /**
   * As {@link #call(String, Callable)}, accepting only the fallback kinds in {@code accepts} for
   * this call (see {@link Builder#accepts}).
   */
  public FallbackResult<T> call(
      String businessKey, Callable<T> call, java.util.Set<FallbackPolicy> accepts)
      throws Exception {
    return run(businessKey, null, call, accepts, true);
  }

  /**
   * Runs the registered {@link DeferredWork} on {@code payload} through the breaker; on rejection
   * (and failure, when configured) answers with the policy's fallback, a DEFERRED policy storing
   * the payload to run after recovery.
   *
   * <p>A submit is a write: it is never answered by a static default or cached data unless the
   * builder's {@link Builder#submitAccepts} says so (default: DEFERRED and CONTROLLED_FAILURE
   * only), and {@link Builder#onFailure} never applies to it (a write that failed may have had its
   * effect: the caller gets the failure).
   *
   * @throws IllegalStateException when no deferred work is registered
   */
  public FallbackResult<T> submit(String businessKey, byte[] payload) throws Exception {
    return submit(businessKey, payload, submitAccepts);
  }

  /** As {@link #submit(String, byte[])}, accepting only the fallback kinds in {@code accepts}. */
  public FallbackResult<T> submit(
      String businessKey, byte[] payload, java.util.Set<FallbackPolicy> accepts) throws Exception {
    if (work == null) {
      throw new IllegalStateException(
          "fallbacks of " + breaker.id() + " have no deferred work: set Builder.deferred");
    }
    Objects.requireNonNull(payload, "payload");
    // one tracking id for the request from the start: the idempotency key of its first run and of
    // every replay, and the id it is deferred under
    Submitted request = new Submitted(payload, UUID.randomUUID().toString());
    return run(businessKey, request, () -> work.run(payload, request.tracking()), accepts, false);
  }

  /** A submitted request: its payload and tracking id. */
  record Submitted(byte[] payload, String tracking) {}

  /**
   * The deferred request with this tracking id: status, attempts, the recorded result.
   *
   * @throws RuntimeException the deferred store's failure (the control plane's {@code
   *     ControlUnavailableException} when MongoDB is down: at once while its guard holds it for
   *     down, without a driver exception inside)
   */
  public Optional<DeferredRequest> deferred(String trackingId) {
    if (deferred == null) {
      return Optional.empty();
    }
    return deferred.find(trackingId);
  }

  private FallbackResult<T> run(
      String key,
      Submitted payload,
      Callable<T> call,
      java.util.Set<FallbackPolicy> accepts,
      boolean idempotent)
      throws Exception {
    boolean onFailure = this.onFailure && idempotent;
    T value;
    try {
      value = retry == null ? breaker.callChecked(call) : retry.call(a -> call.call());
    } catch (CallNotPermittedException e) {
      return answers.fallback(
          FallbackTrigger.REJECTED, e.state(), e.reason().code(), key, payload, e, accepts);
    } catch (Exception e) {
      CallOutcome o = breaker.classifier().classify(e);
      if (!onFailure || !o.failure()) {
        throw e;
      }
      return answers.fallback(
          FallbackTrigger.FAILED, breaker.view().state(), o.code(), key, payload, e, accepts);
    }
    if (onFailure && breaker.classifier().classifyResult(value).failure()) {
      return answers.fallback(
          FallbackTrigger.FAILED, breaker.view().state(), "failure", key, payload, null, accepts);
    }
    if (captures != null && key != null && policy() == FallbackPolicy.CACHED) {
      captures.execute(() -> capture(key, value));
    }
    breaker.observer().response(false);
    return FallbackResult.fresh(value);
  }

  private void capture(String key, T value) {
    try {
      snapshots.capture(breaker.id(), key, codec.encode(value), source, captureTtl, approval);
    } catch (RuntimeException e) {
      // MongoDB down or a value that does not encode: the previous snapshot stays
    }
  }

  private FallbackPolicy policy() {
    return breaker.view().policy().fallbackPolicy();
  }

  /**
   * Stops capturing and replaying (pending deferred requests stay stored) and withdraws what this
   * call site reported it accepts.
   */
  @Override
  public void close() {
    withdraw.run();
    if (captures != null) {
      captures.shutdown();
      ages.close();
    }
    if (replayer != null) {
      replayer.close();
    }
  }

  /** Builds {@link Fallbacks}; what is not set is not available to the policy. */
  public static final class Builder<T> {
    private final CircuitBreaker breaker;
    private boolean onFailure;
    private final StaticDefaults.Builder<T> staticDefaults = new StaticDefaults.Builder<>();
    private SnapshotSource snapshots;
    private SnapshotCodec<T> codec;
    private Duration captureTtl = Duration.ofHours(1);
    private SnapshotApproval approval = SnapshotApproval.AUTOMATIC;
    private String source;
    private DeferredQueue deferred;
    private DeferredWork<T> work;
    private String owner = "replayer-" + UUID.randomUUID().toString().substring(0, 8);
    private Duration lease = Duration.ofSeconds(30);
    private Duration replayInterval = Duration.ofSeconds(1);
    private Duration pendingCountInterval = Duration.ofSeconds(5);
    private Duration snapshotAgeInterval = Duration.ofSeconds(30);
    private int maxAttempts = 3;
    private Clock clock = Clock.systemUTC();
    private Retry retry;
    private java.util.Set<FallbackPolicy> accepts =
        java.util.Collections.unmodifiableSet(java.util.EnumSet.allOf(FallbackPolicy.class));
    private java.util.Set<FallbackPolicy> submitAccepts =
        java.util.Collections.unmodifiableSet(
            java.util.EnumSet.of(FallbackPolicy.DEFERRED, FallbackPolicy.CONTROLLED_FAILURE));

    private Builder(CircuitBreaker breaker) {
      this.breaker = Objects.requireNonNull(breaker, "breaker");
      this.source = breaker.id().toString();
    }

    /**
     * The fallback kinds that may answer a {@link Fallbacks#call} (default: all). A policy naming
     * another kind gets a controlled failure at this call site ({@link Unserved#NOT_ACCEPTED},
     * counted in {@code fallback.unavailable}, logged once per kind), never that kind's answer.
     * CONTROLLED_FAILURE and NONE are always acceptable. The node reports what its call sites
     * accept in its heartbeat ({@link CircuitBreaker#callSiteAccepts}), so {@code breakerctl policy
     * apply} warns (and with {@code --strict} refuses) before a policy names a kind refused here.
     */
    public Builder<T> accepts(FallbackPolicy... kinds) {
      this.accepts = kinds(kinds);
      return this;
    }

    /**
     * The fallback kinds that may answer a {@link Fallbacks#submit}, a write (default: DEFERRED and
     * CONTROLLED_FAILURE only: a write is never answered by a static default or cached data).
     * Reported with {@link #accepts} (their intersection) when deferred work is set.
     */
    public Builder<T> submitAccepts(FallbackPolicy... kinds) {
      this.submitAccepts = kinds(kinds);
      return this;
    }

    private static java.util.Set<FallbackPolicy> kinds(FallbackPolicy... kinds) {
      java.util.Set<FallbackPolicy> set = java.util.EnumSet.noneOf(FallbackPolicy.class);
      set.addAll(java.util.Arrays.asList(kinds));
      return java.util.Collections.unmodifiableSet(set);
    }

    /**
     * Whether a failed call (not only a rejected one) gets the fallback (default false). Never for
     * a {@link Fallbacks#submit}: a write that failed may have had its effect.
     */
    public Builder<T> onFailure(boolean enabled) {
      this.onFailure = enabled;
      return this;
    }

    /**
     * The static safe default registered without a name: what a STATIC_DEFAULT policy serves while
     * its {@code staticDefault} names none.
     */
    public Builder<T> staticDefault(Supplier<T> value) {
      staticDefaults.unnamed(value);
      return this;
    }

    /**
     * A static safe default registered under {@code name} ({@code [a-z0-9][a-z0-9._-]{0,62}}): what
     * a STATIC_DEFAULT policy whose {@code staticDefault} is {@code name} serves. Register every
     * default the fleet's policies may name; the policy picks one without a restart.
     *
     * @throws IllegalArgumentException for a name of another syntax or one registered twice
     */
    public Builder<T> staticDefault(String name, Supplier<T> value) {
      staticDefaults.named(name, value);
      return this;
    }

    /**
     * Cached answers, for a CACHED policy: served from and captured into {@code snapshots}, each
     * captured snapshot valid for {@code ttl} and approved as {@code approval} says.
     */
    public Builder<T> cached(
        SnapshotSource snapshots, SnapshotCodec<T> codec, Duration ttl, SnapshotApproval approval) {
      this.snapshots = Objects.requireNonNull(snapshots, "snapshots");
      this.codec = Objects.requireNonNull(codec, "codec");
      if (ttl.isNegative() || ttl.isZero()) {
        throw new IllegalArgumentException("snapshot ttl must be > 0 but was " + ttl);
      }
      this.captureTtl = ttl;
      this.approval = Objects.requireNonNull(approval, "approval");
      return this;
    }

    /** Where captured snapshots say they came from (default: the breaker id). */
    public Builder<T> source(String source) {
      if (source == null || source.isBlank()) {
        throw new IllegalArgumentException("snapshot source must not be empty");
      }
      this.source = source;
      return this;
    }

    /** Deferred processing, for a DEFERRED policy: requests stored in {@code requests}. */
    public Builder<T> deferred(DeferredQueue requests, DeferredWork<T> work) {
      this.deferred = Objects.requireNonNull(requests, "requests");
      this.work = Objects.requireNonNull(work, "work");
      return this;
    }

    /** The replayer's lease owner (default: random; use the node id). */
    public Builder<T> owner(String owner) {
      if (owner == null || owner.isBlank()) {
        throw new IllegalArgumentException("replay owner must not be empty");
      }
      this.owner = owner;
      return this;
    }

    /**
     * How long a replayer holds a deferred request (default 30 s): longer than its work takes, or
     * another node may run it again.
     */
    public Builder<T> lease(Duration lease) {
      this.lease = positive("lease", lease);
      return this;
    }

    /** How often pending deferred requests are looked for while closed (default 1 s). */
    public Builder<T> replayInterval(Duration interval) {
      this.replayInterval = positive("replayInterval", interval);
      return this;
    }

    /**
     * How often the breaker's pending deferred requests are counted in the control plane, in the
     * background, for the {@code deferred.pending} gauge (default 5 s; at least 100 ms, so the
     * count stays a bounded load on MongoDB whatever the fleet's size).
     */
    public Builder<T> pendingCountInterval(Duration interval) {
      this.pendingCountInterval = SnapshotAgeCheck.interval("pendingCountInterval", interval);
      return this;
    }

    /**
     * How often the capture time of the breaker's newest approved snapshot is read from the control
     * plane, in the background, for the {@code snapshot.age} gauge (default 30 s; at least 100 ms).
     * Only with {@link #cached} set.
     */
    public Builder<T> snapshotAgeInterval(Duration interval) {
      this.snapshotAgeInterval = SnapshotAgeCheck.interval("snapshotAgeInterval", interval);
      return this;
    }

    /** Replays of a deferred request before it fails (default 3). */
    public Builder<T> maxAttempts(int attempts) {
      if (attempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be >= 1 but was " + attempts);
      }
      this.maxAttempts = attempts;
      return this;
    }

    /**
     * Runs each call with {@code retry} (of the same breaker): the fallback answers once the
     * retries are spent or the breaker rejects one.
     *
     * @throws IllegalArgumentException when {@code retry} is of another breaker
     */
    public Builder<T> retry(Retry retry) {
      if (retry.breaker() != breaker) {
        throw new IllegalArgumentException(
            "retry of breaker " + retry.breaker().id() + " given to fallbacks of " + breaker.id());
      }
      this.retry = retry;
      return this;
    }

    /** The clock cached ages are measured with (the snapshots' clock). */
    public Builder<T> clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The fallbacks; starts the deferred replayer when deferred processing is set. */
    public Fallbacks<T> build() {
      return new Fallbacks<>(this);
    }

    private static Duration positive(String name, Duration d) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be > 0 but was " + d);
      }
      return d;
    }
  }
}
