package io.breakerctl.cli.commands;

import io.breakerctl.cli.ExitCode;
import java.util.LinkedHashMap;
import java.util.Map;

/** The text of {@code help exit-codes} and {@code help environment}, shared with the man pages. */
public final class HelpTopics {
  private HelpTopics() {}

  /** Every environment variable breakerctl reads, and what for. */
  public static Map<String, String> environment() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("BREAKERCTL_CONTEXT", "Context to use instead of the config file's current-context.");
    m.put("BREAKERCTL_REDIS", "Redis URI(s), as --redis (set but empty: exit 2, never localhost).");
    m.put("BREAKERCTL_MONGO", "MongoDB URI, as --mongo (set but empty: exit 2, never localhost).");
    m.put("BREAKERCTL_PREFIX", "Redis key prefix, as --prefix (default cb).");
    m.put("BREAKERCTL_TIMEOUT", "Bound of every backend call, as --timeout (default 5s).");
    m.put(
        "BREAKERCTL_REDIS_USER",
        "Redis ACL user, as --redis-user (without a password: exit 4, never the default user).");
    m.put(
        "BREAKERCTL_REDIS_PASSWORD",
        "Redis password; set but empty is an empty password (never pass secrets as flags).");
    m.put("BREAKERCTL_REDIS_PASSWORD_FILE", "File holding the Redis password.");
    m.put("BREAKERCTL_REDIS_CA_FILE", "PEM CA certificates trusted for rediss://.");
    m.put(
        "BREAKERCTL_MIN_REPLICAS",
        "Default of force --min-replicas: the replicas an override must reach (default 0).");
    m.put(
        "BREAKERCTL_CONFIG",
        "The config file (default $XDG_CONFIG_HOME/breakerctl/config.yaml, else"
            + " ~/.config/breakerctl/config.yaml).");
    m.put(
        "XDG_STATE_HOME",
        "Base of the sandbox directory: $XDG_STATE_HOME/breakerctl/sandbox (default"
            + " ~/.local/state/breakerctl/sandbox).");
    m.put("NO_COLOR", "When set, no colour (colour is only ever used on a terminal).");
    m.put("COLUMNS", "Width tables are fitted to on a terminal.");
    m.put("BREAKERCTL_JAVA_OPTS", "Extra JVM flags for the launcher scripts.");
    m.put(
        "BREAKERCTL_RECONNECT_LOG_LIMIT",
        "Lettuce reconnect log lines kept per logger and window: N or N/DURATION (default 5/1m), off: all.");
    m.put("JAVA_HOME", "The java the launcher scripts run (default: java on PATH).");
    return m;
  }

  /** {@code help exit-codes}. */
  public static String exitCodes() {
    StringBuilder b = new StringBuilder("Exit codes of every breakerctl command:\n\n");
    ExitCode.helpList().forEach((k, v) -> b.append(String.format("  %-3s %s%n", k, v)));
    return b.toString();
  }

  /** {@code help environment}. */
  public static String environmentText() {
    StringBuilder b =
        new StringBuilder(
            "Settings resolve flag > environment > config file context > default.\n\n");
    environment().forEach((k, v) -> b.append(String.format("  %-31s %s%n", k, v)));
    return b.toString();
  }
}
