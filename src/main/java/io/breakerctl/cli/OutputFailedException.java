package io.breakerctl.cli;

/**
 * Stdout can no longer be written (the command stops at once): a closed pipe ends it quietly with
 * the command's own exit code; any other write failure is exit 8 with this message.
 */
public final class OutputFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public OutputFailedException() {
    super("cannot write to stdout");
  }

  /**
   * Throws when {@code out} has failed (checking flushes it): call between renders and every few
   * hundred rows of a long listing, not per row.
   */
  public static void check(java.io.PrintWriter out) {
    if (out.checkError()) {
      throw new OutputFailedException();
    }
  }
}
