package io.breakerctl.runtime.store;

/**
 * A breaker's stored state cannot be read: a field of its state hash holds a value no script writes
 * ({@code openUntil=notanumber}, {@code state=BOGUS}), or one of its keys has the wrong type. The
 * message names the key and the field. Raised by the scripts (nothing was written) and by {@link
 * BreakerSnapshot#number}; not worth retrying until an operator repairs or deletes the keys.
 */
public final class MalformedBreakerException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public MalformedBreakerException(String message, Throwable cause) {
    super(message, cause);
  }
}
