package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Child-process load for {@link HistoryCheckIT}: for each breaker in turn (a phase), {@code
 * clients} {@link HistoryClient}s on it, each on its own connection, for {@code millis}. All
 * connections are opened first (one JVM start serves every phase); prints {@code READY}, then
 * {@code START <breaker>} as a phase begins and, once its clients stopped and their connections
 * closed, one block: {@code LOG <breaker>}, every client's log ({@link HistoryOp#line()} lines),
 * {@code ERRORS <node> {...}} per client, {@code DONE <breaker> <ops>}.
 *
 * <p>Args: uri clients millis nodePrefix seed permits@breakerId...
 */
public final class HistoryClientMain {
  private HistoryClientMain() {}

  public static void main(String[] args) throws Exception {
    String uri = args[0];
    int clients = Integer.parseInt(args[1]);
    long millis = Long.parseLong(args[2]);
    String prefix = args[3];
    long seed = Long.parseLong(args[4]);
    List<List<RedisFleetStore>> stores = new ArrayList<>();
    List<Thread> reporting = new ArrayList<>();
    boolean reported = false;
    try {
      for (int p = 5; p < args.length; p++) {
        List<RedisFleetStore> phase = new ArrayList<>();
        stores.add(phase);
        for (int c = 0; c < clients; c++) {
          phase.add(HistoryCheckIT.connect(uri, c));
        }
      }
      System.out.println("READY");
      for (int p = 5; p < args.length; p++) {
        String[] phase = args[p].split("@", 2);
        int permits = Integer.parseInt(phase[0]);
        BreakerId id = BreakerId.parse(phase[1]);
        List<RedisFleetStore> phaseStores = stores.get(p - 5);
        System.out.println("START " + id);
        long end = System.nanoTime() + Duration.ofMillis(millis).toNanos();
        List<List<HistoryOp>> logs = new ArrayList<>();
        List<HistoryClient> all = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
          List<HistoryOp> log = new ArrayList<>();
          HistoryClient client =
              new HistoryClient(
                  phaseStores.get(c),
                  id,
                  permits,
                  prefix + "-c" + c,
                  false,
                  seed * 31 + p * 7 + c,
                  end,
                  HistoryCheckIT.answerWait(c),
                  log);
          logs.add(log);
          all.add(client);
          Thread t = new Thread(client, prefix + "-c" + c);
          t.start();
          threads.add(t);
        }
        for (Thread t : threads) {
          t.join();
        }
        // the next phase starts at once; this one's connections are closed before its log is
        // printed, so nothing it sent runs after the parent read the breaker
        Thread report = new Thread(() -> report(id, prefix, phaseStores, logs, all));
        report.start();
        reporting.add(report);
      }
      for (Thread t : reporting) {
        t.join();
      }
      reported = true;
    } finally {
      for (List<RedisFleetStore> phase : reported ? List.<List<RedisFleetStore>>of() : stores) {
        for (RedisFleetStore s : phase) {
          s.close();
        }
      }
    }
  }

  private static void report(
      BreakerId id,
      String prefix,
      List<RedisFleetStore> stores,
      List<List<HistoryOp>> logs,
      List<HistoryClient> clients) {
    try {
      HistoryCheckIT.closeAll(stores);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    int ops = 0;
    StringBuilder out = new StringBuilder("LOG ").append(id).append('\n');
    for (List<HistoryOp> log : logs) {
      for (HistoryOp op : log) {
        out.append(op.line()).append('\n');
        ops++;
      }
    }
    for (int c = 0; c < clients.size(); c++) {
      out.append("ERRORS ").append(prefix).append("-c").append(c).append(' ');
      out.append(clients.get(c).errors()).append('\n');
    }
    out.append("DONE ").append(id).append(' ').append(ops);
    System.out.println(out);
    System.out.flush();
  }
}
