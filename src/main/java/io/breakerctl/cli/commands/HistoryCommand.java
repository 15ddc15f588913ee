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
import io.breakerctl.cli.output.Style;
import io.breakerctl.cli.output.Table;
import io.breakerctl.cli.output.TimelineViews;
import io.breakerctl.runtime.connection.Redaction;
import io.breakerctl.runtime.control.BreakerPattern;
import io.breakerctl.runtime.control.timeline.Timeline;
import io.breakerctl.runtime.control.timeline.TimelineEntry;
import io.breakerctl.runtime.control.timeline.TimelineKind;
import io.breakerctl.runtime.control.timeline.TimelinePage;
import io.breakerctl.runtime.control.timeline.TimelineQuery;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.StoreUnavailableException;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl history [ID|PATTERN]}: the timeline, oldest first; {@code --follow}. */
@Command(
    name = "history",
    sortOptions = false,
    description = {
      "The timeline of breakers, oldest first: transitions (with cause, counts, node, lease),"
          + " overrides and other manual actions (actor, reason, correlation id), policy versions,"
          + " notes and gaps (events a stream's cap dropped). Transitions not yet forwarded to"
          + " MongoDB come from the Redis streams, so a change shows at once. A stream entry the"
          + " scripts did not write (no state, cause or time where one belongs) shows as MALFORMED"
          + " with its fields and what is wrong, and a warning counts them: it never fails the"
          + " read, and replay skips it.",
      "-o json is one document, -o jsonl one entry a line. --follow prints new entries as they"
          + " come (pub/sub, and a re-read every second) until interrupted (exit 5). With MongoDB"
          + " or Redis down the other is read alone and a warning says so; with both down, exit"
          + " 6 (an empty page would say nothing about the history)."
    },
    subcommands = {HistorySyncCommand.class, HistoryPruneCommand.class})
public final class HistoryCommand implements Callable<Integer> {

  private static final int PAGE = 1000;

  @Spec CommandSpec spec;

  @Parameters(
      arity = "0..1",
      paramLabel = "ID|PATTERN",
      description = "A breaker id or a glob on ids (default: every breaker).")
  String pattern;

  @Option(
      names = "--since",
      paramLabel = "TIME",
      description = "Entries at or after TIME: RFC 3339, or a duration ago (1h, 30m).")
  String since;

  @Option(names = "--until", paramLabel = "TIME", description = "Entries before TIME.")
  String until;

  @Option(
      names = "--state",
      paramLabel = "STATE",
      description = "Only transitions into STATE: ${COMPLETION-CANDIDATES}.")
  State state;

  @Option(
      names = "--actor",
      paramLabel = "NAME",
      description = "Only entries by this actor or node.")
  String actor;

  @Option(
      names = "--kind",
      split = ",",
      paramLabel = "KIND",
      description = "Only these kinds: ${COMPLETION-CANDIDATES}.")
  Set<TimelineKind> kinds;

  @Option(
      names = {"-f", "--follow"},
      description = "Keep printing new entries until interrupted.")
  boolean follow;

  @Mixin OutputOptions output;

  private boolean headed;

  /** Malformed stream entries printed so far, and how many of them a warning has counted. */
  private long malformed;

  private long malformedWarned;

  @Override
  public Integer call() throws InterruptedException {
    CliContext root = CliContext.of(spec);
    OutputFormat format = output.format();
    if (follow && (format == OutputFormat.JSON || format == OutputFormat.YAML)) {
      throw CliException.usage("--follow streams: use -o jsonl, name, table or wide");
    }
    TimelineQuery query = query(root.env().clock());
    FleetStore redis = redisOrNull(root, follow);
    Timeline timeline = new Timeline(root.services().control(), redis);
    PrintWriter out = spec.commandLine().getOut();
    Style style = root.style();
    boolean[] warned = {false};
    Documents.ListWriter docs =
        format.isTable() ? null : Documents.list(format, "TimelineEntryList", out);
    if (!follow) {
      print(timeline, query, docs, style, true, warned);
      if (docs != null) {
        docs.close();
      }
      return ExitCode.OK;
    }
    Semaphore wake = new Semaphore(0);
    // subscribed before the first page: nothing published after it is missed
    try (FleetStore.Subscription sub = redis.subscribe(m -> wake.release(), wake::release)) {
      Optional<String> cursor = print(timeline, query, docs, style, true, warned);
      while (!Interruption.requested()) {
        wake.tryAcquire(1, TimeUnit.SECONDS);
        wake.drainPermits();
        TimelineQuery next = cursor.map(query::after).orElse(query);
        cursor = print(timeline, next, docs, style, false, warned);
        OutputFailedException.check(out);
      }
    }
    return ExitCode.CANCELLED;
  }

  /** Prints every page after the query's cursor; returns the cursor after the last entry. */
  private Optional<String> print(
      Timeline timeline,
      TimelineQuery query,
      Documents.ListWriter docs,
      Style style,
      boolean first,
      boolean[] warned) {
    PrintWriter out = spec.commandLine().getOut();
    TimelineQuery q = query;
    Optional<String> cursor = query.cursor();
    Table table = docs == null ? TimelineViews.table() : null;
    long now = style.clock().millis();
    while (true) {
      TimelinePage page = timeline.page(q);
      if (!page.answered()) {
        // both sources down: an empty page would read as "no history" and exit 0
        throw CliException.unavailable(
            "no history could be read: " + String.join("; ", page.problems()));
      }
      if (page.partial() && !warned[0]) {
        warned[0] = true;
        page.problems().forEach(p -> spec.commandLine().getErr().println("warning: " + p));
        spec.commandLine().getErr().flush();
      }
      for (TimelineEntry e : page.entries()) {
        if (e.malformed()) {
          malformed++;
        }
        if (docs != null) {
          docs.item(TimelineViews.of(e), e.id());
        } else {
          TimelineViews.row(table, e, style, now);
        }
      }
      cursor = page.cursor();
      if (!page.more() || cursor.isEmpty()) {
        break;
      }
      q = query.after(cursor.get());
    }
    if (malformed > malformedWarned) {
      spec.commandLine()
          .getErr()
          .printf(
              "warning: %d malformed event(s) shown as MALFORMED: stream entries the scripts did"
                  + " not write (their problem field says what is wrong); not transitions%n",
              malformed - malformedWarned);
      spec.commandLine().getErr().flush();
      malformedWarned = malformed;
    }
    if (table != null && table.size() > 0) {
      table.print(out, style, !headed && output.headers());
      headed = true; // a followed table's header once, above its first rows
    } else if (table != null && first && !follow) {
      spec.commandLine().getErr().println("No history found.");
      spec.commandLine().getErr().flush();
    }
    out.flush();
    return cursor;
  }

  /** Redis, or null (with a warning) when it is down and the page can come from MongoDB alone. */
  private FleetStore redisOrNull(CliContext root, boolean required) {
    try {
      return root.services().redis();
    } catch (StoreUnavailableException e) {
      if (required) {
        throw e;
      }
      spec.commandLine()
          .getErr()
          .println("warning: Redis unavailable, MongoDB only: " + Redaction.uri(e.getMessage()));
      spec.commandLine().getErr().flush();
      return null;
    }
  }

  private TimelineQuery query(Clock clock) {
    BreakerPattern p;
    try {
      p = pattern == null ? BreakerPattern.ALL : BreakerPattern.of(pattern);
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    }
    TimelineQuery.Builder b = TimelineQuery.builder(p).limit(PAGE);
    if (since != null) {
      b.since(Times.parse("--since", since, clock));
    }
    if (until != null) {
      b.until(Times.parse("--until", until, clock));
    }
    if (state != null) {
      b.state(state);
    }
    if (actor != null) {
      b.actor(actor);
    }
    if (kinds != null) {
      kinds.forEach(b::kind);
    }
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    }
  }
}
