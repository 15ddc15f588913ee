package io.breakerctl.console;

import io.breakerctl.BreakerCtl;
import io.breakerctl.cli.Environment;
import io.breakerctl.cli.GlobalOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jline.builtins.ScreenTerminal;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.impl.ExternalTerminal;
import picocli.CommandLine;

/**
 * A real JLine terminal (an xterm over piped streams, fixed size) running a {@link Console} on its
 * own thread: the tests type keys into it and read both what it wrote (escapes stripped) and the
 * screen a VT100 emulator makes of it.
 */
public final class VirtualTerminal implements AutoCloseable {
  /** CSI sequences (ESC [ ... final), keypad modes (ESC = / ESC >), charsets, OSC strings. */
  private static final Pattern ESCAPES =
      Pattern.compile("\u001b(\\[[0-?]*[ -/]*[@-~]|[=>]|[()][0-9A-B]|\\][^\u0007]*\u0007)");

  private final PipedOutputStream keys = new PipedOutputStream();
  private final StringBuilder written = new StringBuilder();
  private final ScreenTerminal screen;
  private final Terminal terminal;
  private final Thread thread;
  private final AtomicInteger code = new AtomicInteger(-1);
  private volatile Throwable failure;

  public VirtualTerminal(Map<String, String> variables, int columns, int rows) throws IOException {
    this(variables, columns, rows, "xterm");
  }

  /**
   * A terminal of {@code type} (e.g. {@code dumb}) running the console as {@code breakerctl
   * GLOBALS... console} would: {@code globals} are parsed by the command model.
   */
  VirtualTerminal(
      Map<String, String> variables, int columns, int rows, String type, String... globals)
      throws IOException {
    screen = new ScreenTerminal(columns, rows);
    PipedInputStream in = new PipedInputStream(keys, 64 * 1024);
    OutputStream out =
        new OutputStream() {
          @Override
          public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
          }

          @Override
          public void write(byte[] b, int off, int len) {
            String s = new String(b, off, len, StandardCharsets.UTF_8);
            synchronized (written) {
              written.append(s);
            }
            screen.write(s);
          }
        };
    // JLine's line discipline in Java (not a pty): Ctrl-C raises SIGINT to this terminal's handler
    ExternalTerminal external =
        new ExternalTerminal("virtual", type, in, out, StandardCharsets.UTF_8);
    external.setSize(new Size(columns, rows));
    terminal = external;
    Environment env =
        new Environment(
            variables, true, Clock.systemUTC(), new BufferedReader(new StringReader("")), "it");
    CommandLine model = BreakerCtl.commandLine(env);
    model.parseArgs(Stream.concat(Stream.of(globals), Stream.of("console")).toArray(String[]::new));
    BreakerCtl root = (BreakerCtl) model.getCommand();
    GlobalOptions options = root.globals();
    thread =
        new Thread(
            () -> {
              try {
                code.set(
                    new Console(terminal, env, options, BreakerCtl::commandLine, root.stores())
                        .run());
              } catch (Throwable t) {
                failure = t;
              }
            },
            "console-under-test");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * The variables of a console confined to {@code home}: its XDG config and state there, no colour,
   * a 3 s timeout; plus {@code more} (name, value, ...).
   */
  public static Map<String, String> variables(Path home, String... more) {
    Map<String, String> all = new HashMap<>();
    all.put("XDG_STATE_HOME", home.resolve("state").toString());
    all.put("XDG_CONFIG_HOME", home.resolve("config").toString());
    all.put("BREAKERCTL_TIMEOUT", "3s");
    all.put("NO_COLOR", "1");
    for (int i = 0; i + 1 < more.length; i += 2) {
      all.put(more[i], more[i + 1]);
    }
    return all;
  }

  /** How long a test waits for what the console should show (far above any normal run). */
  public static final Duration BOUND = Duration.ofSeconds(15);

  /** Up-arrow as an xterm sends it in keypad mode (which JLine's reader turns on). */
  static final String UP = "\u001bOA";

  /** Types keys (Ctrl-C is \u0003, Ctrl-D \u0004, Enter \r, Tab \t). */
  public void type(String s) throws IOException {
    keys.write(s.getBytes(StandardCharsets.UTF_8));
    keys.flush();
  }

  /** Everything written so far, escapes stripped. */
  public String text() {
    synchronized (written) {
      return ESCAPES.matcher(written.toString()).replaceAll("");
    }
  }

  /** The emulated screen now. */
  public String screen() {
    return screen.toString();
  }

  /** Waits (bounded) until the written text satisfies {@code ok}; fails naming what it saw. */
  public String awaitText(Predicate<String> ok, Duration bound, String what) {
    return await(this::text, ok, bound, what);
  }

  /** Waits (bounded) until the screen satisfies {@code ok}. */
  public String awaitScreen(Predicate<String> ok, Duration bound, String what) {
    return await(this::screen, ok, bound, what);
  }

  private String await(
      java.util.function.Supplier<String> read, Predicate<String> ok, Duration bound, String what) {
    long deadline = System.nanoTime() + bound.toNanos();
    while (true) {
      String now = read.get();
      if (ok.test(now)) {
        return now;
      }
      if (failure != null) {
        throw new AssertionError("the console failed", failure);
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "timed out after " + bound.toMillis() + " ms waiting for " + what + "; saw:\n" + now);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted");
      }
    }
  }

  /** Waits for the console to end; returns its exit code. */
  int awaitExit(Duration bound) throws InterruptedException {
    thread.join(bound.toMillis());
    if (thread.isAlive()) {
      throw new AssertionError("the console did not end within " + bound + "; saw:\n" + text());
    }
    if (failure != null) {
      throw new AssertionError("the console failed", failure);
    }
    return code.get();
  }

  @Override
  public void close() throws IOException {
    if (thread.isAlive()) {
      type("\u0004");
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    terminal.close();
  }
}
