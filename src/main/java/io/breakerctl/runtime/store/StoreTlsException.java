package io.breakerctl.runtime.store;

/**
 * A TLS connection to Redis failed for a named reason ({@link #failure()}): an untrusted
 * certificate, a hostname mismatch, an expired certificate, a plain server behind {@code
 * rediss://}. Redis is unavailable to this client ({@link StoreFault#UNREACHABLE}) until the
 * configuration changes; the message says what to change, not "unable to connect". The kind is the
 * store contract's, so a caller (the CLI's error policy) tells the causes apart by type, never by
 * the adapter's classes or the message.
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
