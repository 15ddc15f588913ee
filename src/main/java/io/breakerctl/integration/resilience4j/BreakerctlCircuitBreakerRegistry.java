package io.breakerctl.integration.resilience4j;

import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.core.ConfigurationNotFoundException;
import io.github.resilience4j.core.registry.AbstractRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A Resilience4j {@link CircuitBreakerRegistry} whose breakers are breakerctl's: every instance is
 * a {@link BreakerctlCircuitBreaker} over the breaker its name maps to, in one breakerctl {@link
 * BreakerRegistry} (one node) that this registry builds, with the default config as its node
 * defaults, and closes.
 *
 * <pre>{@code
 * CircuitBreakerRegistry registry = BreakerctlCircuitBreakerRegistry
 *     .builder(BreakerRegistry.builder().redisUri("redis://redis:6379").nodeId("claims-7f9c"))
 *     .application("claims")
 *     .defaultConfig(CircuitBreakerConfig.custom().failureRateThreshold(50).build())
 *     .build();
 * CircuitBreaker members = registry.circuitBreaker("members"); // breakerctl id claims:members
 * }</pre>
 */
public final class BreakerctlCircuitBreakerRegistry
    extends AbstractRegistry<CircuitBreaker, CircuitBreakerConfig>
    implements CircuitBreakerRegistry, AutoCloseable {

  private static final System.Logger LOG =
      System.getLogger(BreakerctlCircuitBreakerRegistry.class.getName());

  private final BreakerRegistry runtime;
  private final Function<String, BreakerId> ids;
  private final Policy base;
  private final Policy defaults;
  private final ActuatorTransitions transitions;
  private final Map<BreakerId, String> names = new ConcurrentHashMap<>();

  private BreakerctlCircuitBreakerRegistry(Builder b, BreakerRegistry runtime, Policy defaults) {
    super(b.defaultConfig, b.tags);
    this.configurations.putAll(b.configurations);
    this.runtime = runtime;
    this.ids = b.ids != null ? b.ids : name -> defaultId(b.application, name);
    this.base = b.base;
    this.defaults = defaults;
    this.transitions =
        b.actuatorOverrides == ActuatorOverrides.REJECT
            ? ActuatorTransitions.REJECT
            : new ActuatorTransitions(
                b.actuatorOverrides, b.fleetOverrides, b.overrideExpiry, runtime.nodeId());
  }

  /**
   * A builder over {@code runtime}: {@link Builder#build()} sets its {@code defaults} to the
   * default config's policy ({@link PolicyMapping}) and builds it.
   */
  public static Builder builder(BreakerRegistry.Builder runtime) {
    return new Builder(runtime);
  }

  /**
   * The default mapping of a Resilience4j instance name to a breakerctl id: {@code
   * <application>:<name>}, the name in breakerctl's spelling (camelCase words joined by {@code -},
   * lower case, any character an id does not allow as {@code -}): {@code memberService} becomes
   * {@code claims:member-service}.
   *
   * @throws IllegalArgumentException when the result is no valid id (the message names the name)
   */
  public static BreakerId defaultId(String application, String name) {
    String dependency =
        name.replaceAll("([a-z0-9])([A-Z])", "$1-$2")
            .toLowerCase(java.util.Locale.ROOT)
            .replaceAll("[^a-z0-9._-]", "-");
    try {
      return BreakerId.of(application, dependency, null);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Resilience4j instance '"
              + name
              + "' maps to no breakerctl id under application '"
              + application
              + "' ("
              + e.getMessage()
              + "): give the registry a name mapping",
          e);
    }
  }

  /** The breakerctl registry (this node) underneath. */
  public BreakerRegistry breakerRegistry() {
    return runtime;
  }

  /** The node defaults installed from the default config. */
  public Policy nodeDefaults() {
    return defaults;
  }

  /** The breakerctl id an instance name maps to. */
  public BreakerId idOf(String name) {
    return ids.apply(Objects.requireNonNull(name, "name"));
  }

  /** Every instance name made so far with the breakerctl id it maps to. */
  public Map<String, BreakerId> mapping() {
    return names.entrySet().stream()
        .collect(Collectors.toUnmodifiableMap(Map.Entry::getValue, Map.Entry::getKey));
  }

  @Override
  public Set<CircuitBreaker> getAllCircuitBreakers() {
    return Set.copyOf(entryMap.values());
  }

  @Override
  public CircuitBreaker circuitBreaker(String name) {
    return circuitBreaker(name, getDefaultConfig());
  }

  @Override
  public CircuitBreaker circuitBreaker(String name, Map<String, String> tags) {
    return circuitBreaker(name, getDefaultConfig(), tags);
  }

  @Override
  public CircuitBreaker circuitBreaker(String name, CircuitBreakerConfig config) {
    return circuitBreaker(name, config, Map.of());
  }

  @Override
  public CircuitBreaker circuitBreaker(
      String name, CircuitBreakerConfig config, Map<String, String> tags) {
    Objects.requireNonNull(config, CONFIG_MUST_NOT_BE_NULL);
    return computeIfAbsent(name, () -> create(name, config, getAllTags(tags)));
  }

  @Override
  public CircuitBreaker circuitBreaker(String name, String configName) {
    return circuitBreaker(name, configName, Map.of());
  }

  @Override
  public CircuitBreaker circuitBreaker(String name, String configName, Map<String, String> tags) {
    CircuitBreakerConfig config =
        getConfiguration(configName)
            .orElseThrow(() -> new ConfigurationNotFoundException(configName));
    return circuitBreaker(name, config, tags);
  }

  @Override
  public CircuitBreaker circuitBreaker(String name, Supplier<CircuitBreakerConfig> config) {
    return circuitBreaker(name, config, Map.of());
  }

  @Override
  public CircuitBreaker circuitBreaker(
      String name, Supplier<CircuitBreakerConfig> config, Map<String, String> tags) {
    Objects.requireNonNull(config, SUPPLIER_MUST_NOT_BE_NULL);
    return computeIfAbsent(
        name,
        () ->
            create(
                name,
                Objects.requireNonNull(config.get(), CONFIG_MUST_NOT_BE_NULL),
                getAllTags(tags)));
  }

  private BreakerctlCircuitBreaker create(
      String name, CircuitBreakerConfig config, Map<String, String> tags) {
    BreakerId id = idOf(name);
    String other = names.putIfAbsent(id, name);
    if (other != null && !other.equals(name)) {
      throw new IllegalArgumentException(
          "Resilience4j instances '" + other + "' and '" + name + "' both map to " + id);
    }
    warnWhenPolicyDiffers(name, id, config);
    return new BreakerctlCircuitBreaker(name, runtime.breaker(id), config, tags, transitions);
  }

  /**
   * The node defaults are one policy per node: an instance whose config maps to another keeps its
   * classification, but its tunables are the node's until a policy is applied to its id. Said once
   * per instance, never silently.
   */
  private void warnWhenPolicyDiffers(String name, BreakerId id, CircuitBreakerConfig config) {
    if (config == getDefaultConfig()) {
      return;
    }
    Policy own = PolicyMapping.policy(config, base);
    if (!own.equals(defaults)) {
      LOG.log(
          System.Logger.Level.WARNING,
          "Resilience4j instance ''{0}'' ({1}) has a config whose tunables differ from the node"
              + " defaults ({2} against {3}); its classification applies, its thresholds and"
              + " windows are the node defaults until a policy for {1} is applied with `breakerctl"
              + " policy apply`",
          name,
          id,
          own,
          defaults);
    }
  }

  /**
   * Removes the instance {@code name} from this registry and stops relaying its events; the
   * breakerctl breaker stays in the node (its keys, its policy), and the name may be made again.
   */
  @Override
  public java.util.Optional<CircuitBreaker> remove(String name) {
    java.util.Optional<CircuitBreaker> removed = super.remove(name);
    removed.ifPresent(
        cb -> {
          BreakerctlCircuitBreaker b = (BreakerctlCircuitBreaker) cb;
          b.close();
          names.remove(b.breakerId(), name);
        });
    return removed;
  }

  /** Stops relaying events and closes the breakerctl registry (flushes pending outcomes). */
  @Override
  public void close() {
    for (CircuitBreaker cb : entryMap.values()) {
      ((BreakerctlCircuitBreaker) cb).close();
    }
    runtime.close();
  }

  /** Builds a {@link BreakerctlCircuitBreakerRegistry}. */
  public static final class Builder {
    private final BreakerRegistry.Builder runtime;
    private String application;
    private Function<String, BreakerId> ids;
    private CircuitBreakerConfig defaultConfig = CircuitBreakerConfig.ofDefaults();
    private final Map<String, CircuitBreakerConfig> configurations = new LinkedHashMap<>();
    private Map<String, String> tags = new HashMap<>();
    private Policy base = Policy.DEFAULT;
    private ActuatorOverrides actuatorOverrides = ActuatorOverrides.REJECT;
    private FleetOverrides fleetOverrides;
    private Duration overrideExpiry;

    private Builder(BreakerRegistry.Builder runtime) {
      this.runtime = Objects.requireNonNull(runtime, "runtime");
    }

    /** The caller segment of every id the default name mapping makes ({@link #defaultId}). */
    public Builder application(String application) {
      this.application = Objects.requireNonNull(application, "application");
      return this;
    }

    /** The breakerctl id of an instance name, instead of {@link #defaultId}. */
    public Builder ids(Function<String, BreakerId> ids) {
      this.ids = Objects.requireNonNull(ids, "ids");
      return this;
    }

    /** The default config (default Resilience4j's): its classification and the node defaults. */
    public Builder defaultConfig(CircuitBreakerConfig config) {
      this.defaultConfig = Objects.requireNonNull(config, "config");
      return this;
    }

    /** A named config ({@code circuitBreaker(name, configName)}). */
    public Builder configuration(String configName, CircuitBreakerConfig config) {
      configurations.put(
          Objects.requireNonNull(configName, "configName"),
          Objects.requireNonNull(config, "config"));
      return this;
    }

    /** Tags of every breaker (Resilience4j's registry tags). */
    public Builder tags(Map<String, String> tags) {
      this.tags = new HashMap<>(Objects.requireNonNull(tags, "tags"));
      return this;
    }

    /**
     * The policy the default config is mapped over (default {@link Policy#DEFAULT}): the fields
     * Resilience4j has no twin for (probe lease, maxProbe, storeFailureMode, a count-based window's
     * length, fallbackPolicy, criticality).
     */
    public Builder basePolicy(Policy base) {
      this.base = Objects.requireNonNull(base, "base");
      return this;
    }

    /** What {@code transitionTo*} does: {@link ActuatorOverrides#REJECT} (default) or LOCAL. */
    public Builder actuatorOverrides(ActuatorOverrides setting) {
      if (Objects.requireNonNull(setting, "actuatorOverrides") == ActuatorOverrides.FLEET) {
        throw new IllegalArgumentException(
            "actuatorOverrides FLEET needs where overrides go and their expiry:"
                + " actuatorOverrides(FleetOverrides, Duration)");
      }
      this.actuatorOverrides = setting;
      return this;
    }

    /**
     * {@link ActuatorOverrides#FLEET}: each transition is a fleet override applied by {@code fleet}
     * that lasts {@code expiry} ({@code transitionToOpenStateFor}: its own duration).
     */
    public Builder actuatorOverrides(FleetOverrides fleet, Duration expiry) {
      this.fleetOverrides = Objects.requireNonNull(fleet, "fleet");
      if (expiry == null || expiry.isZero() || expiry.isNegative()) {
        throw new IllegalArgumentException("override expiry must be > 0 but was " + expiry);
      }
      this.overrideExpiry = expiry;
      this.actuatorOverrides = ActuatorOverrides.FLEET;
      return this;
    }

    /**
     * Sets the breakerctl builder's defaults to the default config's policy and builds both.
     *
     * @throws IllegalStateException without an application or a name mapping
     */
    public BreakerctlCircuitBreakerRegistry build() {
      if (application == null && ids == null) {
        throw new IllegalStateException("set the application (the ids' caller) or a name mapping");
      }
      Policy defaults = PolicyMapping.policy(defaultConfig, base);
      BreakerRegistry built = runtime.defaults(defaults).build();
      return new BreakerctlCircuitBreakerRegistry(this, built, defaults);
    }
  }
}
