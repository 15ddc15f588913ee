package io.breakerctl.bench;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import io.breakerctl.sandbox.Sandbox;
import io.breakerctl.sandbox.SandboxState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.tools.ToolProvider;

/**
 * Benchmark (run it with {@code scripts/bench startup}): how long {@code breakerctl} takes to start
 * through {@code scripts/breakerctl} (shaded jar + static CDS archive), against a bare {@code java}
 * hello world measured in the same run, same JVM binary.
 *
 * <ul>
 *   <li>{@code hello}: {@code java -cp DIR Hello} (the floor: a JVM that prints one line);
 *   <li>{@code version}: {@code scripts/breakerctl version} (target: at most 5x hello);
 *   <li>{@code status}: {@code scripts/breakerctl status} against a sandbox (started here, in a
 *       temporary state directory) holding 10 breakers (target: at most 12x hello).
 * </ul>
 *
 * <p>Wall time of the whole process, median of {@code --runs N} (15) after 3 warm-up runs, the
 * three commands interleaved. The first {@code scripts/breakerctl} run builds the jar and the CDS
 * archive if needed; that is outside the measurement.
 */
public final class StartupBench {

  public static void main(String[] args) throws Exception {
    int runs = 15;
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (args[i].equals("--runs")) {
        runs = Integer.parseInt(args[i + 1]);
      }
    }
    Path repo = Path.of("").toAbsolutePath();
    Path launcher = repo.resolve("scripts/breakerctl");
    Path tmp = Files.createTempDirectory("breakerctl-startup");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path hello = helloWorld(tmp.resolve("hello"));
    Map<String, String> env =
        Map.of(
            "HOME", tmp.toString(),
            "XDG_CONFIG_HOME", tmp.resolve("config").toString(),
            "XDG_STATE_HOME", tmp.resolve("state").toString(),
            "NO_COLOR", "1",
            "JAVA_HOME", System.getProperty("java.home"));
    System.out.println("startup: preparing (jar and CDS archive if missing) ...");
    run(env, launcher.toString(), "version");

    Sandbox sandbox = new Sandbox(tmp.resolve("state/breakerctl/sandbox"));
    try {
      SandboxState s = sandbox.up().state();
      try (RedisFleetStore store =
          RedisFleetStore.connect(StoreConfig.builder().uri(s.redisUri()).build())) {
        for (int i = 0; i < 10; i++) {
          BreakerId id = BreakerId.parse("bench:dep" + i);
          StoreFutures.await(store.record(id, Outcome.successes("bench-node", 10), Policy.DEFAULT));
        }
      }
      List<List<String>> commands =
          List.of(
              List.of(java, "-cp", hello.toString(), "Hello"),
              List.of(launcher.toString(), "version"),
              List.of(
                  launcher.toString(), "--redis", s.redisUri(), "--mongo", s.mongoUri(), "status"));
      String[] names = {"hello", "version", "status"};
      long[][] times = new long[3][runs];
      for (int r = -3; r < runs; r++) {
        for (int c = 0; c < 3; c++) {
          long t = run(env, commands.get(c).toArray(String[]::new));
          if (r >= 0) {
            times[c][r] = t;
          }
        }
      }
      double[] median = new double[3];
      for (int c = 0; c < 3; c++) {
        Arrays.sort(times[c]);
        median[c] = times[c][runs / 2] / 1e6;
        System.out.printf(
            "startup %-8s p50 %7.1f ms  (min %.1f, max %.1f, %d runs)%n",
            names[c], median[c], times[c][0] / 1e6, times[c][runs - 1] / 1e6, runs);
      }
      double versionRatio = median[1] / median[0];
      double statusRatio = median[2] / median[0];
      System.out.println("targets:");
      System.out.printf(
          "  %s version/hello %.1fx (target <= 5x)%n",
          versionRatio <= 5 ? "PASS" : "FAIL", versionRatio);
      System.out.printf(
          "  %s status(10 breakers)/hello %.1fx (target <= 12x)%n",
          statusRatio <= 12 ? "PASS" : "FAIL", statusRatio);
    } finally {
      sandbox.down();
    }
  }

  private static Path helloWorld(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path src = dir.resolve("Hello.java");
    Files.writeString(
        src,
        "public class Hello { public static void main(String[] a) {"
            + " System.out.println(\"hello\"); } }");
    int rc =
        ToolProvider.getSystemJavaCompiler()
            .run(null, null, null, "-d", dir.toString(), src.toString());
    if (rc != 0) {
      throw new IllegalStateException("javac Hello.java failed");
    }
    return dir;
  }

  /** Runs a command to completion; returns its wall time in ns; fails on a non-zero exit. */
  private static long run(Map<String, String> env, String... command) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().putAll(env);
    long t0 = System.nanoTime();
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException(String.join(" ", command) + " did not finish");
    }
    long elapsed = System.nanoTime() - t0;
    if (p.exitValue() != 0) {
      throw new IllegalStateException(
          String.join(" ", new ArrayList<>(List.of(command)))
              + " exited "
              + p.exitValue()
              + ":\n"
              + new String(out, StandardCharsets.UTF_8));
    }
    return elapsed;
  }
}
