package io.breakerctl.console;

import io.breakerctl.cli.BreakerCtl;
import io.breakerctl.cli.CliException;
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
      "The admin console: every breakerctl command without the prefix, TAB completion of"
          + " commands, options, live breaker ids and contexts, history kept in"
          + " $XDG_STATE_HOME/breakerctl/history, 'use CONTEXT' (shown in the prompt) for the"
          + " commands that follow. Connections are opened once and reused between commands.",
      "Ctrl-C stops the running command (the console stays), Ctrl-D or 'exit' leaves; an error"
          + " prints and the console goes on. Confirmations are asked at the console's prompt.",
      "With stdin not a terminal it reads one command a line and exits with the code of the"
          + " last command that failed (0 when none did)."
    })
public final class ConsoleCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    BreakerCtl root = BreakerCtl.of(spec);
    if (root.inConsole()) {
      throw CliException.usage("already in the console");
    }
    if (!root.env().interactive()) {
      return Console.piped(root.env(), spec.commandLine().getOut(), spec.commandLine().getErr());
    }
    try (Terminal terminal =
        TerminalBuilder.builder().name("breakerctl").system(true).dumb(true).build()) {
      return new Console(terminal, root.env()).run();
    }
  }
}
