package io.breakerctl.cli.commands;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Durations;
import io.breakerctl.runtime.model.OverrideKind;
import io.breakerctl.runtime.store.ReplicaAcks;
import java.time.Duration;
import java.util.Comparator;
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
      "An exact id must be known (keys in Redis, or a policy, note or history in MongoDB);"
          + " one no node has used yet needs --new (else exit 7, naming the nearest known ids,"
          + " as for a typo); a glob, --caller or --dependency selects existing breakers (none:"
          + " exit 7); a glob that cannot read part of the keyspace (a Cluster master down)"
          + " changes the breakers it found, names the slots and node not read and exits 6."
          + " Asks for confirmation on a"
          + " terminal; otherwise --yes is required.",
      "A change that fails part-way lists every breaker as applied, unchanged, failed or"
          + " notAttempted, says so on stderr and exits with the failure's code; running the same"
          + " command again completes it (a breaker already forced the same way by the same actor"
          + " with the same reason is left as it is: unchanged, its expiry too). With MongoDB"
          + " down the audit of every change rides in the breakers' event streams (one warning).",
      "When the connection fails during a change (a timeout, a lost connection), the command"
          + " reads back from Redis, by the change's correlation id, whether it landed: landed is"
          + " a success with a note on stderr; not landed exits 1 (nothing written; running it"
          + " again is safe); Redis not answering the read-back either exits 6 naming the"
          + " correlation id (history or describe shows whether it landed). The row's outcome"
          + " (-o json: outcome, readBack) says which.",
      "Undo: 'breakerctl force clear ID|GLOB --reason TEXT' (a forced breaker stays forced until"
          + " cleared or its --for expires); after a change the command prints its undo (after the table; on"
          + " stderr with -o json, yaml, jsonl or name)."
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
   * @param previous the state in force before ("-" when unknown)
   * @param state the state in force after (or that would be, on a dry run; "-" when unknown)
   * @param outcome SET, UPDATED, CLEARED, NOT_OVERRIDDEN, UNCHANGED, FAILED, NOT_ATTEMPTED, and
   *     after a lost answer NOT_APPLIED or UNKNOWN (or WOULD_SET, WOULD_UPDATE, WOULD_CLEAR,
   *     WOULD_FAIL on a dry run)
   * @param until the override's expiry (RFC 3339 UTC, Redis time), null until cleared
   * @param correlationId the audit record's id (empty on a dry run and when nothing was written)
   * @param auditStored whether the audit record is in MongoDB
   * @param dryRun whether nothing was written
   * @param result what happened to this breaker: applied, unchanged, failed or notAttempted (a
   *     partial change lists every breaker); null on a dry run
   * @param error why it failed, only then
   * @param readBack when the override script's answer was lost (a timeout, a failed connection):
   *     what reading Redis back by the correlation id found, APPLIED, NOT_APPLIED or UNKNOWN; null
   *     otherwise
   * @param replication where the change is, for a breaker this command wrote: how many of its
   *     master's replicas acknowledged it ({@code WAIT}); null for a row not written (unchanged,
   *     failed, not attempted, a dry run) or whose answer was read back
   */
  @JsonPropertyOrder({
    "id",
    "previous",
    "state",
    "outcome",
    "until",
    "correlationId",
    "auditStored",
    "dryRun",
    "result",
    "error",
    "readBack",
    "replication"
  })
  public record OverrideView(
      String id,
      String previous,
      String state,
      String outcome,
      String until,
      String correlationId,
      boolean auditStored,
      boolean dryRun,
      @JsonInclude(JsonInclude.Include.NON_NULL) String result,
      @JsonInclude(JsonInclude.Include.NON_NULL) String error,
      @JsonInclude(JsonInclude.Include.NON_NULL) String readBack,
      @JsonInclude(JsonInclude.Include.NON_NULL) ReplicationView replication) {

    /** This row with {@code replication}. */
    OverrideView with(ReplicationView r) {
      return new OverrideView(
          id,
          previous,
          state,
          outcome,
          until,
          correlationId,
          auditStored,
          dryRun,
          result,
          error,
          readBack,
          r);
    }
  }

  /**
   * Where a written override is ({@link OverrideView#replication}).
   *
   * @param acknowledged replicas of the breaker's master that acknowledged the write within the
   *     wait ({@code WAIT}); null when they could not be counted
   * @param connected replicas connected to that master when asked; null when unknown
   * @param where the same in words, as the table prints it: {@code on the master and 2/2 replicas},
   *     {@code on the master only (no replica connected)}, {@code on the master; replicas unknown
   *     (...)}
   */
  @JsonPropertyOrder({"acknowledged", "connected", "where"})
  public record ReplicationView(
      @JsonInclude(JsonInclude.Include.NON_NULL) Integer acknowledged,
      @JsonInclude(JsonInclude.Include.NON_NULL) Integer connected,
      String where) {

    /** The view of a store's answer. */
    static ReplicationView of(ReplicaAcks a) {
      return a.known()
          ? new ReplicationView(a.acknowledged(), a.connected(), a.describe())
          : new ReplicationView(null, null, a.describe());
    }

    /** The fewest replicas first: unknown, then by acknowledged, then by more connected. */
    static final Comparator<ReplicationView> FEWEST =
        Comparator.comparing((ReplicationView r) -> r.acknowledged == null ? -1 : r.acknowledged)
            .thenComparing(r -> r.connected == null ? 0 : -r.connected);

    /** Whether fewer than {@code min} replicas are known to hold it. */
    boolean fewerThan(int min) {
      return acknowledged == null || acknowledged < min;
    }

    /** The table's cell: {@code 2/2}, {@code none} (no replica connected), {@code ?}. */
    String cell() {
      if (acknowledged == null) {
        return "?";
      }
      return connected == 0 ? "none" : acknowledged + "/" + connected;
    }
  }

  /**
   * The command that undoes a force, as its output names it: {@code breakerctl force clear ID
   * --reason 'undo: REASON'}, words quoted for a POSIX shell.
   */
  static String undo(String target, String caller, String dependency, String reason) {
    StringBuilder b = new StringBuilder("breakerctl force clear");
    if (target != null) {
      b.append(' ').append(shellWord(target));
    }
    if (caller != null) {
      b.append(" --caller ").append(shellWord(caller));
    }
    if (dependency != null) {
      b.append(" --dependency ").append(shellWord(dependency));
    }
    return b.append(" --reason ").append(shellWord("undo: " + reason)).toString();
  }

  private static String shellWord(String s) {
    return s.matches("[A-Za-z0-9._:/=@%+-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
  }

  /** What a force command did to one breaker ({@link OverrideView#result}). */
  public enum Result {
    /** The override script changed it. */
    APPLIED("applied"),
    /** It already was as asked (same override, actor and reason; or no override to clear). */
    UNCHANGED("unchanged"),
    /** Its change failed; the error says why (whether it was applied is then unknown). */
    FAILED("failed"),
    /** Not reached: an earlier failure or a signal stopped the command first. */
    NOT_ATTEMPTED("notAttempted");

    private final String code;

    Result(String code) {
      this.code = code;
    }

    /** The wire code. */
    public String code() {
      return code;
    }
  }

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
      description =
          "Remove the override; the machine resumes (exit 3 when none of the breakers has one).")
  static final class Clear extends ForceAction {
    @Override
    OverrideKind kind() {
      return OverrideKind.CLEAR;
    }
  }
}
