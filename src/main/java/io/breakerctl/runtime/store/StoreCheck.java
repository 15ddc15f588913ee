package io.breakerctl.runtime.store;

/**
 * One health check of a store and its fleet, as {@code breakerctl doctor} prints it ({@link
 * FleetStore#diagnose}, {@link FleetStore#nodeChecks}).
 *
 * @param check what was checked
 * @param status ok, warn or fail
 * @param detail what was found
 */
public record StoreCheck(String check, Status status, String detail) {

  /** How a check came out. */
  public enum Status {
    OK,
    WARN,
    FAIL;

    /** The lower-case word printed in the STATUS column. */
    public String word() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }
}
