package io.breakerctl.cli;

import io.breakerctl.runtime.connection.ConnectionUris;
import io.breakerctl.runtime.connection.Redaction;
import java.util.List;
import java.util.Locale;

/**
 * Checks the Redis URIs breakerctl is given before anything connects: a scheme it supports, a host,
 * a port of 1-65535. Messages show the URI with its password hidden.
 */
public final class RedisUris {
  private static final List<String> SCHEMES =
      List.of("redis", "rediss", "redis-sentinel", "rediss-sentinel");

  private RedisUris() {}

  /**
   * Throws a usage error naming {@code what} (e.g. {@code --redis}) when {@code value} is not one
   * Redis URI, a Sentinel URI or comma-separated Cluster seed URIs.
   */
  public static void check(String what, String value) {
    if (value == null || value.isBlank()) {
      throw CliException.usage(what + " must not be empty");
    }
    String shown = Inputs.cut(Redaction.uri(value));
    // a value with a password never has a piece of itself quoted: a misread user info would show
    boolean secret = Redaction.hasSecret(value);
    List<String> uris =
        value.startsWith("redis-sentinel") || value.startsWith("rediss-sentinel")
            ? List.of(value)
            : ConnectionUris.split(value);
    for (String uri : uris) {
      String problem = problem(uri.trim(), secret);
      if (problem != null) {
        throw CliException.usage(what + " '" + shown + "': " + problem);
      }
    }
  }

  private static String problem(String uri, boolean secret) {
    int s = uri.indexOf("://");
    if (s <= 0) {
      return (uri.isEmpty() ? "an empty URI" : quoted(uri, secret).strip())
          + " is not a Redis URI (expected redis://HOST:PORT, rediss://HOST:PORT or"
          + " redis-sentinel://HOST:PORT[,HOST:PORT]?sentinelMasterId=NAME)";
    }
    String userInfo = ConnectionUris.userInfoProblem(uri);
    if (userInfo != null) {
      return userInfo
          + " (or leave the password out of the URI: --redis-password-file FILE or"
          + " BREAKERCTL_REDIS_PASSWORD)";
    }
    String scheme = uri.substring(0, s).toLowerCase(Locale.ROOT);
    if (scheme.contains("socket")) {
      return "Unix socket URIs (" + scheme + "://) are not supported; use redis://HOST:PORT";
    }
    if (!SCHEMES.contains(scheme)) {
      return "unsupported scheme"
          + quoted(scheme + "://", secret)
          + " (use "
          + String.join("://, ", SCHEMES)
          + "://)";
    }
    String rest = uri.substring(s + 3);
    // the user info runs to the last @ (ConnectionUris): the host part follows it
    rest = rest.substring(rest.lastIndexOf('@') + 1);
    int end = indexOfAny(rest, "/?#");
    String authority = end < 0 ? rest : rest.substring(0, end);
    boolean sentinel = scheme.endsWith("sentinel");
    if (!sentinel && authority.contains(",")) {
      return quoted(authority.substring(authority.indexOf(',') + 1), secret).strip()
          + " is not a Redis URI (give every seed node as redis://HOST:PORT, comma-separated)";
    }
    for (String hostPort : sentinel ? authority.split(",", -1) : new String[] {authority}) {
      String p = hostPort(hostPort, secret);
      if (p != null) {
        return p;
      }
    }
    if (sentinel && !rest.contains("sentinelMasterId=")) {
      return "a Sentinel URI needs ?sentinelMasterId=NAME (the master the sentinels watch)";
    }
    return null;
  }

  private static String hostPort(String hostPort, boolean secret) {
    String host;
    String port = null;
    if (hostPort.startsWith("[")) {
      int close = hostPort.indexOf(']');
      if (close < 0) {
        return "IPv6 address" + quoted(hostPort, secret) + " has no closing ']'";
      }
      host = hostPort.substring(1, close);
      String after = hostPort.substring(close + 1);
      if (!after.isEmpty()) {
        if (!after.startsWith(":")) {
          return "unexpected" + quoted(after, secret) + " after the IPv6 address";
        }
        port = after.substring(1);
      }
    } else {
      int colon = hostPort.lastIndexOf(':');
      host = colon < 0 ? hostPort : hostPort.substring(0, colon);
      port = colon < 0 ? null : hostPort.substring(colon + 1);
    }
    if (host.isEmpty()) {
      return "no host";
    }
    if (port != null && !port.matches("\\d{1,5}")
        || port != null && (Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535)) {
      return "port" + quoted(port, secret) + " must be a number from 1 to 65535";
    }
    return null;
  }

  /** {@code " 'piece'"}, or nothing when the value carries a secret. */
  private static String quoted(String piece, boolean secret) {
    return secret ? "" : " '" + Inputs.cut(piece) + "'";
  }

  private static int indexOfAny(String s, String chars) {
    for (int i = 0; i < s.length(); i++) {
      if (chars.indexOf(s.charAt(i)) >= 0) {
        return i;
      }
    }
    return -1;
  }
}
