package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.MutationOptions;
import io.breakerctl.cli.WriteAccess;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Table;
import io.breakerctl.runtime.control.policy.PolicyControl;
import io.breakerctl.runtime.control.policy.PolicyId;
import io.breakerctl.runtime.control.policy.WarmReport;
import io.breakerctl.runtime.model.BreakerId;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl policy warm [ID...]}: puts what MongoDB holds in force back into Redis. */
@Command(
    name = "warm",
    description = {
      "Warm the policies MongoDB holds in force (all, or the ids given) into Redis again, without"
          + " making a version: every breaker a policy governs gets the version in force"
          + " (versions stay monotonic: a newer one warmed meanwhile stays). For a Redis that lost"
          + " its data (FLUSHALL, a failover to an empty replica): running nodes put back the"
          + " version they run on their own; this puts back what MongoDB holds, also for breakers"
          + " no running node holds. doctor's policies check says when it is needed. --dry-run"
          + " lists the policies and the breakers each governs.",
      "Exit 6 when a breaker could not be warmed; 7 when a policy given is not in force."
    })
public final class PolicyWarmCommand implements Callable<Integer> {

  /**
   * What warming one breaker did ({@code kind: PolicyWarm} items).
   *
   * @param breaker the breaker
   * @param policy the policy in force for it
   * @param version its version
   * @param outcome WARMED, UNCHANGED, STALE (a newer version was there), UNWARMED or FAILED
   * @param error why it failed, "" otherwise
   */
  public record Row(String breaker, String policy, long version, String outcome, String error) {}

  @Spec CommandSpec spec;

  @Parameters(
      arity = "0..*",
      paramLabel = "ID",
      description = "Policy ids (default: all in force).")
  List<String> ids = new ArrayList<>();

  @Mixin MutationOptions mutation;

  @Mixin OutputOptions output;

  @Override
  public Integer call() {
    CliContext root = CliContext.of(spec);
    PolicyControl control = root.services().policies(true);
    var inForce = control.store().allInForce(root.env().clock().instant());
    List<PolicyId> policies = new ArrayList<>();
    if (ids.isEmpty()) {
      policies.addAll(inForce.keySet());
      policies.sort(java.util.Comparator.comparing(PolicyId::toString));
    } else {
      for (String text : ids) {
        PolicyId pid = PolicyCommand.policyId(text);
        if (!inForce.containsKey(pid)) {
          throw CliException.notFound("no policy " + pid + " in force");
        }
        policies.add(pid);
      }
    }
    List<Row> rows = new ArrayList<>();
    if (mutation.dryRun()) {
      for (PolicyId pid : policies) {
        long version = inForce.get(pid).version();
        for (BreakerId b : control.governed(pid)) {
          rows.add(new Row(b.toString(), pid.toString(), version, "WOULD_WARM", ""));
        }
      }
      print(root, rows);
      return ExitCode.OK;
    }
    List<BreakerId> breakers = new ArrayList<>();
    for (PolicyId pid : policies) {
      breakers.addAll(control.governed(pid));
    }
    WriteAccess.require(root, "policy warm", breakers);
    long failed = 0;
    for (PolicyId pid : policies) {
      for (WarmReport w : control.warm(pid)) {
        rows.add(
            new Row(
                w.breakerId() == null ? "-" : w.breakerId().toString(),
                w.policyId(),
                w.version(),
                w.outcome(),
                w.error()));
        failed += w.ok() ? 0 : 1;
      }
    }
    print(root, rows);
    if (failed > 0) {
      PrintWriter err = spec.commandLine().getErr();
      err.println(
          "error: "
              + failed
              + " breaker(s) could not be warmed (see the error column or -o json); running the"
              + " same warm again warms them");
      err.flush();
      return ExitCode.UNAVAILABLE;
    }
    return ExitCode.OK;
  }

  private void print(CliContext root, List<Row> rows) {
    PrintWriter out = spec.commandLine().getOut();
    if (output.format().isTable()) {
      Table t = new Table("BREAKER", "POLICY", "VERSION", "OUTCOME", "ERROR");
      t.flexible(4);
      rows.forEach(
          r ->
              t.row(
                  null,
                  r.breaker(),
                  r.policy(),
                  Long.toString(r.version()),
                  r.outcome(),
                  r.error().isEmpty() ? "-" : r.error()));
      t.print(out, root.style(), output.headers());
    } else {
      try (Documents.ListWriter w = Documents.list(output.format(), "PolicyWarm", out)) {
        rows.forEach(r -> w.item(r, r.breaker()));
      }
    }
  }
}
