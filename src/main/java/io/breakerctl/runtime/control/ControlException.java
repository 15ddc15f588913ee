package io.breakerctl.runtime.control;

/** A control plane (MongoDB) operation failed; the message names the operation. */
public class ControlException extends RuntimeException {

  /** An exception with a message and cause. */
  public ControlException(String message, Throwable cause) {
    super(message, cause);
  }

  /** An exception with a message. */
  public ControlException(String message) {
    super(message);
  }
}
