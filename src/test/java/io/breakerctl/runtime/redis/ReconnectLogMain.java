package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.model.Policy;
import io.breakerctl.runtime.store.Outcome;
import io.breakerctl.runtime.store.StoreFutures;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;

/**
 * A service JVM for {@link ReconnectLogIT}: {@code args[1]} stores connected to {@code args[0]},
 * Lettuce logging to stderr through java.util.logging, one line a record ({@code LEVEL logger
 * message}), with the watchdog's DEBUG lines on ({@code FINE}: its reconnect attempts, which the
 * limit does not touch). Prints {@code ready} on stdout, then waits to be killed.
 */
public final class ReconnectLogMain {
  /** Held: java.util.logging keeps loggers weakly, and a collected one loses its level. */
  private static final Logger WATCHDOG =
      Logger.getLogger("io.lettuce.core.protocol.ConnectionWatchdog");

  private ReconnectLogMain() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("java.util.logging.SimpleFormatter.format", "%4$s %3$s %5$s%n");
    LogManager.getLogManager().reset();
    ConsoleHandler h = new ConsoleHandler();
    h.setLevel(Level.ALL);
    Logger root = Logger.getLogger("");
    root.setLevel(Level.INFO);
    root.addHandler(h);
    WATCHDOG.setLevel(Level.FINE);
    List<RedisFleetStore> stores = new ArrayList<>();
    for (int i = 0; i < Integer.parseInt(args[1]); i++) {
      RedisFleetStore s = RedisFleetStore.connect(StoreConfig.builder().uri(args[0]).build());
      StoreFutures.await(
          s.record(BreakerId.parse("logs:n" + i), Outcome.failure("n" + i, ""), Policy.DEFAULT));
      stores.add(s);
    }
    System.out.println("ready");
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
