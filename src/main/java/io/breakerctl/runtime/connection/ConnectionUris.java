package io.breakerctl.runtime.connection;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Connection URIs read the way the drivers read their user info: Lettuce ({@code RedisURI.create})
 * and the MongoDB driver ({@code ConnectionString}) take everything from {@code scheme://} to the
 * last {@code @} before the host part as the user info ({@code user:password}, or a password alone
 * for Lettuce), so a password may hold {@code , / # ? %} or a space. This class finds URIs in a
 * text (a setting, a list of cluster seeds, an error message), splits a comma-separated list and
 * says when a user info holds a character the drivers cannot take raw.
 *
 * <p>Where a text is ambiguous the reading that hides more wins: a URI with no {@code @} before the
 * next {@code scheme://} on its line is read together with that next URI when a later one has an
 * {@code @} (a password may contain {@code ,redis://}), and a user info ends at the last {@code @}
 * of its line segment, even when that {@code @} is in later text. After the first URI of a line
 * only a driver's scheme ({@code redis}, {@code rediss}, {@code redis-sentinel}, {@code mongodb},
 * ...) starts another: {@code X://} inside a password is user info, as the drivers read it. A line
 * break always ends a URI.
 */
public final class ConnectionUris {
  private static final Pattern SCHEME =
      Pattern.compile("(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://");

  private ConnectionUris() {}

  /**
   * One URI found in a text.
   *
   * @param start where its scheme starts
   * @param infoStart where its user info starts (just after {@code ://})
   * @param infoEnd where its user info ends (the {@code @}), or -1 when it has none
   * @param merged true when the user info spans what looked like several URIs: nothing of it is
   *     known to be a user name
   */
  public record Found(int start, int infoStart, int infoEnd, boolean merged) {
    /** Whether the URI has a user info (possibly empty: {@code redis://@host}). */
    public boolean hasUserInfo() {
      return infoEnd >= 0;
    }
  }

  /** Every URI in {@code text}, in order; none for null. */
  public static List<Found> find(String text) {
    List<Found> found = new ArrayList<>();
    if (text == null) {
      return found;
    }
    List<int[]> schemes = starts(text);
    int pending = -1;
    for (int i = 0; i < schemes.size(); i++) {
      int[] s = schemes.get(i);
      int lineEnd = lineEnd(text, s[1]);
      boolean nextOnLine = i + 1 < schemes.size() && schemes.get(i + 1)[0] < lineEnd;
      int end = nextOnLine ? schemes.get(i + 1)[0] : lineEnd;
      int at = text.lastIndexOf('@', end - 1);
      int first = pending >= 0 ? pending : i;
      if (at >= s[1]) {
        found.add(new Found(schemes.get(first)[0], schemes.get(first)[1], at, first != i));
        pending = -1;
      } else if (nextOnLine) {
        pending = first;
      } else {
        for (int j = first; j <= i; j++) {
          found.add(new Found(schemes.get(j)[0], schemes.get(j)[1], -1, false));
        }
        pending = -1;
      }
    }
    return found;
  }

  /**
   * A comma-separated list of URIs as its URIs: it splits only at a comma that a {@code scheme://}
   * follows, so a comma inside a password stays in its URI. A Sentinel URI is one URI (its commas
   * separate sentinels).
   */
  public static List<String> split(String uris) {
    List<String> out = new ArrayList<>();
    int from = 0;
    for (int[] m : starts(uris)) {
      int comma = m[0] - 1;
      while (comma > from && Character.isWhitespace(uris.charAt(comma))) {
        comma--;
      }
      if (m[0] > from && comma >= from && uris.charAt(comma) == ',') {
        out.add(uris.substring(from, comma));
        from = m[0];
      }
    }
    out.add(uris.substring(from));
    return out;
  }

  /** The schemes of the drivers: only these start a second URI on a line. */
  private static final java.util.Set<String> DRIVER_SCHEMES =
      java.util.Set.of(
          "redis",
          "rediss",
          "redis-sentinel",
          "rediss-sentinel",
          "redis-socket",
          "mongodb",
          "mongodb+srv");

  /**
   * Where URIs start in {@code text}: {@code {scheme start, user info start}} of each. The first
   * {@code scheme://} of a line starts a URI whatever its scheme (a mistyped one is still hidden);
   * after it, only a driver's scheme does: any other {@code word://} on the line is read as part of
   * the URI before it (a password may hold {@code @X://}, which the drivers read as user info), so
   * the reading hides more, never less.
   */
  private static List<int[]> starts(String text) {
    List<int[]> out = new ArrayList<>();
    Matcher m = SCHEME.matcher(text);
    int lineOfLast = -1;
    while (m.find()) {
      int line = lineStart(text, m.start());
      String scheme = text.substring(m.start(), m.end() - 3).toLowerCase(java.util.Locale.ROOT);
      if (line != lineOfLast || DRIVER_SCHEMES.contains(scheme)) {
        out.add(new int[] {m.start(), m.end()});
        lineOfLast = line;
      }
    }
    return out;
  }

  private static int lineStart(String text, int at) {
    for (int i = at - 1; i >= 0; i--) {
      char c = text.charAt(i);
      if (c == '\n' || c == '\r') {
        return i + 1;
      }
    }
    return 0;
  }

  /**
   * Null when the user info of {@code uri} (one URI) is one both drivers read as written, else why
   * not. Raw {@code / ? # @ %}, spaces and control characters must be percent-encoded ({@code %2F
   * %3F %23 %40 %25 %20}); Lettuce would otherwise read part of the password as the host and
   * connect there, and the drivers' errors would quote pieces of it. The reason never quotes the
   * user info.
   */
  public static String userInfoProblem(String uri) {
    for (Found f : find(uri)) {
      if (!f.hasUserInfo()) {
        continue;
      }
      String info = uri.substring(f.infoStart(), f.infoEnd());
      for (int i = 0; i < info.length(); i++) {
        char c = info.charAt(i);
        if (c == '%') {
          if (i + 2 >= info.length() || !hex(info.charAt(i + 1)) || !hex(info.charAt(i + 2))) {
            return "a % in its user info starts no %XX escape (write a % of the password as %25)";
          }
        } else if (!allowed(c)) {
          // (no at sign in the text: a redaction would read the message up to it as user info)
          return "its user info holds a character that must be percent-encoded: write"
              + " / ? # % a space and an at sign of the password as %2F %3F %23 %25 %20 %40";
        }
      }
    }
    return null;
  }

  private static boolean allowed(char c) {
    if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
      return true;
    }
    if ("-._~!$&'()*+,;=:".indexOf(c) >= 0) {
      return true;
    }
    return c > 0x7f
        && !Character.isISOControl(c)
        && !Character.isWhitespace(c)
        && !Character.isSpaceChar(c);
  }

  private static boolean hex(char c) {
    return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
  }

  private static int lineEnd(String text, int from) {
    for (int i = from; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n' || c == '\r') {
        return i;
      }
    }
    return text.length();
  }
}
