package io.breakerctl.runtime.model;

import java.util.Locale;

/**
 * Who wrote an override, a note, a policy version or an audit record: the identity the writer
 * authenticated as (the Redis ACL user the CLI connected as, or the MongoDB user where that is the
 * authenticated one), with the OS user and host beside it, e.g. {@code operator(alice@ci-7)}. The
 * identity comes first because it is what the servers checked; the OS user and host say which
 * person and machine used it. No space: a table's actor column stays one word for {@code awk}. Free
 * text ({@code --approved-by}) is recorded apart and never replaces it.
 */
public final class Actor {
  private Actor() {}

  /**
   * The actor for {@code identity} used by {@code osUser} on {@code host}, within {@link
   * OperatorText#MAX_ACTOR_BYTES} (a long host name is cut first).
   */
  public static String of(String identity, String osUser, String host) {
    String who = identity + "(" + osUser + "@";
    String h = host;
    while (!h.isEmpty() && bytes(who + h + ")") > OperatorText.MAX_ACTOR_BYTES) {
      h = h.substring(0, h.length() - 1);
    }
    return who + h + ")";
  }

  /** The identity part of {@code actor} (all of it for an actor recorded without one). */
  public static String identity(String actor) {
    int open = actor.lastIndexOf('(');
    return open <= 0 || !actor.endsWith(")") ? actor : actor.substring(0, open);
  }

  /**
   * Whether {@code actor} is the one {@code query} names: the whole actor, its identity or its OS
   * user ({@code history --actor operator}, {@code --actor alice}).
   */
  public static boolean matches(String actor, String query) {
    if (actor == null || query == null) {
      return false;
    }
    if (actor.equals(query) || identity(actor).equals(query)) {
      return true;
    }
    int open = actor.lastIndexOf('(');
    int at = actor.lastIndexOf('@');
    return open > 0
        && at > open
        && actor.endsWith(")")
        && actor.substring(open + 1, at).equals(query);
  }

  private static int bytes(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
  }

  /** {@code host} as shown in an actor: lower case, no domain. */
  public static String shortHost(String host) {
    String h = host == null || host.isBlank() ? "unknown" : host.trim();
    int dot = h.indexOf('.');
    return (dot > 0 && !Character.isDigit(h.charAt(0)) ? h.substring(0, dot) : h)
        .toLowerCase(Locale.ROOT);
  }
}
