package io.breakerctl.cli;

import io.breakerctl.cli.output.OutputFormat;

/**
 * The global options of one run as given on its command line, before or after the command: what a
 * console session (and {@code top} inside it) starts each of its lines from. A line's own option
 * wins for that line only; a line's {@code --context} (like {@code use CONTEXT} for the session)
 * leaves the session's target options out, so that line runs as {@code breakerctl --context NAME}
 * would. {@code --no-color} and {@code -v} have no negation: given to the console, they hold for
 * every line.
 *
 * @param flags the settings flags (null fields: not given)
 * @param output the {@code -o} format
 * @param noColor whether {@code --no-color} was given
 * @param verbose whether {@code -v} was given
 */
public record GlobalOptions(
    Settings.Flags flags, OutputFormat output, boolean noColor, boolean verbose) {

  /** These options on context {@code name}: see {@link Settings.Flags#inContext}. */
  public GlobalOptions inContext(String name) {
    return new GlobalOptions(flags.inContext(name), output, noColor, verbose);
  }
}
