package io.breakerctl.runtime.redis;

/** Redis refused the credentials or the ACL user lacks a permission (NOPERM, WRONGPASS). */
public class StorePermissionException extends StoreException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public StorePermissionException(String message, Throwable cause) {
    super(message, cause);
  }
}
