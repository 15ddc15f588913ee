package io.breakerctl.bench;

import io.breakerctl.testing.RedisBinary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Locale;

/** What the runtime benchmarks share: the Redis binary, the header, percentiles, target lines. */
final class BenchSupport {
  private BenchSupport() {}

  /** {@code --redis PATH}, else redis-server on PATH if >= 6.2, else the embedded 6.2 binary. */
  static RedisBinary binary(String redis) {
    return redis != null
        ? RedisBinary.of(Path.of(redis))
        : RedisBinary.onPath().orElseGet(RedisBinary::embedded);
  }

  /** Prints the benchmark's title, date, JVM and Redis used. */
  static void header(String name, RedisBinary binary, boolean fromOption) {
    System.out.println("== breakerctl benchmark: " + name + " ==");
    System.out.printf(
        "date:   %s%n", ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    System.out.printf(
        "java:   %s (%s %s), %d CPUs%n",
        System.getProperty("java.version"),
        System.getProperty("java.vm.name"),
        System.getProperty("java.vm.version"),
        Runtime.getRuntime().availableProcessors());
    System.out.printf(
        "load:   %s (/proc/loadavg at start: other work on this machine)%n", loadavg());
    System.out.printf(
        "redis:  %s (%s%s)%n",
        binary.version(),
        binary.path(),
        fromOption
            ? ", from --redis"
            : binary.path().toString().contains("breakerctl-redis")
                ? ", embedded: none >= 6.2 on PATH"
                : ", from PATH");
  }

  private static String loadavg() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /** The {@code q} quantile (nearest rank) of the first {@code n} values, in the values' unit. */
  static long quantile(long[] sorted, int n, double q) {
    if (n == 0) {
      return -1;
    }
    int i = (int) Math.ceil(q * n) - 1;
    return sorted[Math.max(0, Math.min(n - 1, i))];
  }

  /** Sorted copy of the first {@code n} values. */
  static long[] sorted(long[] values, int n) {
    long[] s = Arrays.copyOf(values, n);
    Arrays.sort(s);
    return s;
  }

  /** Prints one target line: PASS/FAIL and the measured value. */
  static void target(String what, boolean pass, String fmt, Object... values) {
    System.out.printf(
        "  %-44s %s  (%s)%n",
        what, pass ? "PASS" : "FAIL", String.format(Locale.ROOT, fmt, values));
  }

  /** Prints a line of the targets block that is not a target (no PASS/FAIL). */
  static void info(String what, String fmt, Object... values) {
    System.out.printf("  %-44s info  (%s)%n", what, String.format(Locale.ROOT, fmt, values));
  }

  /** Parses {@code --name value} options into the given setter; rejects unknown names. */
  interface OptionSink {
    boolean set(String name, String value);
  }

  static void parse(String[] args, OptionSink sink) {
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + a + " needs a value");
      }
      String v = args[++i];
      if (!sink.set(a, v)) {
        throw new IllegalArgumentException("unknown option " + a);
      }
    }
  }

  static int positive(String name, String v, int min) {
    int n = Integer.parseInt(v);
    if (n < min || n > 10_000_000) {
      throw new IllegalArgumentException(name + " must be " + min + "..10000000 but was " + v);
    }
    return n;
  }
}
