package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Durations;
import io.breakerctl.runtime.redis.OverrideKind;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code breakerctl force open|closed|disable|metrics-only|clear}: audited operator overrides. */
@Command(
    name = "force",
    description = {
      "Override breakers for the whole fleet, with a reason and an optional expiry; audited in"
          + " MongoDB (or, while MongoDB is down, in the breaker's event stream until the"
          + " fleet's history forwarder stores it).",
      "An exact id works even if no node has used the breaker yet; a glob, --caller or"
          + " --dependency selects existing breakers (none: exit 7). Asks for confirmation on a"
          + " terminal; otherwise --yes is required."
    },
    subcommands = {
      ForceCommand.Open.class,
      ForceCommand.Closed.class,
      ForceCommand.Disable.class,
      ForceCommand.MetricsOnly.class,
      ForceCommand.Clear.class
    })
public final class ForceCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new picocli.CommandLine.ParameterException(
        spec.commandLine(), "a subcommand is required: open, closed, disable, metrics-only, clear");
  }

  /**
   * One override action's outcome, for {@code -o json|yaml} ({@code kind: OverrideList}).
   *
   * @param id the breaker
   * @param previous the state in force before
   * @param state the state in force after (or that would be, on a dry run)
   * @param outcome SET, UPDATED, CLEARED, NOT_OVERRIDDEN (or WOULD_* on a dry run)
   * @param until the override's expiry, null until cleared
   * @param correlationId the audit record's id (empty on a dry run)
   * @param auditStored whether the audit record is in MongoDB
   * @param dryRun whether nothing was written
   */
  public record OverrideView(
      String id,
      String previous,
      String state,
      String outcome,
      String until,
      String correlationId,
      boolean auditStored,
      boolean dryRun) {}

  abstract static class TimedAction extends ForceAction {
    @Option(
        names = "--for",
        paramLabel = "DURATION",
        converter = Durations.class,
        description =
            "Expire the override after DURATION (more than 0), e.g. 30m (default: until cleared).")
    Duration forDuration;

    @Override
    Duration duration() {
      if (forDuration != null && forDuration.isZero()) {
        throw CliException.usage(
            "--for must be more than 0 (leave it out for an override until cleared)");
      }
      return forDuration == null ? Duration.ZERO : forDuration;
    }
  }

  @Command(name = "open", description = "Force OPEN: reject every call fleet-wide.")
  static final class Open extends TimedAction {
    @Override
    OverrideKind kind() {
      return OverrideKind.FORCED_OPEN;
    }
  }

  @Command(name = "closed", description = "Force CLOSED: admit every call; nothing trips.")
  static final class Closed extends TimedAction {
    @Override
    OverrideKind kind() {
      return OverrideKind.FORCED_CLOSED;
    }
  }

  @Command(name = "disable", description = "DISABLED: the breaker is off; nothing is counted.")
  static final class Disable extends TimedAction {
    @Override
    OverrideKind kind() {
      return OverrideKind.DISABLED;
    }
  }

  @Command(
      name = "metrics-only",
      description = "METRICS_ONLY: count outcomes but never trip or reject.")
  static final class MetricsOnly extends TimedAction {
    @Override
    OverrideKind kind() {
      return OverrideKind.METRICS_ONLY;
    }
  }

  @Command(
      name = "clear",
      description = "Remove the override; the machine resumes (exit 3 when there is none).")
  static final class Clear extends ForceAction {
    @Override
    OverrideKind kind() {
      return OverrideKind.CLEAR;
    }
  }
}
