package io.breakerctl.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A real Prometheus server (Debian's {@code prometheus} package, from PATH) on a free loopback port
 * with its own data directory, scraping one target every second; and {@code promtool}. Tests that
 * need them call {@link #binary} and skip (JUnit {@code Assumptions}) when it is absent, since a
 * clean CI machine may not have the package. The process is registered with {@link TestProcesses},
 * so it never outlives the test JVM.
 */
public final class Prometheus implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Process process;
  private final Path dir;
  private final String base;

  private Prometheus(Process process, Path dir, int port) {
    this.process = process;
    this.dir = dir;
    this.base = "http://127.0.0.1:" + port;
  }

  /** The executable {@code name} ({@code prometheus}, {@code promtool}) on PATH, if any. */
  public static Optional<Path> binary(String name) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String d : path.split(File.pathSeparator)) {
      Path p = Path.of(d.isEmpty() ? "." : d, name);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * Starts Prometheus scraping {@code target} ({@code host:port}, path {@code /metrics}) every
   * second, with {@code ruleFiles} loaded, and waits until it is ready (at most 60 s).
   */
  public static Prometheus start(Path binary, String target, List<Path> ruleFiles) {
    try {
      Path dir = Files.createTempDirectory("breakerctl-prometheus");
      int port;
      try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        port = s.getLocalPort();
      }
      StringBuilder rules = new StringBuilder();
      for (Path r : ruleFiles) {
        rules.append("  - ").append(r.toAbsolutePath()).append('\n');
      }
      Files.writeString(
          dir.resolve("prometheus.yml"),
          "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
              + (ruleFiles.isEmpty() ? "" : "rule_files:\n" + rules)
              + "scrape_configs:\n  - job_name: breakerctl\n    static_configs:\n"
              + "      - targets: ['"
              + target
              + "']\n");
      Process p =
          new ProcessBuilder(
                  binary.toString(),
                  "--config.file=" + dir.resolve("prometheus.yml"),
                  "--storage.tsdb.path=" + dir.resolve("data"),
                  "--web.listen-address=127.0.0.1:" + port,
                  "--log.level=warn")
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("prometheus.log").toFile())
              .start();
      TestProcesses.register(p, dir);
      Prometheus prom = new Prometheus(p, dir, port);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!prom.ready()) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          String log = prom.log();
          prom.close();
          throw new IllegalStateException("prometheus did not become ready:\n" + log);
        }
        Thread.sleep(100);
      }
      return prom;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private boolean ready() {
    try {
      return get("/-/ready").statusCode() == 200;
    } catch (IOException e) {
      return false;
    }
  }

  private HttpResponse<String> get(String path) throws IOException {
    try {
      return HTTP.send(
          HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /**
   * {@code GET /api/v1/query?query=...}: the whole answer ({@code status}, {@code data} or {@code
   * errorType} and {@code error}), whatever the HTTP status.
   */
  public JsonNode query(String promql) {
    try {
      return JSON.readTree(
          get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)).body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The result vector of an instant query that must succeed. */
  public JsonNode vector(String promql) {
    JsonNode answer = query(promql);
    if (!"success".equals(answer.path("status").asText())) {
      throw new IllegalStateException(promql + ": " + answer);
    }
    return answer.path("data").path("result");
  }

  /** The server's base URL, {@code http://127.0.0.1:PORT}. */
  public String base() {
    return base;
  }

  /** The server's log so far. */
  public String log() {
    try {
      return Files.readString(dir.resolve("prometheus.log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    TestProcesses.killAndWait(process, Duration.ofSeconds(10));
    TestProcesses.unregister(process);
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // a leftover temp directory is harmless
    }
  }
}
