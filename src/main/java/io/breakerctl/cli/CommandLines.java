package io.breakerctl.cli;

import picocli.CommandLine;

/**
 * Makes ready command lines of the whole program (every command, the error policy, lazy services):
 * how the console runs its lines and {@code top} runs {@code status} and {@code force}, without
 * knowing the composition root that assembles them.
 */
@FunctionalInterface
public interface CommandLines {
  /**
   * A ready command line whose connections come from {@code sessions} and stay open after the
   * command (the console's); null: opened on demand and closed when the command ends.
   */
  CommandLine create(Environment env, Sessions sessions);

  /** A ready command line whose connections are opened on demand. */
  default CommandLine create(Environment env) {
    return create(env, null);
  }
}
