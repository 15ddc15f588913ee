package io.breakerctl.runtime.lockstep;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * A property's tries from the system property {@link #value} (else {@link #tries}), and its seed
 * from {@code model.seed} when given: jqwik takes tries only as a constant, and a stress run turns
 * them up ({@code -Dmodel.tries=500}); a failure names its seed, which {@code -Dmodel.seed=...}
 * replays.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@AddLifecycleHook(SizedBy.Hook.class)
@interface SizedBy {
  /** The system property holding the tries. */
  String value();

  /** The tries when it is not set. */
  int tries();

  /** Sets the attributes before the property runs. */
  final class Hook implements AroundPropertyHook {
    @Override
    public PropertyExecutionResult aroundProperty(
        PropertyLifecycleContext context, PropertyExecutor property) {
      context
          .findAnnotation(SizedBy.class)
          .ifPresent(s -> context.attributes().setTries(Integer.getInteger(s.value(), s.tries())));
      String seed = System.getProperty("model.seed");
      if (seed != null && !seed.isBlank()) {
        context.attributes().setSeed(seed);
      }
      return property.execute();
    }
  }
}
