package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.model.BreakerId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Child-process load for {@link HistoryCheckIT}: {@code clients} {@link HistoryClient}s on one
 * breaker, each on its own connection, for {@code millis} after all connected. Prints {@code READY}
 * once connected, then, when all stopped, every client's log ({@link HistoryOp#line()} lines),
 * {@code ERRORS <node> {...}} per client with unknown answers and {@code DONE <ops>}.
 *
 * <p>Args: uri breakerId halfOpenPermits clients millis nodePrefix seed
 */
public final class HistoryClientMain {
  private HistoryClientMain() {}

  public static void main(String[] args) throws Exception {
    String uri = args[0];
    BreakerId id = BreakerId.parse(args[1]);
    int permits = Integer.parseInt(args[2]);
    int clients = Integer.parseInt(args[3]);
    long millis = Long.parseLong(args[4]);
    String prefix = args[5];
    long seed = Long.parseLong(args[6]);
    List<RedisBreakerStore> stores = new ArrayList<>();
    try {
      for (int c = 0; c < clients; c++) {
        stores.add(HistoryCheckIT.connect(uri, c));
      }
      System.out.println("READY");
      long end = System.nanoTime() + Duration.ofMillis(millis).toNanos();
      List<List<HistoryOp>> logs = new ArrayList<>();
      List<HistoryClient> all = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        List<HistoryOp> log = new ArrayList<>();
        HistoryClient client =
            new HistoryClient(
                stores.get(c),
                id,
                permits,
                prefix + "-c" + c,
                false,
                seed * 31 + c,
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
      // closed before the log is printed: nothing this process sent runs after the parent reads
      HistoryCheckIT.closeAll(stores);
      stores.clear();
      int ops = 0;
      StringBuilder out = new StringBuilder();
      for (List<HistoryOp> log : logs) {
        for (HistoryOp op : log) {
          out.append(op.line()).append('\n');
          ops++;
        }
      }
      for (int c = 0; c < clients; c++) {
        out.append("ERRORS ").append(prefix).append("-c").append(c).append(' ');
        out.append(all.get(c).errors()).append('\n');
      }
      out.append("DONE ").append(ops);
      System.out.println(out);
      System.out.flush();
    } finally {
      for (RedisBreakerStore s : stores) {
        s.close();
      }
    }
  }
}
