package io.breakerctl.runtime.store;

/**
 * Redis could not be reached, did not answer within the configured timeout, or answered that it
 * cannot do the work now ({@code -OOM}, {@code -READONLY}, {@code -LOADING}, {@code -BUSY}, {@code
 * -MASTERDOWN}, {@code -CLUSTERDOWN}, {@code -TRYAGAIN}, a script's runtime error): {@link
 * #fault()} says which.
 */
public class StoreUnavailableException extends StoreException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception: {@link StoreFault#TIMEOUT} when the cause is a timeout, else {@link
   * StoreFault#UNREACHABLE}.
   */
  public StoreUnavailableException(String message, Throwable cause) {
    this(message, cause, timeout(cause) ? StoreFault.TIMEOUT : StoreFault.UNREACHABLE);
  }

  /** Creates the exception with its fault. */
  public StoreUnavailableException(String message, Throwable cause, StoreFault fault) {
    super(message, cause, fault);
  }

  private static boolean timeout(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof java.util.concurrent.TimeoutException) {
        return true;
      }
    }
    return false;
  }
}
