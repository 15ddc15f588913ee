package io.breakerctl.cli.output;

import picocli.CommandLine.Option;

/** The output options every reading command takes (a picocli mixin). */
public final class OutputOptions {

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description =
          "Output format: ${COMPLETION-CANDIDATES} (default: table). json and yaml are one"
              + " versioned document; jsonl is one object a line.")
  OutputFormat format = OutputFormat.TABLE;

  @Option(names = "--no-headers", description = "Print tables without the header line.")
  boolean noHeaders;

  /** The chosen format. */
  public OutputFormat format() {
    return format;
  }

  /** Whether to print table headers. */
  public boolean headers() {
    return !noHeaders;
  }
}
