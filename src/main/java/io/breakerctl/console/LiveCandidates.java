package io.breakerctl.console;

import io.breakerctl.cli.BreakerSelector;
import io.breakerctl.cli.ConfigFile;
import io.breakerctl.cli.Environment;
import io.breakerctl.cli.ServiceFactory;
import io.breakerctl.cli.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * What TAB offers besides the command model: breaker ids read live on the session's connections
 * (bounded: 1 s, 1000 ids) and the config file's context names. Never fails a line: nothing is
 * offered when the backend does not answer.
 */
final class LiveCandidates {
  private static final Duration BOUND = Duration.ofSeconds(1);
  private static final int LIMIT = 1000;

  private LiveCandidates() {}

  /** Ids starting with {@code prefix}, where the session's next line acts. */
  static List<String> breakerIds(ConsoleSessions sessions, Environment env, String prefix) {
    TreeSet<String> ids = new TreeSet<>();
    try {
      Environment e = new Environment(env.variables(), false, env.clock(), env.stdin(), env.user());
      ServiceFactory services = sessions.services(sessions.options().flags(), e);
      Duration timeout = services.settings().timeout();
      services
          .redis()
          .fleet(timeout.compareTo(BOUND) < 0 ? timeout : BOUND, LIMIT)
          .ids(
              new BreakerSelector(null, null, null),
              id -> {
                String s = id.toString();
                if (ids.size() < LIMIT && s.startsWith(prefix)) {
                  ids.add(s);
                }
              });
    } catch (RuntimeException e) {
      // completion never fails the line
    }
    return List.copyOf(ids);
  }

  /** The contexts of the config file. */
  static List<String> contexts(Environment env) {
    try {
      List<String> names = new ArrayList<>();
      ConfigFile.load(Settings.configPath(env)).contexts.forEach(c -> names.add(c.name));
      return names;
    } catch (RuntimeException e) {
      return List.of();
    }
  }
}
