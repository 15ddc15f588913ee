package io.breakerctl.runtime;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hides the secrets of connection URIs before they reach a message, a log or a screen: the password
 * of {@code redis://user:password@host}, the whole user info of {@code redis://password@host}
 * (Lettuce reads a user info without {@code :} as the password; up to the last {@code @}), in every
 * URI of a comma-separated list.
 */
public final class Redaction {
  private static final Pattern USER_INFO =
      Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)([^/?#\\s,]*)@");

  /** What a redacted secret shows as. */
  public static final String MASK = "***";

  private Redaction() {}

  /**
   * {@code uris} with every password replaced by {@link #MASK}, e.g. {@code
   * redis://viewer:***@redis:6379}; null stays null.
   */
  public static String uri(String uris) {
    if (uris == null) {
      return null;
    }
    Matcher m = USER_INFO.matcher(uris);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      String info = m.group(2);
      int colon = info.indexOf(':');
      String shown = colon < 0 ? MASK : info.substring(0, colon) + ":" + MASK;
      m.appendReplacement(b, Matcher.quoteReplacement(m.group(1) + shown + "@"));
    }
    m.appendTail(b);
    return b.toString();
  }

  /** Whether {@code uris} carries a password (or a user info Lettuce reads as one). */
  public static boolean hasSecret(String uris) {
    return uris != null && !uri(uris).equals(uris);
  }
}
