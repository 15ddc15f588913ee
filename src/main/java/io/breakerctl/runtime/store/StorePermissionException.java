package io.breakerctl.runtime.store;

/**
 * Redis refused the credentials ({@link StoreFault#AUTH}: WRONGPASS, NOAUTH) or the ACL user lacks
 * a permission ({@link StoreFault#NOPERM}).
 */
public class StorePermissionException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception ({@link StoreFault#NOPERM}). */
  public StorePermissionException(String message, Throwable cause) {
    this(message, cause, StoreFault.NOPERM);
  }

  /** Creates the exception with its fault. */
  public StorePermissionException(String message, Throwable cause, StoreFault fault) {
    super(message, cause, fault);
  }
}
