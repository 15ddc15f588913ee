package io.breakerctl.console;

import io.breakerctl.cli.Settings;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.runtime.connection.Redaction;

/**
 * Where commands act, as the console's prompt and {@code top}'s header name it: the context (when
 * one is in use), the Redis address with its password hidden ({@link Redaction#uri}, a long list of
 * seeds cut) and the key prefix, e.g. {@code staging: redis://viewer:***@10.0.0.5:6379, prefix cb}.
 */
final class TargetLabel {
  private static final int REDIS_SHOWN = 64;

  private TargetLabel() {}

  static String of(Settings s) {
    String redis = Redaction.uri(s.redis());
    if (redis.length() > REDIS_SHOWN) {
      redis = redis.substring(0, REDIS_SHOWN - 3) + "...";
    }
    String label = redis + ", prefix " + s.prefix();
    return Printable.escape(s.context() == null ? label : s.context() + ": " + label);
  }
}
