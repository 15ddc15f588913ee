package io.breakerctl.cli.commands;

import io.breakerctl.cli.BreakerSelector;
import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.Interruption;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetScan;
import io.breakerctl.runtime.store.FleetStore;
import io.breakerctl.runtime.store.StoreFutures;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl wait ID|PATTERN --for state=S}: block until the fleet is there. */
@Command(
    name = "wait",
    description = {
      "Wait until every matching breaker is in state S (the state in force, as 'status' shows"
          + " it): exit 0 as soon as they are, 1 when --timeout passes first (default 30s; it"
          + " also bounds each Redis call), 7 when a glob matches no breaker. For runbooks and CI:"
          + " breakerctl wait checkout:payments --for state=CLOSED --timeout 5m.",
      "An exact id that nothing knows (no keys in Redis, no policy, note or history in"
          + " MongoDB) is refused as a likely typo (exit 7, naming the nearest known ids); a"
          + " known id with no keys (expired, or only in MongoDB) counts as CLOSED. Checks every"
          + " 100ms."
    })
public final class WaitCommand implements Callable<Integer> {

  private static final Pattern CONDITION = Pattern.compile("state=([A-Za-z_]+)");
  private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
  private static final long POLL_MILLIS = 100;

  @Spec CommandSpec spec;

  @Parameters(paramLabel = "ID|PATTERN", description = "A breaker id or a glob on ids.")
  String pattern;

  @Option(
      names = "--for",
      required = true,
      paramLabel = "state=STATE",
      description =
          "The condition: state=CLOSED, OPEN, HALF_OPEN, FORCED_OPEN, FORCED_CLOSED, DISABLED or"
              + " METRICS_ONLY.")
  String condition;

  @Mixin OutputOptions output;

  @Override
  public Integer call() throws InterruptedException {
    State target = target();
    BreakerSelector selector = new BreakerSelector(pattern, null, null);
    CliContext root = CliContext.of(spec);
    Duration timeout = root.flags().timeout() == null ? DEFAULT_TIMEOUT : root.flags().timeout();
    long deadline = System.nanoTime() + timeout.toNanos();
    FleetStore store = root.services().redis();
    BreakerId exact = selector.exactId();
    if (exact != null) {
      KnownBreakers.require(
          root,
          spec.commandLine().getErr(),
          exact,
          StoreFutures.await(store.snapshot(exact, 0)),
          "");
    }
    Map<String, State> states = read(selector, root, store);
    if (states.isEmpty()) {
      throw CliException.notFound("no breaker matches " + selector.describe());
    }
    if (!states.values().stream().allMatch(s -> s == target)) {
      PrintWriter err = spec.commandLine().getErr();
      err.println(
          "waiting up to "
              + Durations.format(timeout)
              + " for "
              + states.size()
              + " breaker(s) to be "
              + target.code()
              + " ...");
      err.flush();
    }
    while (!states.values().stream().allMatch(s -> s == target)) {
      if (System.nanoTime() >= deadline || Interruption.requested()) {
        PrintWriter err = spec.commandLine().getErr();
        states.forEach(
            (id, s) -> {
              if (s != target) {
                err.println("timed out: " + id + " is " + s.code() + ", not " + target.code());
              }
            });
        err.println(
            "error: timed out after "
                + Durations.format(timeout)
                + " waiting for state="
                + target.code());
        err.flush();
        return Interruption.requested() ? ExitCode.CANCELLED : ExitCode.CHECK_FAILED;
      }
      Thread.sleep(POLL_MILLIS);
      states = read(selector, root, store);
    }
    PrintWriter out = spec.commandLine().getOut();
    boolean names = output.format() == OutputFormat.NAME;
    states.forEach((id, s) -> out.println(names ? id : id + " is " + s.code()));
    out.flush();
    return ExitCode.OK;
  }

  private State target() {
    Matcher m = CONDITION.matcher(condition == null ? "" : condition.trim());
    if (!m.matches()) {
      throw CliException.usage(
          "--for must be state=STATE (e.g. state=CLOSED) but was '" + condition + "'");
    }
    try {
      return State.fromCode(m.group(1).toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw CliException.usage("--for: " + e.getMessage());
    }
  }

  private static Map<String, State> read(
      BreakerSelector selector, CliContext root, FleetStore store) {
    Map<String, State> out = new TreeMap<>();
    BreakerId exact = selector.exactId();
    if (exact != null) {
      BreakerSnapshot s = StoreFutures.await(store.snapshot(exact, 0));
      out.put(exact.toString(), stateOf(s));
      return out;
    }
    FleetScan fleet = store.fleet(root.services().settings().timeout(), 1000);
    fleet.snapshots(
        selector,
        s -> out.put(s.id().toString(), stateOf(s)),
        (id, problem) -> {
          throw CliException.conflict("breaker " + id + " cannot be read: " + problem);
        });
    fleet.requireComplete(); // a breaker in the slots not read may not be there yet
    return out;
  }

  private static State stateOf(BreakerSnapshot s) {
    s.problem()
        .ifPresent(
            p -> {
              throw CliException.conflict("breaker " + s.id() + " cannot be read: " + p);
            });
    return s.effectiveState();
  }
}
