package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.runtime.control.policy.FallbackAcceptance;
import io.breakerctl.runtime.control.policy.PolicyDocument;
import io.breakerctl.runtime.control.policy.PolicyId;
import java.io.PrintWriter;
import java.util.Collection;
import java.util.Set;

/**
 * The fleet check of {@code policy validate --fleet} and {@code policy apply}: a warning on stderr
 * for each live node whose call sites do not accept the fallback a policy names ({@link
 * FallbackAcceptance}); with {@code --strict} a refusal (exit 2, before anything is written).
 */
final class PolicyAcceptance {
  private PolicyAcceptance() {}

  /**
   * Checks {@code policies} (and {@code removed}, policies being deleted) against the live nodes'
   * reports; prints what it found on {@code err}.
   *
   * @param refused what a refusal means for the command ("nothing was applied")
   * @throws CliException exit 2 when {@code strict} and a node refuses; exit 6 when {@code strict}
   *     and part of the fleet could not be read
   */
  static void check(
      CliContext root,
      Collection<PolicyDocument> policies,
      Set<PolicyId> removed,
      boolean strict,
      PrintWriter err,
      String refused) {
    FallbackAcceptance.Check check;
    try {
      check =
          FallbackAcceptance.check(
              root.services().redis(), root.services().settings().timeout(), policies, removed);
    } catch (RuntimeException e) {
      if (strict) {
        throw e;
      }
      err.println(
          "warning: the live nodes' accepted fallbacks were not checked: "
              + Printable.escape(String.valueOf(e.getMessage())));
      err.flush();
      return;
    }
    for (FallbackAcceptance.Refusal r : check.refusals()) {
      err.println("warning: " + Printable.escape(r.describe()));
    }
    for (String u : check.unread()) {
      err.println(
          "warning: accepted fallbacks not read (" + Printable.escape(u) + "): not checked there");
    }
    err.flush();
    if (strict && !check.refusals().isEmpty()) {
      throw CliException.usage(
          check.refusals().size()
              + " live node report(s) refuse the fallback a policy names (--strict): "
              + refused);
    }
    if (strict && !check.unread().isEmpty()) {
      throw CliException.unavailable(
          "part of the fleet could not be read, so --strict cannot tell that every live node"
              + " accepts the fallback the policies name: "
              + refused);
    }
  }
}
