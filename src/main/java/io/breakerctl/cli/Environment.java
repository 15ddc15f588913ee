package io.breakerctl.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;

/**
 * What a command may learn about its surroundings: environment variables, whether stdin and stdout
 * are a terminal, the clock, stdin and the user. Tests pass their own.
 *
 * @param variables the environment ({@code BREAKERCTL_*}, {@code NO_COLOR}, {@code COLUMNS}, XDG)
 * @param interactive whether stdin and stdout are both a terminal
 * @param clock the local clock (relative times, clock skew)
 * @param stdin where prompts read answers
 * @param user who acts (audited as the actor of overrides)
 */
public record Environment(
    Map<String, String> variables,
    boolean interactive,
    Clock clock,
    BufferedReader stdin,
    String user) {

  /** The real process environment. */
  public static Environment system() {
    String user = System.getenv().getOrDefault("USER", System.getProperty("user.name", "unknown"));
    return new Environment(
        System.getenv(),
        System.console() != null,
        Clock.systemUTC(),
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)),
        user);
  }

  /** A variable, or null when unset or empty. */
  public String get(String name) {
    String v = variables.get(name);
    return v == null || v.isEmpty() ? null : v;
  }

  /**
   * Where breakerctl keeps its state (the sandbox, the audit spool): {@code
   * $XDG_STATE_HOME/breakerctl}, else {@code $HOME/.local/state/breakerctl} (an empty or blank
   * variable counts as unset, as the XDG specification says).
   */
  public java.nio.file.Path stateHome() {
    String state = get("XDG_STATE_HOME");
    if (state != null && !state.isBlank()) {
      return java.nio.file.Path.of(state, "breakerctl");
    }
    String home = get("HOME");
    return java.nio.file.Path.of(
        home != null ? home : System.getProperty("user.home"), ".local", "state", "breakerctl");
  }
}
