package io.breakerctl.runtime.control;

/** MongoDB did not answer within the configured timeout (down, unreachable or refusing). */
public final class ControlUnavailableException extends ControlException {

  /** An exception naming the operation and the server. */
  public ControlUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
