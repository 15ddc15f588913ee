package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.Interruption;
import io.breakerctl.cli.OutputFailedException;
import io.breakerctl.cli.Times;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.cli.output.ReplayViews;
import io.breakerctl.cli.output.ReplayViews.BreakerAt;
import io.breakerctl.cli.output.ReplayViews.FleetAt;
import io.breakerctl.cli.output.Style;
import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.control.replay.Replay;
import io.breakerctl.runtime.control.replay.ReplayFrame;
import io.breakerctl.runtime.control.replay.ReplayState;
import io.breakerctl.runtime.model.BreakerId;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl replay [PATTERN] --at T | --from T1 --to T2}: the fleet from its history. */
@Command(
    name = "replay",
    sortOptions = false,
    description = {
      "Reconstruct the fleet from its history (MongoDB, plus the Redis streams' unforwarded"
          + " tail): --at TIME prints every breaker's state in force then, as 'status' computes"
          + " it (an open window that ended or an override that expired is computed, not"
          + " guessed); --from T1 --to T2 prints one frame per transition in (T1, T2].",
      "Frames are paced by --speed N (60: one minute of history a second; 0, the default: no"
          + " pacing). -o jsonl: one BreakerList a line per frame, with its instant and"
          + " transition; -o json renders each frame on one line; -o yaml separates them with ---."
    },
    subcommands = {ReplayRestoreCommand.class})
public final class ReplayCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(
      arity = "0..1",
      paramLabel = "PATTERN",
      description = "A breaker id or a glob on ids (default: every breaker).")
  String pattern;

  @Option(
      names = "--at",
      paramLabel = "TIME",
      description = "The instant: RFC 3339, or a duration ago.")
  String at;

  @Option(names = "--from", paramLabel = "TIME", description = "Frames after TIME.")
  String from;

  @Option(names = "--to", paramLabel = "TIME", description = "Frames up to TIME (default: now).")
  String to;

  @Option(
      names = "--speed",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "Pacing: N seconds of history a second; 0 for none (default: ${DEFAULT-VALUE}).")
  double speed;

  @Mixin OutputOptions output;

  @Override
  public Integer call() throws InterruptedException {
    CliContext root = CliContext.of(spec);
    Clock clock = root.env().clock();
    BreakerPattern p = pattern(pattern);
    if ((at == null) == (from == null)) {
      throw CliException.usage("give either --at TIME, or --from TIME [--to TIME]");
    }
    if (at != null && to != null) {
      throw CliException.usage("--to goes with --from, not with --at");
    }
    if (speed < 0 || Double.isNaN(speed) || Double.isInfinite(speed)) {
      throw CliException.usage("--speed must be 0 or more but was " + speed);
    }
    Instant t = at == null ? null : Times.parse("--at", at, clock);
    Instant start = from == null ? null : Times.parse("--from", from, clock);
    Instant end = to == null ? clock.instant() : Times.parse("--to", to, clock);
    if (start != null && !start.isBefore(end)) {
      throw CliException.usage("--from (" + start + ") must be before --to (" + end + ")");
    }
    Replay replay = new Replay(root.services().control(), root.services().redis());
    if (t != null) {
      Map<BreakerId, ReplayState> states = replay.stateAt(t, p);
      List<BreakerAt> items = states.values().stream().map(ReplayViews::of).toList();
      print(new FleetAt(Style.rfc3339(t.toEpochMilli()), null, items), root.style(), false);
      return ExitCode.OK;
    }
    long[] previous = {start.toEpochMilli()};
    int[] count = {0};
    try {
      replay.frames(
          start,
          end,
          p,
          f -> {
            pace(previous, f);
            print(ReplayViews.frame(f), root.style(), count[0]++ > 0);
          });
    } catch (CancellationException e) {
      return ExitCode.CANCELLED;
    }
    if (count[0] == 0) {
      spec.commandLine().getErr().println("No transitions in that range.");
      spec.commandLine().getErr().flush();
    }
    return ExitCode.OK;
  }

  static BreakerPattern pattern(String text) {
    try {
      return text == null ? BreakerPattern.ALL : BreakerPattern.of(text);
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    }
  }

  private void pace(long[] previous, ReplayFrame f) {
    long t = f.at().toEpochMilli();
    if (speed > 0 && t > previous[0]) {
      try {
        Thread.sleep((long) Math.min(Long.MAX_VALUE / 2.0, (t - previous[0]) / speed));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CancellationException("interrupted");
      }
    }
    previous[0] = t;
    if (Interruption.requested()) {
      throw new CancellationException("interrupted");
    }
  }

  private void print(FleetAt fleet, Style style, boolean separate) {
    PrintWriter out = spec.commandLine().getOut();
    OutputFormat format = output.format();
    switch (format) {
      case TABLE, WIDE -> {
        if (separate) {
          out.println();
        }
        if (fleet.transition() != null) {
          out.println(
              "at " + fleet.at() + " (" + Printable.escape(fleet.transition().breakerId()) + "):");
        }
        if (fleet.items().isEmpty()) {
          out.println("No breakers known at " + fleet.at() + ".");
        } else {
          ReplayViews.fleet(fleet.items()).print(out, style, output.headers());
        }
      }
      case NAME -> fleet.items().forEach(b -> out.println(Printable.escape(b.id())));
      case YAML -> {
        if (separate) {
          out.print("---\n");
        }
        Documents.single(format, "BreakerList", fleet, out);
      }
      case JSON ->
          Documents.single(
              fleet.transition() == null ? format : OutputFormat.JSONL, "BreakerList", fleet, out);
      case JSONL -> Documents.single(OutputFormat.JSONL, "BreakerList", fleet, out);
    }
    out.flush();
    OutputFailedException.check(out);
  }
}
