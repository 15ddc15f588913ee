package io.breakerctl.runtime.redis;

/** Redis could not be reached or did not answer within the configured timeout. */
public class StoreUnavailableException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
