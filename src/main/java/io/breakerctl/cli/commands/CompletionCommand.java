package io.breakerctl.cli.commands;

import io.breakerctl.cli.ExitCode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl completion bash|zsh}: the shell completion script; never connects. */
@Command(
    name = "completion",
    description = {
      "Print the completion script for bash or zsh (the same as completions/ in the source).",
      "bash: source <(breakerctl completion bash), or save it as"
          + " ~/.local/share/bash-completion/completions/breakerctl.",
      "zsh: breakerctl completion zsh > \"${fpath[1]}/_breakerctl\", then restart zsh."
    })
public final class CompletionCommand implements Callable<Integer> {

  /** The shells a script is generated for. */
  public enum Shell {
    /** bash 4 or newer. */
    BASH,
    /** zsh, through its bashcompinit. */
    ZSH
  }

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "SHELL", description = "${COMPLETION-CANDIDATES}")
  Shell shell;

  @Override
  public Integer call() {
    String bash = CompletionScripts.bash(spec.root().commandLine());
    PrintWriter out = spec.commandLine().getOut();
    out.print(shell == Shell.BASH ? bash : CompletionScripts.zsh(bash));
    out.flush();
    return ExitCode.OK;
  }
}
