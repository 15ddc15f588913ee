package io.breakerctl.cli;

/**
 * A console session: the connections kept open across its commands and the global options each of
 * its commands starts from.
 */
public interface Sessions {
  /** The services for a command run with these flags in this environment (kept open). */
  ServiceFactory services(Settings.Flags flags, Environment env);

  /**
   * The global options every command of the session starts from (those the console was started
   * with, or the context {@code use} switched to); null: none.
   */
  default GlobalOptions options() {
    return null;
  }
}
