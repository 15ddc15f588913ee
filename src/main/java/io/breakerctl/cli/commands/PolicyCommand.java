package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliException;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.control.policy.PolicyOrigin;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code breakerctl policy ...}: versioned breaker policies in the MongoDB control plane. */
@Command(
    name = "policy",
    description = {
      "Versioned breaker policies: validate files offline, apply them with a field-level diff"
          + " (--prune also deletes the policies no file holds), read versions and their history,"
          + " diff and roll back.",
      "Every change is a new immutable version (author, approver, reason, correlation id) and an"
          + " audit record, warmed into the Redis keys of every breaker it governs; running nodes"
          + " adopt it without restart. Applying an unchanged spec creates no version."
    },
    subcommands = {
      PolicyValidateCommand.class,
      PolicyApplyCommand.class,
      PolicyGetCommand.class,
      PolicyListCommand.class,
      PolicyHistoryCommand.class,
      PolicyDiffCommand.class,
      PolicyRollbackCommand.class,
      PolicyWarmCommand.class
    })
public final class PolicyCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(
        spec.commandLine(),
        "a subcommand is required: validate, apply, get, list, history, diff, rollback");
  }

  /** Parses a policy id argument (exit 2 naming the rule it breaks). */
  static PolicyId policyId(String text) {
    try {
      return PolicyId.parse(text);
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    }
  }

  /** Parses {@code policy apply --origin}: ci:COMMIT or hand (default); exit 2 otherwise. */
  static PolicyOrigin applyOrigin(String text) {
    if (text == null) {
      return PolicyOrigin.HAND;
    }
    PolicyOrigin o;
    try {
      o = PolicyOrigin.parse(text);
    } catch (IllegalArgumentException e) {
      throw CliException.usage("--origin: " + e.getMessage());
    }
    if (o.kind() != PolicyOrigin.Kind.CI && o.kind() != PolicyOrigin.Kind.HAND) {
      throw CliException.usage("--origin must be ci:COMMIT or hand but was '" + text + "'");
    }
    return o;
  }
}
