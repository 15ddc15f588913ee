package io.breakerctl.cli.output;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The output options every reading command takes (a picocli mixin). {@code -o} itself is a global
 * option of the root command ({@code breakerctl -o json status} and {@code breakerctl status -o
 * json} alike); this mixin reads it from there.
 */
public final class OutputOptions {

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(names = "--no-headers", description = "Print tables without the header line.")
  boolean noHeaders;

  /** The chosen format (the root command's {@code -o}). */
  public OutputFormat format() {
    Object value = mixee == null ? null : mixee.root().findOption("--output").getValue();
    return value == null ? OutputFormat.TABLE : (OutputFormat) value;
  }

  /** Whether to print table headers. */
  public boolean headers() {
    return !noHeaders;
  }
}
