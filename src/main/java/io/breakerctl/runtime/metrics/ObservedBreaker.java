package io.breakerctl.runtime.metrics;

import io.breakerctl.runtime.BreakerView;
import io.breakerctl.runtime.CallObserver;
import io.breakerctl.runtime.CallOutcome;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.CircuitEvent;
import io.breakerctl.runtime.FailureClassifier;
import io.breakerctl.runtime.Permission;
import io.breakerctl.runtime.model.AdmissionReason;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * A breaker whose calls are Micrometer {@link Observation}s, so the tracing bridge a service
 * already has (OpenTelemetry, Brave: OTLP, Zipkin) shows each call with the breaker's decision, and
 * the meter handler times it. Wrap once: {@code CircuitBreaker observed =
 * ObservedBreaker.of(breaker, observationRegistry)}; everything else is the wrapped breaker's.
 *
 * <p>The shape, offered as a convention (OpenTelemetry has none for breakers yet:
 * semantic-conventions #2355):
 *
 * <ul>
 *   <li>{@value #CALL}, one per call asked for, from the decision to the outcome (a rejected call:
 *       an observation that ends at once). Low-cardinality key values: {@code breaker} (the id),
 *       {@code decision} ({@code admitted}, {@code probe}: admitted under a half-open probe lease,
 *       {@code rejected}), {@code reason} (the admission reason code: {@code CLOSED}, {@code
 *       PROBE}, {@code OPEN}, {@code PROBES_BUSY}, ...), {@code state} (the state the decision was
 *       made in), {@code policy.version} (0: the node's defaults) and, when the call ends, {@code
 *       outcome} ({@code success}, {@code failure}, {@code timeout}, {@code ignored}, {@code
 *       rate_limited}, or {@code abandoned} for {@link Permission#onIgnored()}). An error is the
 *       observation's error. {@link #callChecked} and {@link #call} run the call inside the
 *       observation's scope, so its own spans (an HTTP client's) are children of it.
 *   <li>{@value #TRANSITION}, one per state change this node sees, ending at once: {@code breaker},
 *       {@code from}, {@code to}, {@code cause} (the transition table's cause; {@code unknown} when
 *       the node learned the state without it) and {@code source} (how the node learned it). When a
 *       call's observation is in scope on the thread that saw the change (the call whose failure
 *       tripped the breaker), that observation also gets an event {@value #TRANSITION} named {@code
 *       FROM->TO}.
 * </ul>
 *
 * <p>Cost: with {@link ObservationRegistry#NOOP} (or a registry without handlers) the wrapper adds
 * one check per call; with handlers, what they do. {@code scripts/bench runtime} prints both.
 */
public final class ObservedBreaker implements CircuitBreaker {
  /** The observation of each call. */
  public static final String CALL = "breakerctl.call";

  /** The observation (and the event on the call in scope) of each state change. */
  public static final String TRANSITION = "breakerctl.transition";

  private final CircuitBreaker breaker;
  private final ObservationRegistry registry;
  private final String id;

  /** The call observation's contextual name, made once. */
  private final String callName;

  /**
   * The key values of a decision, by decision, reason, state and policy version: a handful per
   * breaker, made once each, so a call adds them with one call and no allocation of its own.
   */
  private final java.util.concurrent.ConcurrentHashMap<String, KeyValues> decisions =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** The policy version in force, as a key value; refreshed when the node adopts a policy. */
  private volatile String policyVersion;

  private ObservedBreaker(CircuitBreaker breaker, ObservationRegistry registry) {
    this.breaker = Objects.requireNonNull(breaker, "breaker");
    this.registry = Objects.requireNonNull(registry, "registry");
    this.id = breaker.id().toString();
    this.callName = "breakerctl " + id;
    this.policyVersion = Long.toString(breaker.view().policyVersion());
    breaker.onEvent(this::onEvent);
  }

  /** {@code breaker}, each call observed in {@code registry}. */
  public static ObservedBreaker of(CircuitBreaker breaker, ObservationRegistry registry) {
    return new ObservedBreaker(breaker, registry);
  }

  @Override
  public Permission tryAcquire() {
    Permission p = breaker.tryAcquire();
    if (registry.isNoop()) {
      return p;
    }
    Observation o =
        Observation.createNotStarted(CALL, registry)
            .contextualName(callName)
            .lowCardinalityKeyValues(keyValues(p))
            .start();
    if (!p.allowed()) {
      o.stop();
      return p;
    }
    return new ObservedPermission(p, o, breaker.classifier());
  }

  /** The decision's key values (made at the first call with this decision). */
  private KeyValues keyValues(Permission p) {
    String decision = !p.allowed() ? "rejected" : p.lease().isEmpty() ? "admitted" : "probe";
    String reason = p.reason() == null ? "none" : p.reason().code();
    String version = policyVersion;
    String key = decision + '|' + reason + '|' + p.state().ordinal() + '|' + version;
    KeyValues kv = decisions.get(key);
    if (kv == null) {
      kv =
          KeyValues.of(
              "breaker", id,
              "decision", decision,
              "reason", reason,
              "state", p.state().name(),
              "policy.version", version);
      if (decisions.size() < 256) {
        decisions.putIfAbsent(key, kv);
      }
    }
    return kv;
  }

  /**
   * Runs {@code call} as the wrapped breaker would (rejected: {@link
   * io.breakerctl.runtime.CallNotPermittedException}; the outcome classified), inside its
   * observation's scope.
   */
  @Override
  public <T> T callChecked(Callable<T> call) throws Exception {
    Permission p = tryAcquire();
    if (!p.allowed()) {
      throw io.breakerctl.runtime.CallNotPermittedException.of(breaker.id(), p);
    }
    ObservedPermission observed = p instanceof ObservedPermission op ? op : null;
    Permission target = observed == null ? p : observed.p;
    // the outcome reaches the breaker inside the scope, so a transition it makes is an event of
    // this call; the observation stops after the scope closes, as Observation.observe does
    Observation.Scope scope = observed == null ? null : observed.o.openScope();
    long start = System.nanoTime();
    T result;
    try {
      result = call.call();
    } catch (Exception | Error e) {
      target.onError(e, System.nanoTime() - start);
      closeScope(scope);
      if (observed != null) {
        observed.end(observed.classifier.classify(e).code(), e);
      }
      throw e;
    }
    target.onResult(result, System.nanoTime() - start);
    closeScope(scope);
    if (observed != null) {
      observed.end(observed.classifier.classifyResult(result).code(), null);
    }
    return result;
  }

  private static void closeScope(Observation.Scope scope) {
    if (scope != null) {
      scope.close();
    }
  }

  private void onEvent(CircuitEvent e) {
    if (e.type() == CircuitEvent.Type.POLICY_ADOPTED) {
      policyVersion = Long.toString(breaker.view().policyVersion());
      return;
    }
    if (e.type() != CircuitEvent.Type.TRANSITION || registry.isNoop()) {
      return;
    }
    String name = e.from() + "->" + e.to();
    Observation current = registry.getCurrentObservation();
    if (current != null) {
      current.event(Observation.Event.of(TRANSITION, name));
    }
    Observation.createNotStarted(TRANSITION, registry)
        .contextualName("breakerctl " + id + " " + name)
        .lowCardinalityKeyValue("breaker", id)
        .lowCardinalityKeyValue("from", e.from().name())
        .lowCardinalityKeyValue("to", e.to().name())
        .lowCardinalityKeyValue("cause", e.cause() == null ? "unknown" : e.cause().name())
        .lowCardinalityKeyValue("source", e.source() == null ? "unknown" : e.source().name())
        .start()
        .stop();
  }

  /** A permitted call's permission: reports to the breaker's, then ends the observation. */
  private final class ObservedPermission implements Permission {
    private final Permission p;
    private final Observation o;
    private final FailureClassifier classifier;

    ObservedPermission(Permission p, Observation o, FailureClassifier classifier) {
      this.p = p;
      this.o = o;
      this.classifier = classifier;
    }

    private void end(String outcome, Throwable error) {
      o.lowCardinalityKeyValue("outcome", outcome);
      if (error != null) {
        o.error(error);
      }
      o.stop();
    }

    @Override
    public boolean allowed() {
      return true;
    }

    @Override
    public State state() {
      return p.state();
    }

    @Override
    public AdmissionReason reason() {
      return p.reason();
    }

    @Override
    public String lease() {
      return p.lease();
    }

    @Override
    public void onSuccess(long nanos) {
      p.onSuccess(nanos);
      end(CallOutcome.SUCCESS.code(), null);
    }

    @Override
    public void onFailure(Object throwableOrResult, long nanos) {
      p.onFailure(throwableOrResult, nanos);
      end(CallOutcome.FAILURE.code(), throwableOrResult instanceof Throwable t ? t : null);
    }

    @Override
    public <T> void onResult(T result, long nanos) {
      p.onResult(result, nanos);
      end(classifier.classifyResult(result).code(), null);
    }

    @Override
    public void onError(Throwable error, long nanos) {
      p.onError(error, nanos);
      end(classifier.classify(error).code(), error);
    }

    @Override
    public void onIgnored() {
      p.onIgnored();
      end("abandoned", null);
    }

    @Override
    public void onOutcome(CallOutcome outcome, long nanos) {
      p.onOutcome(outcome, nanos);
      end(outcome.code(), null);
    }
  }

  // ---- the rest is the wrapped breaker's -------------------------------------------------------

  @Override
  public BreakerId id() {
    return breaker.id();
  }

  @Override
  public BreakerView view() {
    return breaker.view();
  }

  @Override
  public AutoCloseable onEvent(Consumer<CircuitEvent> listener) {
    return breaker.onEvent(listener);
  }

  @Override
  public void probe(Callable<Boolean> healthCheck) {
    breaker.probe(healthCheck);
  }

  @Override
  public FailureClassifier classifier() {
    return breaker.classifier();
  }

  @Override
  public void classifier(FailureClassifier classifier) {
    breaker.classifier(classifier);
  }

  @Override
  public AutoCloseable observe(CallObserver observer) {
    return breaker.observe(observer);
  }

  @Override
  public CallObserver observer() {
    return breaker.observer();
  }

  @Override
  public void fallbacksRegistered(java.util.Set<io.breakerctl.runtime.model.FallbackPolicy> kinds) {
    breaker.fallbacksRegistered(kinds);
  }

  @Override
  public void fallbackServed() {
    breaker.fallbackServed();
  }

  @Override
  public Runnable callSiteAccepts(java.util.Set<io.breakerctl.runtime.model.FallbackPolicy> kinds) {
    return breaker.callSiteAccepts(kinds);
  }
}
