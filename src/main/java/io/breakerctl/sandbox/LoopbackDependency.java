package io.breakerctl.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real dependency on loopback for {@code breakerctl demo} and the fleet tests: a TCP server on
 * 127.0.0.1 that answers each one-byte request with {@code F} (failing) or {@code S} (healthy) and
 * records when every request reached it, and when every failed one did. Nodes in any JVM call it
 * through a {@link Client}, so what the tests count is what reached the dependency, not what a
 * breaker believes.
 */
public final class LoopbackDependency implements AutoCloseable {
  private final ServerSocket server;
  private final ConcurrentLinkedQueue<Long> times = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Long> failures = new ConcurrentLinkedQueue<>();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean failing = true;
  private volatile boolean open = true;

  /** Starts the server on a free loopback port, failing every request. */
  public LoopbackDependency() {
    this(true);
  }

  /** Starts the server on a free loopback port, failing (or answering) every request. */
  public LoopbackDependency(boolean failing) {
    this.failing = failing;
    try {
      server = new ServerSocket();
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread acceptor = new Thread(this::accept, "loopback-dependency");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** The port to pass to {@link Client}. */
  public int port() {
    return server.getLocalPort();
  }

  /** Makes the dependency fail (true) or answer (false) from now on. */
  public void failing(boolean failing) {
    this.failing = failing;
  }

  /** Requests that reached it in {@code [fromMillis, toMillis)} (wall clock). */
  public long reachedBetween(long fromMillis, long toMillis) {
    return times.stream().filter(t -> t >= fromMillis && t < toMillis).count();
  }

  /** Requests that reached it in {@code [fromMillis, toMillis)} and were failed. */
  public long failedBetween(long fromMillis, long toMillis) {
    return failures.stream().filter(t -> t >= fromMillis && t < toMillis).count();
  }

  /** Every request's arrival time (wall clock ms), in arrival order. */
  public List<Long> times() {
    return List.copyOf(times);
  }

  private void accept() {
    while (open) {
      try {
        Socket s = server.accept();
        s.setTcpNoDelay(true);
        sockets.add(s);
        Thread t = new Thread(() -> serve(s), "loopback-dependency-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket s) {
    try (s;
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream()) {
      while (open && in.read() >= 0) {
        long now = System.currentTimeMillis();
        boolean fail = failing;
        times.add(now);
        if (fail) {
          failures.add(now);
        }
        out.write(fail ? 'F' : 'S');
        out.flush();
      }
    } catch (IOException e) {
      // the client went away
    }
  }

  @Override
  public void close() {
    open = false;
    try {
      server.close();
    } catch (IOException e) {
      // closing
    }
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException e) {
        // closing
      }
    }
  }

  /** One node's connection to the dependency; {@link #call()} throws when it fails. */
  public static final class Client implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /** Connects to the dependency on loopback {@code port}. */
    public Client(int port) {
      try {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(5_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** One request; returns "ok" or throws {@link IllegalStateException} when it failed. */
    public synchronized String call() {
      int answer;
      try {
        out.write('?');
        out.flush();
        answer = in.read();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (answer != 'S') {
        throw new IllegalStateException("dependency failed");
      }
      return "ok";
    }

    @Override
    public void close() {
      try {
        socket.close();
      } catch (IOException e) {
        // closing
      }
    }
  }
}
