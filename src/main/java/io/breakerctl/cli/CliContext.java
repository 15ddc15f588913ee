package io.breakerctl.cli;

import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.Style;
import picocli.CommandLine.Model.CommandSpec;

/**
 * What a command reaches of the run it is part of: the global options as given, the environment,
 * the services opened on demand and the output style. The root command of the command line
 * implements it; a command asks {@link #of(CommandSpec)} and never names the root's class.
 */
public interface CliContext {

  /** The context of the command line {@code spec} belongs to (its root command). */
  static CliContext of(CommandSpec spec) {
    return (CliContext) spec.root().userObject();
  }

  /** The settings flags as given on the command line. */
  Settings.Flags flags();

  /** The global options as given (after a console session's were applied). */
  GlobalOptions globals();

  /** Connections on demand. */
  ServiceFactory services();

  /** How a store is connected (for a command that opens one of its own) and who it is as. */
  FleetStores stores();

  /** Whether this command runs inside a console session. */
  boolean inConsole();

  /** The environment. */
  Environment env();

  /** The {@code -o} format, given before or after the command. */
  OutputFormat output();

  /** Whether -v was given. */
  boolean verbose();

  /** Colour, width and time formatting for this run. */
  Style style();

  /** New command lines of the whole program (the console's lines, {@code top}'s commands). */
  CommandLines commandLines();
}
