package io.breakerctl.runtime.connection;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

/**
 * Hides the secrets of connection URIs before they reach a message, a log or a screen: the one
 * redaction every place that shows a URI, a connection string or a message that may hold one goes
 * through. URIs are found as {@link ConnectionUris} reads them, the way Lettuce and the MongoDB
 * driver do: the user info runs from {@code scheme://} to the last {@code @} before the host part,
 * so a password holding {@code , / # ?}, a space or percent escapes is hidden whole, in every URI
 * of a comma-separated list (cluster seeds, MongoDB hosts). The password of {@code
 * redis://user:password@host} is hidden, the whole user info of {@code redis://password@host}
 * (Lettuce reads a user info without {@code :} as the password). Over-masking is accepted, never a
 * leak: where the text is ambiguous more is hidden (see {@link ConnectionUris}).
 */
public final class Redaction {

  /** What a redacted secret shows as. */
  public static final String MASK = "***";

  private Redaction() {}

  /**
   * {@code text} with every password replaced by {@link #MASK}, e.g. {@code
   * redis://viewer:***@redis:6379}; null stays null. {@code text} may be one URI, a list of them or
   * any message quoting them.
   */
  public static String uri(String text) {
    if (text == null) {
      return null;
    }
    List<ConnectionUris.Found> found = ConnectionUris.find(text);
    StringBuilder b = new StringBuilder(text.length());
    int copied = 0;
    for (ConnectionUris.Found f : found) {
      if (!f.hasUserInfo()) {
        continue;
      }
      String info = text.substring(f.infoStart(), f.infoEnd());
      int colon = info.indexOf(':');
      b.append(text, copied, f.infoStart());
      b.append(f.merged() || colon < 0 ? MASK : info.substring(0, colon) + ":" + MASK);
      copied = f.infoEnd();
    }
    b.append(text, copied, text.length());
    return b.toString();
  }

  /** Whether {@code uris} carries a password (or a user info Lettuce reads as one). */
  public static boolean hasSecret(String uris) {
    return ConnectionUris.find(uris).stream().anyMatch(ConnectionUris.Found::hasUserInfo);
  }

  /**
   * The stack trace of {@code t} as {@link Throwable#printStackTrace()} writes it, with every
   * message {@link #uri redacted}: an exception of a URI parser quotes the URI it refused.
   */
  public static String trace(Throwable t) {
    StringWriter w = new StringWriter();
    t.printStackTrace(new PrintWriter(w));
    return uri(w.toString());
  }
}
