package io.breakerctl.bench;

import io.breakerctl.BreakerCtl;
import io.breakerctl.cli.BreakerSelector;
import io.breakerctl.cli.Environment;
import io.breakerctl.cli.exporter.FleetExporter;
import io.breakerctl.runtime.redis.RedisFleetStore;
import io.breakerctl.runtime.redis.StoreConfig;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisServerProcess;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * One scrape of {@code breakerctl exporter} over N breakers (default 10,000) vs {@code status -o
 * json} over the same keys, in the same JVM and run (both warm: a scrape is what a running exporter
 * does every interval, so JVM start-up is left out of both): the median of R rounds (3) each, and
 * the ratio (issue 34's target: within 3x at 100,000). The exporter serves on loopback with its
 * cache off, and the scrape is read whole over HTTP; status writes to a discarding writer. Also
 * prints the scrape's size and this JVM's peak RSS (VmHWM: both commands' together, an upper bound
 * for either). Options: {@code --breakers N}, {@code --rounds R}, {@code --redis PATH}.
 */
public final class ExporterBench {
  private ExporterBench() {}

  public static void main(String[] args) throws Exception {
    int[] breakers = {10_000};
    int[] rounds = {3};
    String[] redisPath = {null};
    BenchSupport.parse(
        args,
        (name, v) -> {
          switch (name) {
            case "--breakers" -> breakers[0] = BenchSupport.positive(name, v, 1);
            case "--rounds" -> rounds[0] = BenchSupport.positive(name, v, 1);
            case "--redis" -> redisPath[0] = v;
            default -> {
              return false;
            }
          }
          return true;
        });
    RedisBinary binary = BenchSupport.binary(redisPath[0]);
    BenchSupport.header("exporter", binary, redisPath[0] != null);
    run(binary, breakers[0], rounds[0]);
  }

  private static void run(RedisBinary binary, int breakers, int rounds) throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.start(binary)) {
      StatusBench.fill(redis, breakers);
      Path home = Files.createTempDirectory("breakerctl-bench-exporter");
      Environment env =
          new Environment(
              Map.of(
                  "XDG_CONFIG_HOME", home.toString(),
                  "XDG_STATE_HOME", home.toString(),
                  "BREAKERCTL_REDIS", redis.uri(),
                  "BREAKERCTL_TIMEOUT", "120s"),
              false,
              Clock.systemUTC(),
              new BufferedReader(new StringReader("")),
              "bench");
      HttpClient http = HttpClient.newHttpClient();
      try (RedisFleetStore store =
              RedisFleetStore.connect(
                  StoreConfig.builder().uri(redis.uri()).timeout(Duration.ofSeconds(120)).build());
          FleetExporter exporter =
              new FleetExporter(
                  new InetSocketAddress("127.0.0.1", 0),
                  () -> store,
                  new BreakerSelector(null, null, null),
                  Duration.ofSeconds(120),
                  Duration.ZERO,
                  1000)) {
        URI metrics = URI.create("http://127.0.0.1:" + exporter.address().getPort() + "/metrics");
        List<Double> scrape = new ArrayList<>();
        List<Double> status = new ArrayList<>();
        long bytes = 0;
        for (int r = 0; r <= rounds; r++) { // round 0 warms both up, unreported
          long t0 = System.nanoTime();
          HttpResponse<byte[]> res =
              http.send(
                  HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofByteArray());
          double s = (System.nanoTime() - t0) / 1e6;
          bytes = res.body().length;
          if (res.statusCode() != 200 || !new String(res.body()).contains("breakerctl_up 1")) {
            throw new IllegalStateException("scrape failed: " + res.statusCode());
          }
          CommandLine cl = BreakerCtl.commandLine(env);
          cl.setOut(new PrintWriter(Writer.nullWriter()));
          cl.setErr(new PrintWriter(System.err));
          t0 = System.nanoTime();
          int code = cl.execute("status", "-o", "json");
          double st = (System.nanoTime() - t0) / 1e6;
          if (code != 0) {
            throw new IllegalStateException("status exited " + code);
          }
          if (r > 0) {
            scrape.add(s);
            status.add(st);
          }
        }
        double ms = median(scrape);
        double base = median(status);
        System.out.printf(
            "exporter: one scrape of %,d breakers %.0f ms (median of %d, %,d bytes); status -o"
                + " json over the same keys %.0f ms%n",
            breakers, ms, rounds, bytes, base);
        BenchSupport.target(
            "scrape within 3x of status -o json",
            ms <= 3 * base,
            "%.2fx at %,d breakers",
            ms / base,
            breakers);
        BenchSupport.info("peak RSS of this JVM (both commands)", "%d MB", peakRssMb());
      }
    }
  }

  private static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    Collections.sort(s);
    return s.get(s.size() / 2);
  }

  private static long peakRssMb() throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
      }
    }
    return -1;
  }
}
