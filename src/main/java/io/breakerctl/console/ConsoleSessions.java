package io.breakerctl.console;

import io.breakerctl.cli.BreakerCtl;
import io.breakerctl.cli.Environment;
import io.breakerctl.cli.ServiceFactory;
import io.breakerctl.cli.Settings;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The connections of one console session: one set of services per (flags, context) in use, opened
 * on the first command that needs them and kept until the console ends.
 */
final class ConsoleSessions implements BreakerCtl.Sessions, AutoCloseable {
  private final Map<String, ServiceFactory> open = new LinkedHashMap<>();

  @Override
  public synchronized ServiceFactory services(Settings.Flags flags, Environment env) {
    String key = flags + "|" + env.get("BREAKERCTL_CONTEXT");
    return open.computeIfAbsent(key, k -> BreakerCtl.newServices(flags, env));
  }

  /** How many sets of connections are open (one per context used). */
  synchronized int size() {
    return open.size();
  }

  @Override
  public synchronized void close() {
    open.values().forEach(ServiceFactory::close);
    open.clear();
  }
}
