package io.breakerctl.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy in front of a server port, for fault-injection tests. Point the client at
 * {@link #port()} and switch the {@link Mode} at run time:
 *
 * <ul>
 *   <li>{@link #pass()}: forward bytes both ways.
 *   <li>{@link #delay(Duration)}: forward, sleeping {@code delay} before each chunk.
 *   <li>{@link #drop()}: blackhole; connections stay open (new ones are accepted) but nothing is
 *       forwarded, so clients see timeouts rather than errors. Bytes sent meanwhile are held, not
 *       discarded, and are delivered if the mode returns to PASS or DELAY, as TCP retransmission
 *       would after a healed partition; this keeps request/reply streams in sync for clients (like
 *       Lettuce) that match replies to timed-out commands.
 *   <li>{@link #reset()}: abort every open connection with a TCP RST and reset new ones
 *       immediately, until the mode changes.
 * </ul>
 *
 * <p>{@link #onRequest} acts once on the next request that contains a marker: runs an action before
 * forwarding it (pause or stop the server), then passes, discards or resets the server's answer.
 *
 * <p>All threads are daemon threads owned by an executor that {@link #close()} shuts down.
 */
public final class TcpProxy implements AutoCloseable {

  /** What happens to the server's answer to a request {@link #onRequest} caught. */
  public enum Answer {
    /** Forwarded as usual. */
    PASS,
    /** Discarded, with everything else the server sends on that connection; it stays open. */
    DISCARD,
    /** Not forwarded: both sides of that connection are reset (RST) when it arrives. */
    RESET
  }

  private record Trigger(byte[] marker, Runnable before, Answer answer) {}

  private final java.util.concurrent.atomic.AtomicReference<Trigger> trigger =
      new java.util.concurrent.atomic.AtomicReference<>();
  private final java.util.Map<Socket, Answer> caught = new ConcurrentHashMap<>();
  private volatile byte[] watched;
  private final Set<Socket> watchedSockets = ConcurrentHashMap.newKeySet();

  /** Forwarding behaviour. */
  public enum Mode {
    PASS,
    DELAY,
    DROP,
    RESET
  }

  private final String targetHost;
  private final int targetPort;
  private final ServerSocket server;
  private final ExecutorService threads;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Object modeChanged = new Object();
  private volatile Mode mode = Mode.PASS;
  private volatile Duration delay = Duration.ZERO;
  private volatile boolean closed;

  private TcpProxy(String targetHost, int targetPort) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    AtomicInteger n = new AtomicInteger();
    this.threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "tcp-proxy-" + targetPort + "-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    try {
      server = new ServerSocket();
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    } catch (IOException e) {
      threads.shutdownNow();
      throw new UncheckedIOException(e);
    }
    threads.execute(this::acceptLoop);
  }

  /** Starts a proxy on a free loopback port forwarding to {@code 127.0.0.1:targetPort}. */
  public static TcpProxy to(int targetPort) {
    return to(RedisServerProcess.HOST, targetPort);
  }

  /** Starts a proxy on a free loopback port forwarding to {@code host:targetPort}. */
  public static TcpProxy to(String host, int targetPort) {
    return new TcpProxy(host, targetPort);
  }

  /** The local port clients should connect to. */
  public int port() {
    return server.getLocalPort();
  }

  /** {@code redis://127.0.0.1:<port()>}. */
  public String uri() {
    return "redis://" + RedisServerProcess.HOST + ":" + port();
  }

  /** The current mode. */
  public Mode mode() {
    return mode;
  }

  /** Forward normally. */
  public void pass() {
    setMode(Mode.PASS);
  }

  /** Forward, adding {@code perChunk} latency before every chunk in either direction. */
  public void delay(Duration perChunk) {
    delay = perChunk;
    setMode(Mode.DELAY);
  }

  /** Blackhole: keep (and accept) connections, forward nothing. */
  public void drop() {
    setMode(Mode.DROP);
  }

  /** RST all open connections and every new one until the mode changes. */
  public void reset() {
    setMode(Mode.RESET);
    for (Socket s : sockets) {
      abort(s);
    }
  }

  /**
   * Once, on the next chunk a client sends that contains {@code marker} (UTF-8): runs {@code
   * before}, forwards the chunk, and treats what the server sends back on that connection as {@code
   * answer} says. Other connections, and new ones, are forwarded as the mode says.
   */
  public void onRequest(String marker, Runnable before, Answer answer) {
    trigger.set(
        new Trigger(marker.getBytes(java.nio.charset.StandardCharsets.UTF_8), before, answer));
  }

  private void setMode(Mode newMode) {
    synchronized (modeChanged) {
      mode = newMode;
      modeChanged.notifyAll();
    }
  }

  /**
   * From now on, remembers every connection whose client sends a chunk containing {@code marker}
   * (UTF-8), for {@link #silenceWatched}.
   */
  public void watch(String marker) {
    watched = marker.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * Silences the connections {@link #watch} remembered: what their server sends is discarded while
   * they stay open, as from a server that stalled for them alone (a subscription whose server
   * delivers nothing). Other connections, and new ones, are forwarded as the mode says.
   */
  public void silenceWatched() {
    for (Socket upstream : watchedSockets) {
      caught.put(upstream, Answer.DISCARD);
    }
  }

  /** Number of currently open proxied socket pairs (client side plus upstream side, halved). */
  public int openConnections() {
    return sockets.size() / 2;
  }

  /** Closes the listening socket and every connection, and stops all threads. */
  @Override
  public void close() {
    closed = true;
    setMode(Mode.RESET);
    try {
      server.close();
    } catch (IOException e) {
      // ignore
    }
    for (Socket s : sockets) {
      abort(s);
    }
    threads.shutdownNow();
    try {
      threads.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      if (mode == Mode.RESET) {
        abort(client);
        continue;
      }
      Socket upstream = new Socket();
      try {
        upstream.connect(new InetSocketAddress(targetHost, targetPort), 2000);
      } catch (IOException e) {
        abort(client);
        closeQuietly(upstream);
        continue;
      }
      sockets.add(client);
      sockets.add(upstream);
      try {
        threads.execute(() -> pump(client, upstream, true));
        threads.execute(() -> pump(upstream, client, false));
      } catch (RuntimeException e) {
        abort(client);
        abort(upstream);
      }
    }
  }

  private void pump(Socket from, Socket to, boolean request) {
    byte[] buf = new byte[16 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buf)) >= 0) {
        Mode m = awaitNotDropping();
        if (m == Mode.RESET) {
          break;
        }
        if (m == Mode.DELAY && !delay.isZero()) {
          Thread.sleep(delay.toMillis());
        }
        byte[] w = watched;
        if (request && w != null && contains(buf, n, w)) {
          watchedSockets.add(to);
        }
        Trigger t = trigger.get();
        if (request
            && t != null
            && contains(buf, n, t.marker())
            && trigger.compareAndSet(t, null)) {
          caught.put(to, t.answer());
          t.before().run();
        }
        Answer answer = request ? null : caught.get(from);
        if (answer == Answer.DISCARD) {
          continue;
        }
        if (answer == Answer.RESET) {
          abort(from);
          abort(to);
          break;
        }
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // peer closed or reset
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (!request) {
        caught.remove(from);
        watchedSockets.remove(from);
      }
      if (mode == Mode.RESET || closed) {
        abort(from);
        abort(to);
      } else {
        closeQuietly(from);
        closeQuietly(to);
      }
    }
  }

  private static boolean contains(byte[] buf, int n, byte[] marker) {
    outer:
    for (int i = 0; i + marker.length <= n; i++) {
      for (int j = 0; j < marker.length; j++) {
        if (buf[i + j] != marker[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private Mode awaitNotDropping() throws InterruptedException {
    synchronized (modeChanged) {
      while (mode == Mode.DROP && !closed) {
        modeChanged.wait(100);
      }
      return mode;
    }
  }

  private void abort(Socket s) {
    sockets.remove(s);
    try {
      s.setSoLinger(true, 0);
    } catch (IOException e) {
      // already closed
    }
    closeQuietly(s);
  }

  private void closeQuietly(Socket s) {
    sockets.remove(s);
    try {
      s.close();
    } catch (IOException e) {
      // ignore
    }
  }
}
