package io.breakerctl.cli.commands;

import io.breakerctl.cli.BreakerCtl;
import io.breakerctl.cli.Settings;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Table;
import io.breakerctl.runtime.Redaction;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.redis.RedisBreakerStore;
import io.breakerctl.runtime.redis.StoreDiagnostics;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code breakerctl doctor}: one line per check of Redis, the scripts, ACLs and MongoDB. */
@Command(
    name = "doctor",
    description = {
      "Check the environment, one line per check: Redis reachable (latency), server versions,"
          + " cluster topology, this build's scripts cached on every master, Redis TIME vs the"
          + " local clock, the user's ACL permissions to read and to mutate, the nodes that report"
          + " themselves degraded (with the reason: timeout, unreachable, oom, readonly, noperm,"
          + " ...), MongoDB reachable (latency, version).",
      "Exit 1 when any check fails; warnings do not fail."
    })
public final class DoctorCommand implements Callable<Integer> {

  /**
   * One check's result ({@code kind: DoctorReport} items).
   *
   * @param check what was checked
   * @param status ok, warn or fail
   * @param detail what was found
   */
  public record Check(String check, String status, String detail) {}

  @Spec CommandSpec spec;

  @Mixin OutputOptions output;

  private final List<Check> checks = new ArrayList<>();

  @Override
  public Integer call() {
    BreakerCtl root = BreakerCtl.of(spec);
    Settings settings = root.services().settings();
    checkRedis(root, settings);
    checkMongo(root, settings);
    PrintWriter out = spec.commandLine().getOut();
    if (output.format().isTable()) {
      Table t = new Table("STATUS", "CHECK", "DETAIL");
      t.flexible(2);
      checks.forEach(c -> t.row(null, c.status(), c.check(), c.detail()));
      t.print(out, root.style(), output.headers());
    } else {
      try (Documents.ListWriter w = Documents.list(output.format(), "DoctorReport", out)) {
        checks.forEach(c -> w.item(c, c.check()));
      }
    }
    return checks.stream().anyMatch(c -> c.status().equals("fail")) ? 1 : 0;
  }

  private void add(String check, String status, String detail) {
    checks.add(new Check(check, status, detail));
  }

  private void checkRedis(BreakerCtl root, Settings settings) {
    RedisBreakerStore store;
    long t0 = System.nanoTime();
    try {
      store = root.services().redis();
    } catch (RuntimeException e) {
      add("redis", "fail", Redaction.uri(e.getMessage()));
      return;
    }
    double connectMs = (System.nanoTime() - t0) / 1e6;
    for (StoreDiagnostics.Check c :
        StoreDiagnostics.run(store, Redaction.uri(settings.redis()), connectMs)) {
      add(c.check(), c.status().word(), c.detail());
    }
    if (checks.stream().noneMatch(c -> c.check().equals("redis") && c.status().equals("fail"))) {
      StoreDiagnostics.Check nodes = StoreDiagnostics.nodes(store, settings.timeout());
      add(nodes.check(), nodes.status().word(), nodes.detail());
    }
  }

  private void checkMongo(BreakerCtl root, Settings settings) {
    try {
      ControlDatabase.ServerInfo info = root.services().control().probe();
      add(
          "mongodb",
          "ok",
          String.format(
              "%s: ping %.1f ms, version %s",
              Redaction.uri(settings.mongo()), info.pingMillis(), info.version()));
    } catch (RuntimeException e) {
      Throwable driver = e.getCause() != null ? e.getCause() : e; // what the driver said
      add(
          "mongodb",
          "fail",
          Redaction.uri(settings.mongo()) + ": " + ControlDatabase.describe(driver));
    }
  }
}
