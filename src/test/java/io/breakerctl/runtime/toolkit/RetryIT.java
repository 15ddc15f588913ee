package io.breakerctl.runtime.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.breakerctl.runtime.BreakerRegistry;
import io.breakerctl.runtime.CallNotPermittedException;
import io.breakerctl.runtime.CallTimeoutException;
import io.breakerctl.runtime.CircuitBreaker;
import io.breakerctl.runtime.Mode;
import io.breakerctl.runtime.internal.RegistryInternals;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.redis.Poll;
import io.breakerctl.runtime.retry.Attempt;
import io.breakerctl.runtime.retry.Deadline;
import io.breakerctl.runtime.retry.Retry;
import io.breakerctl.runtime.retry.RetryPolicy;
import io.breakerctl.testing.RedisBinary;
import io.breakerctl.testing.RedisExtension;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Retries coordinated with the breaker, on a real redis-server. */
@DisplayName("Deadlines and retries")
class RetryIT {

  @RegisterExtension
  static final RedisExtension redis = RedisExtension.standalone(RedisBinary::embedded);

  private static final AtomicInteger SEQ = new AtomicInteger();

  private static BreakerRegistry node(String name, Policy policy) {
    return redis.manage(
        BreakerRegistry.builder()
            .redisUri(redis.uri())
            .nodeId(name)
            .mode(Mode.HYBRID)
            .defaults(policy)
            .flushInterval(Duration.ofMillis(200))
            .commandTimeout(Duration.ofSeconds(1))
            .build());
  }

  private static long failuresInRedis(BreakerRegistry r, BreakerId id) {
    return RegistryInternals.store(r).state(id).join().number("failuresTotal");
  }

  @Test
  @DisplayName(
      "20 nodes with retries send at most (1 + budget) x first attempts, none once they see the trip")
  void retryAmplification() throws Exception {
    BreakerId id = BreakerId.parse("retry:fleet-" + SEQ.incrementAndGet());
    Policy policy = Policy.builder().failureThreshold(60).open(Duration.ofSeconds(60)).build();
    RetryPolicy retries =
        RetryPolicy.builder()
            .maxAttempts(4)
            .baseDelay(Duration.ofMillis(5))
            .maxDelay(Duration.ofMillis(20))
            .budgetRatio(0.5)
            .budgetWindow(Duration.ofSeconds(60))
            .build();
    int nodes = 20;
    AtomicLong firsts = new AtomicLong();
    AtomicLong attempts = new AtomicLong();
    AtomicLong afterTrip = new AtomicLong();
    List<OutcomeCounter> counters = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    AtomicInteger rejectedNodes = new AtomicInteger();
    for (int i = 0; i < nodes; i++) {
      CircuitBreaker cb = node("retry-node-" + i, policy).breaker(id);
      OutcomeCounter counter = new OutcomeCounter();
      cb.observe(counter);
      counters.add(counter);
      Retry retry = Retry.of(cb, retries);
      Thread t =
          new Thread(
              () -> {
                boolean sawTrip = false;
                int afterRejection = 0;
                for (int call = 0; call < 200 && afterRejection < 5; call++) {
                  boolean tripped = sawTrip;
                  try {
                    retry.call(
                        a -> {
                          attempts.incrementAndGet();
                          if (a.number() == 1) {
                            firsts.incrementAndGet();
                          }
                          if (tripped) {
                            afterTrip.incrementAndGet();
                          }
                          throw new ConnectException("dependency down");
                        });
                  } catch (CallNotPermittedException e) {
                    if (!sawTrip) {
                      rejectedNodes.incrementAndGet();
                    }
                    sawTrip = true;
                    afterRejection++;
                  } catch (Exception e) {
                    // the dependency's failure, after the retries the budget allowed
                  }
                  pause(10);
                }
              });
      threads.add(t);
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join(30_000);
    }

    long retried = counters.stream().mapToLong(c -> c.retries.sum()).sum();
    long exhausted = counters.stream().mapToLong(c -> c.budgetExhausted.sum()).sum();
    System.out.printf(
        "retry amplification: %d first attempts, %d attempts, %d retries, budget spent %d times%n",
        firsts.get(), attempts.get(), retried, exhausted);
    assertThat(rejectedNodes.get()).as("nodes that saw the trip").isEqualTo(nodes);
    assertThat(afterTrip.get()).as("attempts after a node saw the trip").isZero();
    assertThat(retried).as("retries made").isPositive();
    assertThat(exhausted).as("retries refused by the budget").isPositive();
    assertThat(attempts.get()).isEqualTo(firsts.get() + retried);
    assertThat((double) attempts.get()).isLessThanOrEqualTo(1.5 * firsts.get());
  }

  @Test
  @DisplayName("Retry-After is honoured; one past the deadline ends the call without waiting")
  void retryAfter() throws Exception {
    List<Long> arrivals = new CopyOnWriteArrayList<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        ex -> {
          arrivals.add(System.nanoTime());
          boolean first = arrivals.size() == 1;
          String wait = ex.getRequestURI().getPath().contains("long") ? "10" : "1";
          if (first || ex.getRequestURI().getPath().contains("long")) {
            ex.getResponseHeaders().add("Retry-After", wait);
            ex.sendResponseHeaders(429, -1);
          } else {
            ex.sendResponseHeaders(200, -1);
          }
          ex.close();
        });
    server.start();
    try {
      HttpClient http = HttpClient.newHttpClient();
      BreakerRegistry r = node("retry-after", Policy.DEFAULT);
      CircuitBreaker cb = r.breaker(BreakerId.parse("retry:after-" + SEQ.incrementAndGet()));
      // a budget of one retry per first attempt: the first call may retry once
      Retry retry = Retry.of(cb, RetryPolicy.builder().budgetRatio(1).build());
      String base = "http://127.0.0.1:" + server.getAddress().getPort();

      HttpResponse<Void> ok =
          retry.call(
              Deadline.after(Duration.ofSeconds(10)),
              a -> http.send(get(base + "/short"), HttpResponse.BodyHandlers.discarding()));

      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(arrivals).hasSize(2);
      assertThat(arrivals.get(1) - arrivals.get(0))
          .as("nanos between the 429 and the retry")
          .isGreaterThanOrEqualTo(Duration.ofSeconds(1).toNanos());

      arrivals.clear();
      arrivals.add(0L); // the next answers are 429 with Retry-After: 10
      long start = System.nanoTime();
      HttpResponse<Void> limited =
          retry.call(
              Deadline.after(Duration.ofSeconds(2)),
              a -> http.send(get(base + "/long"), HttpResponse.BodyHandlers.discarding()));
      assertThat(limited.statusCode()).isEqualTo(429);
      assertThat(arrivals).hasSize(2);
      // it did not wait the 10 s Retry-After: a generous bound (2.5x the 2 s deadline) far below it
      assertThat(System.nanoTime() - start).isLessThan(Duration.ofSeconds(5).toNanos());
      assertThat(failuresInRedis(r, cb.id())).as("rate limits are not failures").isZero();
    } finally {
      server.stop(0);
    }
  }

  @Test
  @DisplayName("no attempt outlives its deadline: each is abandoned, counted as a failure")
  void deadlines() throws Exception {
    BreakerRegistry r = node("retry-deadline", Policy.DEFAULT);
    CircuitBreaker cb = r.breaker(BreakerId.parse("retry:deadline-" + SEQ.incrementAndGet()));
    Retry retry =
        Retry.of(
            cb,
            RetryPolicy.builder()
                .maxAttempts(5)
                .attemptTimeout(Duration.ofMillis(150))
                .baseDelay(Duration.ofMillis(5))
                .budgetRatio(1)
                .build());
    // the budget needs first attempts to lend retries: a few quick successes first
    for (int i = 0; i < 5; i++) {
      retry.call(a -> "warm");
    }
    List<Attempt> seen = new CopyOnWriteArrayList<>();
    List<Long> ended = new CopyOnWriteArrayList<>();
    Set<String> keys = ConcurrentHashMap.newKeySet();
    long start = System.nanoTime();
    long budget = Duration.ofMillis(400).toNanos();
    // every call returns within a generous bound of its deadline (a loaded machine), far below the
    // 30 s an attempt that outlived it would take
    long slack = Duration.ofSeconds(5).toNanos();

    assertThatThrownBy(
            () ->
                retry.call(
                    Deadline.after(Duration.ofNanos(budget)),
                    a -> {
                      seen.add(a);
                      keys.add(a.idempotencyKey());
                      try {
                        Thread.sleep(30_000);
                      } finally {
                        ended.add(System.nanoTime() - start);
                      }
                      return "never";
                    }))
        .isInstanceOf(CallTimeoutException.class);
    long took = System.nanoTime() - start;

    assertThat(took).isLessThan(budget + slack);
    assertThat(seen).hasSizeGreaterThanOrEqualTo(2);
    assertThat(seen).extracting(Attempt::number).startsWith(1, 2);
    assertThat(keys).hasSize(1);
    Poll.until(Duration.ofSeconds(5), "every attempt ended", () -> ended.size() == seen.size());
    assertThat(ended).allSatisfy(t -> assertThat(t).isLessThan(budget + slack));
    Poll.until(
        Duration.ofSeconds(5),
        "every attempt counted as a failure",
        () -> failuresInRedis(r, cb.id()) == seen.size());
    assertThat(cb.view().state()).isEqualTo(State.CLOSED);
  }

  @Test
  @DisplayName("async attempts past their timeout are abandoned and retried; the next one answers")
  void asyncDeadlines() throws Exception {
    BreakerRegistry r = node("retry-async", Policy.DEFAULT);
    CircuitBreaker cb = r.breaker(BreakerId.parse("retry:async-" + SEQ.incrementAndGet()));
    OutcomeCounter counter = new OutcomeCounter();
    cb.observe(counter);
    Retry retry =
        Retry.of(
            cb,
            RetryPolicy.builder()
                .maxAttempts(3)
                .attemptTimeout(Duration.ofMillis(100))
                .baseDelay(Duration.ofMillis(5))
                .budgetRatio(1)
                .build());
    retry.call(a -> "lend the budget a first attempt");
    List<java.util.concurrent.CompletableFuture<String>> started = new CopyOnWriteArrayList<>();
    Set<String> keys = ConcurrentHashMap.newKeySet();

    String answer =
        retry
            .callAsync(
                Deadline.after(Duration.ofSeconds(5)),
                a -> {
                  keys.add(a.idempotencyKey());
                  java.util.concurrent.CompletableFuture<String> f =
                      new java.util.concurrent.CompletableFuture<>();
                  started.add(f);
                  if (a.number() == 2) {
                    f.complete("answered on attempt 2");
                  }
                  return f; // attempt 1 never answers
                })
            .toCompletableFuture()
            .get(5, java.util.concurrent.TimeUnit.SECONDS);

    assertThat(answer).isEqualTo("answered on attempt 2");
    assertThat(started).hasSize(2);
    assertThat(started.get(0)).as("the abandoned attempt is cancelled").isCancelled();
    assertThat(keys).hasSize(1);
    assertThat(counter.count(io.breakerctl.runtime.CallOutcome.TIMEOUT)).isEqualTo(1);
    assertThat(counter.count(io.breakerctl.runtime.CallOutcome.SUCCESS)).isEqualTo(2);
    assertThat(counter.retries.sum()).isEqualTo(1);
    Poll.until(
        Duration.ofSeconds(5),
        "the timeout counted in Redis",
        () -> failuresInRedis(r, cb.id()) == 1);

    assertThatThrownBy(
            () ->
                retry
                    .callAsync(
                        Deadline.after(Duration.ofMillis(250)),
                        a -> new java.util.concurrent.CompletableFuture<String>())
                    .toCompletableFuture()
                    .join())
        .hasCauseInstanceOf(CallTimeoutException.class);
  }

  @Test
  @DisplayName(
      "under rateLimited BACKOFF a 429's Retry-After shuts the fleet: no retry, the caller sees"
          + " the 429 and the breaker is open for the hint")
  void aRetryAfterTheFleetTookIsNotRetried() throws Exception {
    List<Long> arrivals = new CopyOnWriteArrayList<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        ex -> {
          arrivals.add(System.currentTimeMillis());
          ex.getResponseHeaders().add("Retry-After", "1");
          ex.sendResponseHeaders(429, -1);
          ex.close();
        });
    server.start();
    try {
      HttpClient http = HttpClient.newHttpClient();
      BreakerRegistry r =
          node(
              "retry-backoff",
              Policy.builder()
                  .rateLimited(io.breakerctl.runtime.model.RateLimitAction.BACKOFF)
                  .build());
      CircuitBreaker cb = r.breaker(BreakerId.parse("retry:backoff-" + SEQ.incrementAndGet()));
      Retry retry = Retry.of(cb, RetryPolicy.builder().budgetRatio(1).build());
      String base = "http://127.0.0.1:" + server.getAddress().getPort();
      HttpResponse<Void> limited =
          retry.call(
              Deadline.after(Duration.ofSeconds(10)),
              a -> http.send(get(base + "/"), HttpResponse.BodyHandlers.discarding()));
      assertThat(limited.statusCode()).isEqualTo(429);
      assertThat(arrivals).as("one attempt: the fleet is shut for the Retry-After").hasSize(1);
      Poll.until(
          Duration.ofSeconds(5),
          "the breaker opened for the hint",
          () -> RegistryInternals.store(r).state(cb.id()).join().number("hintMillis") == 1000);
      assertThat(failuresInRedis(r, cb.id())).as("BACKOFF counts no failure").isZero();
    } finally {
      server.stop(0);
    }
  }

  private static HttpRequest get(String uri) {
    return HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(5)).build();
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
