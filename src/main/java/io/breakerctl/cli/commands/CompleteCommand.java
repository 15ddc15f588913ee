package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.ConfigFile;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.FleetStores;
import io.breakerctl.cli.Settings;
import io.breakerctl.runtime.connection.Redaction;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.FleetStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code breakerctl __complete KIND [PREFIX]}: live candidates for the shell completion scripts,
 * one a line; prints nothing (and exits 0) when the backend cannot be reached quickly.
 */
@Command(name = "__complete", hidden = true, description = "Live completion candidates.")
public final class CompleteCommand implements Callable<Integer> {

  static final int LIMIT = 1000;
  private static final Duration BOUND = Duration.ofSeconds(1);

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "KIND", description = "breaker-ids or contexts")
  String kind;

  @Parameters(index = "1", arity = "0..1", paramLabel = "PREFIX", defaultValue = "")
  String prefix;

  @Override
  public Integer call() {
    CliContext root = CliContext.of(spec);
    TreeSet<String> candidates = new TreeSet<>();
    try {
      if ("contexts".equals(kind)) {
        ConfigFile.load(Settings.configPath(root.env())).contexts.stream()
            .map(c -> c.name)
            .filter(n -> n != null && n.startsWith(prefix))
            .forEach(candidates::add);
      } else if ("breaker-ids".equals(kind)) {
        Settings s = root.services().settings();
        Duration timeout = s.timeout().compareTo(BOUND) < 0 ? s.timeout() : BOUND;
        try (FleetStore store =
            root.stores().connect(FleetStores.Target.of(s).withTimeout(timeout))) {
          store.forEachBreaker(
              (BreakerId id) -> {
                if (candidates.size() < LIMIT && id.toString().startsWith(prefix)) {
                  candidates.add(id.toString());
                }
              });
        }
      }
    } catch (RuntimeException e) {
      if (root.verbose()) {
        spec.commandLine().getErr().print(Redaction.trace(e));
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    candidates.forEach(out::println);
    return ExitCode.OK;
  }
}
