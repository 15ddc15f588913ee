package io.breakerctl.cli;

import picocli.CommandLine.Option;

/** The options every mutation takes (a picocli mixin). */
public final class MutationOptions {

  @Option(
      names = "--dry-run",
      description =
          "Show what would change and write nothing (exit 0, or 3 when it would be rejected).")
  boolean dryRun;

  @Option(
      names = {"-y", "--yes"},
      description =
          "Do not ask for confirmation (required when stdin or stdout is not a terminal).")
  boolean yes;

  /** Whether --dry-run was given. */
  public boolean dryRun() {
    return dryRun;
  }

  /** Whether --yes was given. */
  public boolean yes() {
    return yes;
  }
}
