package io.breakerctl.cli;

import io.breakerctl.runtime.model.OperatorText;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;

/**
 * The confirmation every mutation asks for: a prompt on stderr when stdin and stdout are a
 * terminal, else {@code --yes} is required (exit 2 without it, nothing written); a declined prompt
 * is exit 5.
 */
public final class Confirmation {
  private static final int SHOWN = 50;

  private Confirmation() {}

  /**
   * Asks, unless {@code yes}.
   *
   * @param change what would be done, e.g. {@code Force FORCED_OPEN (reason: deploy)}
   * @param noun what the items are, for the refusal, e.g. {@code breaker(s)}
   * @param items the targets, listed under the question (the first 50)
   * @throws CliException usage when not interactive, cancelled when declined
   */
  public static void confirm(
      CliContext root, boolean yes, PrintWriter err, String change, String noun, List<String> items)
      throws IOException {
    if (yes) {
      return;
    }
    if (!root.env().interactive()) {
      throw CliException.usage(
          "refusing to change "
              + items.size()
              + " "
              + noun
              + " without confirmation: stdin or stdout is not a terminal; pass --yes (or"
              + " --dry-run to see the change)");
    }
    err.println(change + " on " + items.size() + " " + noun + ":");
    items.stream().limit(SHOWN).forEach(i -> err.println("  " + i));
    if (items.size() > SHOWN) {
      err.println("  ... and " + (items.size() - SHOWN) + " more");
    }
    err.print("Continue? [y/N] ");
    err.flush();
    String answer = root.env().stdin().readLine();
    if (answer == null || !(answer.trim().equalsIgnoreCase("y") || answer.trim().equals("yes"))) {
      throw CliException.cancelled("cancelled: nothing was changed");
    }
  }

  /**
   * Checks text that reaches other operators' screens (a reason, a note, the actor).
   *
   * @throws CliException usage naming {@code what} and the problem
   */
  public static void checkText(String what, String text, int maxBytes) {
    OperatorText.problem(text, maxBytes)
        .ifPresent(
            p -> {
              throw CliException.usage(what + " " + p);
            });
  }
}
