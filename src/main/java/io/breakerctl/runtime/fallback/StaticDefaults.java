package io.breakerctl.runtime.fallback;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The static safe defaults registered in code for one breaker's {@link Fallbacks}: one without a
 * name (served while the policy names none) and any number by name, the name a policy's {@code
 * staticDefault} field gives. Which one serves is decided per call from the policy in force, so a
 * node adopts a changed name as soon as it adopts the policy version.
 */
final class StaticDefaults<T> {
  private static final System.Logger LOG = System.getLogger(Fallbacks.class.getName());

  private final BreakerId breaker;
  private final Supplier<T> unnamed;
  private final Map<String, Supplier<T>> named;
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  private StaticDefaults(BreakerId breaker, Supplier<T> unnamed, Map<String, Supplier<T>> named) {
    this.breaker = breaker;
    this.unnamed = unnamed;
    this.named = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(named));
  }

  /** Whether any default is registered, with a name or without. */
  boolean any() {
    return unnamed != null || !named.isEmpty();
  }

  /** The default for the name {@code policy} gives (none: the unnamed one), or empty. */
  Optional<Supplier<T>> lookup(Optional<String> name) {
    return Optional.ofNullable(name.isPresent() ? named.get(name.get()) : unnamed);
  }

  /**
   * Why nothing serves for {@code name}, for the controlled failure; logged once per name (a policy
   * naming a default this node's code lacks is a deployment mismatch, not a per-call event).
   */
  String missing(Optional<String> name) {
    String registered =
        named.isEmpty() ? "none by name" : "registered: " + String.join(", ", named.keySet());
    String why =
        name.isPresent()
            ? "static default '"
                + name.get()
                + "' is not registered on this node ("
                + registered
                + (unnamed == null ? "" : ", and one without a name")
                + ")"
            : "no static default registered without a name (the policy names none; "
                + registered
                + ")";
    if (reported.add(name.orElse(""))) {
      LOG.log(
          System.Logger.Level.WARNING,
          "breakerctl breaker {0}: the policy''s STATIC_DEFAULT fallback cannot serve: {1}; its"
              + " rejected calls get a ControlledFailureException",
          breaker,
          why);
    }
    return why;
  }

  /** Registers defaults for one breaker, by name and without one. */
  static final class Builder<T> {
    private Supplier<T> unnamed;
    private final Map<String, Supplier<T>> named = new LinkedHashMap<>();

    void unnamed(Supplier<T> value) {
      this.unnamed = Objects.requireNonNull(value, "staticDefault");
    }

    void named(String name, Supplier<T> value) {
      Objects.requireNonNull(value, "staticDefault");
      if (name == null || !Policy.NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            "static default name must match [a-z0-9][a-z0-9._-]{0,62} but was \"" + name + "\"");
      }
      if (named.putIfAbsent(name, value) != null) {
        throw new IllegalArgumentException("static default '" + name + "' is registered twice");
      }
    }

    StaticDefaults<T> build(BreakerId breaker) {
      return new StaticDefaults<>(breaker, unnamed, named);
    }
  }
}
