package io.breakerctl.cli.exporter;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.runtime.connection.Redaction;
import io.breakerctl.runtime.store.FleetSelection;
import io.breakerctl.runtime.store.FleetStore;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The fleet exporter's HTTP side: {@code GET /metrics} answers the fleet's metrics ({@link
 * FleetMetrics}) in the Prometheus text format 0.0.4, or in OpenMetrics 1.0.0 when the {@code
 * Accept} header names {@code application/openmetrics-text}.
 *
 * <p>Bounded cost whatever the number of scrapers: reads of Redis run one at a time on one thread;
 * a scrape that arrives while a read runs waits for that read instead of starting another, and a
 * read that ended less than the cache TTL ago answers every scrape in that time. So N Prometheus
 * servers (or a dashboard's refreshes) scraping together cost one read.
 *
 * <p>Never a hung scrape: the read itself is bounded by the scrape timeout ({@link
 * io.breakerctl.runtime.store.FleetScan}'s deadline covers every round trip), and a scrape waits
 * for it at most that timeout plus a second; past it, or when Redis cannot be read at all
 * (connection refused, NOPERM, a part of a Cluster down), the scrape answers {@code breakerctl_up
 * 0} with {@code breakerctl_last_error_info{error="..."}} at once, and HTTP 200 (Prometheus's own
 * {@code up} stays about the exporter, this one about Redis). A read that has not ended is never
 * started twice.
 */
public final class FleetExporter implements AutoCloseable {
  private static final Duration GRACE = Duration.ofSeconds(1);
  private static final int ERROR_LENGTH = 300;

  private final Supplier<FleetStore> store;
  private final FleetSelection selection;
  private final Duration timeout;
  private final long ttlNanos;
  private final int batch;
  private final HttpServer server;
  private final ExecutorService http;
  private final ExecutorService reader;

  private final Object lock = new Object();
  private CompletableFuture<Scrape> inFlight;
  private Scrape last;
  private long reads;
  private String lastError;

  /** A finished read: its exposition and when it ended. */
  private record Scrape(Exposition exposition, long endedNanos) {}

  /**
   * Binds {@code listen} and starts serving.
   *
   * @param store the store, connected on first use (a supplier that throws is a failed read,
   *     retried at the next scrape: the exporter starts while Redis is down)
   * @param selection the breakers to export
   * @param timeout the bound of one read of Redis
   * @param cacheTtl how long a finished read answers scrapes (zero: only concurrent ones share it)
   * @param batch reads in flight per round trip
   * @throws IOException when the address cannot be bound
   */
  public FleetExporter(
      InetSocketAddress listen,
      Supplier<FleetStore> store,
      FleetSelection selection,
      Duration timeout,
      Duration cacheTtl,
      int batch)
      throws IOException {
    this.store = store;
    this.selection = selection;
    this.timeout = timeout;
    this.ttlNanos = cacheTtl.toNanos();
    this.batch = batch;
    this.server = HttpServer.create(listen, 64); // first: an address it cannot bind leaks nothing
    this.reader = Executors.newSingleThreadExecutor(daemon("breakerctl-exporter-read"));
    this.http = Executors.newFixedThreadPool(4, daemon("breakerctl-exporter-http"));
    server.createContext("/metrics", this::metrics);
    server.createContext("/", this::root);
    server.setExecutor(http);
    server.start();
  }

  /** The bound address (its port, when port 0 was asked for). */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  @Override
  public void close() {
    server.stop(0);
    http.shutdownNow();
    reader.shutdownNow();
  }

  private void metrics(HttpExchange x) throws IOException {
    try (x) {
      if (!allowed(x)) {
        return;
      }
      boolean open = Exposition.wantsOpenMetrics(x.getRequestHeaders().getFirst("Accept"));
      Exposition e = scrape();
      x.getResponseHeaders().set("Content-Type", open ? Exposition.OPENMETRICS : Exposition.TEXT);
      if (x.getRequestMethod().equals("HEAD")) {
        x.sendResponseHeaders(200, -1);
        return;
      }
      x.sendResponseHeaders(200, 0); // chunked: written as it is encoded, never copied whole
      try (java.io.Writer w =
          new java.io.BufferedWriter(
              new java.io.OutputStreamWriter(x.getResponseBody(), StandardCharsets.UTF_8), 65536)) {
        e.write(w, open);
      }
    }
  }

  private void root(HttpExchange x) throws IOException {
    try (x) {
      if (!allowed(x)) {
        return;
      }
      boolean known = "/".equals(x.getRequestURI().getPath());
      x.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
      send(
          x,
          known ? 200 : 404,
          (known ? "breakerctl fleet exporter: GET /metrics\n" : "not found: GET /metrics\n")
              .getBytes(StandardCharsets.UTF_8));
    }
  }

  /** GET and HEAD only: anything else answers 405. */
  private static boolean allowed(HttpExchange x) throws IOException {
    String m = x.getRequestMethod();
    if (m.equals("GET") || m.equals("HEAD")) {
      return true;
    }
    x.getResponseHeaders().set("Allow", "GET, HEAD");
    x.sendResponseHeaders(405, -1);
    return false;
  }

  private static void send(HttpExchange x, int status, byte[] body) throws IOException {
    boolean head = x.getRequestMethod().equals("HEAD");
    x.sendResponseHeaders(status, head ? -1 : body.length);
    if (!head) {
      try (OutputStream out = x.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /**
   * The exposition a scrape answers now: the cached read while it is fresh, else the read in flight
   * (started when none is), waited for at most the timeout plus a grace.
   */
  Exposition scrape() {
    CompletableFuture<Scrape> f;
    synchronized (lock) {
      if (last != null && System.nanoTime() - last.endedNanos() < ttlNanos) {
        return last.exposition();
      }
      if (inFlight == null) {
        inFlight = CompletableFuture.supplyAsync(this::read, reader);
        inFlight.whenComplete(
            (s, e) -> {
              synchronized (lock) {
                inFlight = null;
                if (s != null) {
                  last = s;
                }
              }
            });
      }
      f = inFlight;
    }
    try {
      return f.get(timeout.plus(GRACE).toMillis(), TimeUnit.MILLISECONDS).exposition();
    } catch (TimeoutException e) {
      return failed("the read of Redis did not end within the scrape timeout (" + timeout + ")", 0);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return failed("interrupted", 0);
    } catch (ExecutionException e) {
      return failed(String.valueOf(e.getCause()), 0);
    }
  }

  /** One read of Redis, on the reader thread; never throws. */
  private Scrape read() {
    long start = System.nanoTime();
    synchronized (lock) {
      reads++;
    }
    Exposition e;
    try {
      FleetMetrics.Read r = FleetMetrics.read(store.get(), selection, timeout, batch);
      e = r.samples();
      if (r.error() != null) {
        e = withFleet(e, 0, "Redis unavailable for part of the keyspace: not read: " + r.error());
      } else {
        e = withFleet(e, 1, null);
      }
      e.sample("breakerctl_fleet_breakers", r.breakers());
    } catch (RuntimeException ex) {
      e = failed(ex.getMessage() == null ? ex.toString() : ex.getMessage(), 0);
    }
    e.sample("breakerctl_fleet_scrape_duration_seconds", (System.nanoTime() - start) / 1e9);
    return new Scrape(e, System.nanoTime());
  }

  /** An exposition with no breaker: {@code breakerctl_up 0} and the error. */
  private Exposition failed(String error, int breakers) {
    Exposition e = withFleet(FleetMetrics.declared(), 0, error);
    e.sample("breakerctl_fleet_breakers", breakers);
    return e;
  }

  /** Adds {@code up}, the last error (this one, when set) and the read count to {@code e}. */
  private Exposition withFleet(Exposition e, int up, String error) {
    String shown;
    long count;
    synchronized (lock) {
      if (error != null) {
        lastError = clean(error);
      }
      shown = lastError;
      count = reads;
    }
    e.sample("breakerctl_up", up);
    if (shown != null) {
      e.sample("breakerctl_last_error_info", 1, "error", shown);
    }
    e.sample("breakerctl_fleet_reads_total", count);
    return e;
  }

  /** An error fit for a label: no password, no control character, at most 300 characters. */
  private static String clean(String error) {
    String s = Printable.escape(Redaction.uri(error));
    return s.length() > ERROR_LENGTH ? s.substring(0, ERROR_LENGTH) + "..." : s;
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
