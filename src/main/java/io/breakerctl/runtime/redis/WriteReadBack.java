package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.runtime.store.WriteLanding;
import io.breakerctl.runtime.store.WriteOutcome;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Reads back whether a write whose answer was lost landed, by its correlation id, over fresh
 * connections: the breaker's hash ({@code overrideCorrelationId}) and the newest {@value
 * #NEWEST_EVENTS} events of its stream (every script that changes a breaker appends one event
 * carrying the correlation id).
 *
 * <p>Why: a connection that dies after the script ran loses only the answer. {@code breakerctl
 * force} then reported a failed override that had landed (2 of 8 killed connections). Found is
 * found whenever Redis says so. Not found is only final once the write's own connection is closed:
 * a write that timed out on an open connection (Redis paused, slow, or the client about to resend
 * it after a reconnect) may still run. So the first answer that finds nothing closes that
 * connection, and only two later answers that find nothing say {@link WriteOutcome#NOT_APPLIED}:
 * the second is sent after the first was answered, so Redis has by then handled everything the
 * closed connection had delivered (run, or dropped with the connection). No answer within the
 * budget is {@link WriteOutcome#UNKNOWN}.
 */
final class WriteReadBack {
  /** How many of a breaker's newest events are searched. */
  static final int NEWEST_EVENTS = 100;

  private static final long PAUSE_MILLIS = 100;

  /** A fresh connection and its commands. */
  record Fresh(
      StatefulConnection<String, String> connection,
      RedisClusterAsyncCommands<String, String> commands) {}

  private final Supplier<Fresh> open;
  private final Runnable closeWriter;
  private final Duration budget;
  private final Duration attempt;

  /**
   * A read-back opening connections with {@code open}; {@code closeWriter} closes the write's own
   * connection; the read-back gives up after {@code budget}, each answer awaited at most {@code
   * attempt}.
   */
  WriteReadBack(Supplier<Fresh> open, Runnable closeWriter, Duration budget, Duration attempt) {
    this.open = open;
    this.closeWriter = closeWriter;
    this.budget = budget;
    this.attempt = attempt;
  }

  /** Whether a change to {@code id} carrying {@code correlationId} landed. */
  WriteLanding find(BreakerId id, BreakerKeys keys, String correlationId) {
    long deadline = System.nanoTime() + budget.toNanos();
    boolean writerClosed = false;
    int emptyAfterClose = 0;
    String last = "no answer";
    Fresh fresh = null;
    try {
      while (true) {
        try {
          if (fresh == null) {
            fresh = connect(deadline);
          }
          CompletableFuture<Map<String, String>> hash =
              fresh.commands().hgetall(keys.hash(id)).toCompletableFuture();
          CompletableFuture<List<StreamMessage<String, String>>> events =
              fresh
                  .commands()
                  .xrevrange(keys.events(id), Range.unbounded(), Limit.from(NEWEST_EVENTS))
                  .toCompletableFuture();
          Map<String, String> fields = await(hash, deadline);
          List<StreamMessage<String, String>> newest = await(events, deadline);
          Optional<BreakerEvent> event =
              newest.stream()
                  .filter(m -> correlationId.equals(m.getBody().get("correlationId")))
                  .findFirst()
                  .map(m -> new BreakerEvent(id, m.getId(), Map.copyOf(m.getBody())));
          if (event.isPresent() || correlationId.equals(fields.get("overrideCorrelationId"))) {
            return new WriteLanding(WriteOutcome.APPLIED, event, Map.copyOf(fields), "");
          }
          if (!writerClosed) {
            closeWriter.run();
            writerClosed = true;
          } else if (++emptyAfterClose == 2) {
            return new WriteLanding(WriteOutcome.NOT_APPLIED, Optional.empty(), Map.of(), "");
          }
        } catch (RuntimeException e) {
          StoreException failure = StoreErrors.translate("read back " + id, e);
          last = failure.getMessage();
          if (failure instanceof StorePermissionException) {
            // refused, not silent: asking again changes nothing
            return new WriteLanding(WriteOutcome.UNKNOWN, Optional.empty(), Map.of(), last);
          }
          if (fresh != null) {
            close(fresh);
            fresh = null;
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return new WriteLanding(WriteOutcome.UNKNOWN, Optional.empty(), Map.of(), last);
        }
        sleep(Math.min(PAUSE_MILLIS, TimeUnit.NANOSECONDS.toMillis(left) + 1));
      }
    } finally {
      if (!writerClosed) {
        // the outcome is reported now: a write still queued on that connection must not land later
        closeWriter.run();
      }
      if (fresh != null) {
        close(fresh);
      }
    }
  }

  /** Opens a fresh connection within the deadline; one that opens later is closed. */
  private Fresh connect(long deadline) {
    CompletableFuture<Fresh> f = CompletableFuture.supplyAsync(open);
    try {
      return await(f, deadline);
    } catch (RuntimeException e) {
      f.thenAccept(WriteReadBack::close);
      throw e;
    }
  }

  private <T> T await(CompletableFuture<T> f, long deadline) {
    long limit = Math.min(attempt.toNanos(), Math.max(1, deadline - System.nanoTime()));
    try {
      return f.get(limit, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new StoreUnavailableException(
          "no answer within " + TimeUnit.NANOSECONDS.toMillis(limit) + " ms", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw StoreErrors.translate("read back", e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted", e);
    }
  }

  private static void close(Fresh f) {
    try {
      f.connection().close();
    } catch (RuntimeException e) {
      // abandoned either way
    }
  }
}
