package io.breakerctl.runtime.redis;

/** A failure talking to the shared store. Subclasses say whether it is worth retrying. */
public class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
