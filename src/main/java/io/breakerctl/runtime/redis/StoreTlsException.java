package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StoreUnavailableException;

/**
 * A TLS connection to Redis failed for a named reason ({@link #failure()}): an untrusted
 * certificate, a hostname mismatch, an expired certificate, a plain server behind {@code
 * rediss://}. Redis is unavailable to this client ({@link StoreFault#UNREACHABLE}) until the
 * configuration changes; the message says what to change, not "unable to connect".
 */
public class StoreTlsException extends StoreUnavailableException {
  private static final long serialVersionUID = 1L;

  private final TlsFailure failure;

  /** Creates the exception. */
  public StoreTlsException(String message, Throwable cause, TlsFailure failure) {
    super(message, cause, StoreFault.UNREACHABLE);
    this.failure = failure;
  }

  /** Why the connection failed. */
  public TlsFailure failure() {
    return failure;
  }
}
