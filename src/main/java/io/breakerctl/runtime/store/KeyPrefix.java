package io.breakerctl.runtime.store;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The rule of the prefix every shared key and channel of a fleet starts with (the store contract's,
 * so the registry's builder, the CLI's settings and the Redis adapter check it the same way).
 */
public final class KeyPrefix {
  /** The default prefix. */
  public static final String DEFAULT = "cb";

  private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,31}");

  private KeyPrefix() {}

  /**
   * {@code prefix}, checked.
   *
   * @throws IllegalArgumentException when the prefix is not 1-32 of {@code [A-Za-z0-9._-]}
   */
  public static String check(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    if (!PREFIX.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "prefix must be 1-32 characters of [A-Za-z0-9._-] but was '" + prefix + "'");
    }
    return prefix;
  }
}
