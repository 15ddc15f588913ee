package io.breakerctl.runtime.store;

/**
 * A failure talking to the shared store. Subclasses say whether it is worth retrying; {@link
 * #fault()} says why, typed, for the node's guard, its report and the CLI.
 */
public class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final StoreFault fault;

  /** Creates the exception ({@link StoreFault#OTHER}). */
  public StoreException(String message, Throwable cause) {
    this(message, cause, StoreFault.OTHER);
  }

  /** Creates the exception with its fault. */
  public StoreException(String message, Throwable cause, StoreFault fault) {
    super(message, cause);
    this.fault = fault;
  }

  /** Why the store failed. */
  public StoreFault fault() {
    return fault;
  }
}
