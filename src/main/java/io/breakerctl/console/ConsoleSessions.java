package io.breakerctl.console;

import io.breakerctl.cli.Environment;
import io.breakerctl.cli.FleetStores;
import io.breakerctl.cli.GlobalOptions;
import io.breakerctl.cli.ServiceFactory;
import io.breakerctl.cli.Sessions;
import io.breakerctl.cli.Settings;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One console session: the global options its lines start from (those the console was started with,
 * until {@code use CONTEXT} switches them), and one set of connections per settings in use, opened
 * on the first command that needs them and kept until the console ends.
 */
final class ConsoleSessions implements Sessions, AutoCloseable {
  private final Map<String, ServiceFactory> open = new LinkedHashMap<>();
  private final FleetStores stores;
  private volatile GlobalOptions options;

  ConsoleSessions(GlobalOptions options, FleetStores stores) {
    this.options = options;
    this.stores = stores;
  }

  @Override
  public GlobalOptions options() {
    return options;
  }

  /** Makes {@code options} the session's from the next line on. */
  void options(GlobalOptions options) {
    this.options = options;
  }

  @Override
  public synchronized ServiceFactory services(Settings.Flags flags, Environment env) {
    String key = flags + "|" + env.get("BREAKERCTL_CONTEXT");
    return open.computeIfAbsent(key, k -> ServiceFactory.of(() -> flags, env, stores));
  }

  /** How many sets of connections are open (one per settings used). */
  synchronized int size() {
    return open.size();
  }

  @Override
  public synchronized void close() {
    open.values().forEach(ServiceFactory::close);
    open.clear();
  }
}
