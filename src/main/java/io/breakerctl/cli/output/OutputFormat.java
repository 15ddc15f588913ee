package io.breakerctl.cli.output;

/** The output formats of {@code -o}. */
public enum OutputFormat {
  /** A table fitted to the terminal. */
  TABLE,
  /** The table with more columns. */
  WIDE,
  /** One versioned JSON document. */
  JSON,
  /** One versioned YAML document. */
  YAML,
  /** One JSON object a line (streams). */
  JSONL,
  /** Only the names (breaker ids), one a line. */
  NAME;

  /** Whether this is a human-readable table. */
  public boolean isTable() {
    return this == TABLE || this == WIDE;
  }
}
