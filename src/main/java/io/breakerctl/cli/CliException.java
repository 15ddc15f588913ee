package io.breakerctl.cli;

/** A failure the user can act on, carrying the exit code it maps to. */
public final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int exitCode;

  private CliException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  /** The exit code. */
  public int exitCode() {
    return exitCode;
  }

  /** Exit 2: a usage or validation error. */
  public static CliException usage(String message) {
    return new CliException(ExitCode.USAGE, message);
  }

  /** Exit 3: a conflict or a rejected change. */
  public static CliException conflict(String message) {
    return new CliException(ExitCode.CONFLICT, message);
  }

  /** Exit 4: authentication or authorization. */
  public static CliException permission(String message) {
    return new CliException(ExitCode.PERMISSION, message);
  }

  /** Exit 5: the user declined or interrupted. */
  public static CliException cancelled(String message) {
    return new CliException(ExitCode.CANCELLED, message);
  }

  /** Exit 6: a server the command needs did not answer. */
  public static CliException unavailable(String message) {
    return new CliException(ExitCode.UNAVAILABLE, message);
  }

  /** Exit 7: nothing matched. */
  public static CliException notFound(String message) {
    return new CliException(ExitCode.NOT_FOUND, message);
  }
}
