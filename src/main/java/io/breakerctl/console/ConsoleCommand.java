package io.breakerctl.console;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.GlobalOptions;
import io.breakerctl.cli.Settings;
import java.io.IOException;
import java.util.concurrent.Callable;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code breakerctl console}: the admin console (a JLine REPL over every command). */
@Command(
    name = "console",
    description = {
      "The admin console: every breakerctl command without the prefix, each run with the global"
          + " options the console was started with (--redis, --context, --prefix, -o, ..., given"
          + " before or after 'console'); a line's own option holds for that line only. The"
          + " prompt shows where a line acts: the context, the Redis address (password hidden) and"
          + " the prefix. 'use CONTEXT' switches the session to that context (the target options"
          + " the console was started with no longer apply). TAB completes commands, options, live"
          + " breaker ids and contexts. Connections are opened once and reused between commands.",
      "History is kept in $XDG_STATE_HOME/breakerctl/history, readable by its owner only (mode"
          + " 0600); a line that holds a password (a URI with a user info, a password option with a"
          + " value) is not kept at all.",
      "Ctrl-C stops the running command (the console stays), Ctrl-D or 'exit' leaves; an error"
          + " prints and the console goes on. Confirmations are asked at the console's prompt.",
      "With stdin not a terminal it reads one command a line and exits with the code of the"
          + " last command that failed (0 when none did)."
    })
public final class ConsoleCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    CliContext root = CliContext.of(spec);
    if (root.inConsole()) {
      throw CliException.usage("already in the console");
    }
    GlobalOptions options = root.globals();
    Settings.resolve(options.flags(), root.env()); // a context that is not one: exit 2 now
    if (!root.env().interactive()) {
      return Console.piped(
          root.env(),
          options,
          root.commandLines(),
          root.stores(),
          spec.commandLine().getOut(),
          spec.commandLine().getErr());
    }
    try (Terminal terminal =
        TerminalBuilder.builder().name("breakerctl").system(true).dumb(true).build()) {
      return new Console(terminal, root.env(), options, root.commandLines(), root.stores()).run();
    }
  }
}
