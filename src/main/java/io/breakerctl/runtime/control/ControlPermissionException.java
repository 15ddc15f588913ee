package io.breakerctl.runtime.control;

/**
 * MongoDB refused the credentials or the authenticated user may not do what was asked ({@code
 * Unauthorized}, code 13), or the user's privileges, read before a write, lack an action the write
 * needs. The CLI exits 4.
 */
public final class ControlPermissionException extends ControlException {

  /** An exception naming the operation and what is missing. */
  public ControlPermissionException(String message, Throwable cause) {
    super(message, cause);
  }
}
