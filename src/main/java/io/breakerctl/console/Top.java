package io.breakerctl.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.breakerctl.cli.output.BreakerView;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerEvent;
import io.breakerctl.runtime.store.FleetStore;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.jline.terminal.Attributes;
import org.jline.terminal.Terminal;
import org.jline.utils.AttributedString;
import org.jline.utils.InfoCmp.Capability;
import org.jline.utils.NonBlockingReader;

/**
 * The full-screen loop of {@code top}: reads the fleet when a message arrives on the runtime's
 * events channel (pub/sub) and at every interval, redraws what changed, and answers keys. Force and
 * clear ask for a reason and a confirmation on the status line, then run {@code force} through the
 * command model (the same audit as on the command line).
 */
final class Top {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int READ_EXPIRED = -2;

  private final Terminal terminal;
  private final Supplier<List<BreakerView>> read;

  /** The breakers whose streams are read at start for the footer (the first by severity). */
  private static final int RECENT_SCAN = 500;

  private boolean recentLoaded;
  private final FleetStore store;
  private final Duration interval;
  private final BiFunction<List<String>, String, String> force;
  private final TopScreen screen = new TopScreen();
  private final AtomicBoolean dirty = new AtomicBoolean(true);
  private final boolean colour;
  private List<AttributedString> shown = List.of();
  private int width;
  private int height;

  /**
   * @param read reads every breaker as {@code status} does
   * @param store where to subscribe to the events channel
   * @param force runs a {@code force} command line and returns its one-line outcome
   */
  Top(
      Terminal terminal,
      String title,
      Supplier<List<BreakerView>> read,
      FleetStore store,
      Duration interval,
      BiFunction<List<String>, String, String> force,
      boolean colour) {
    this.terminal = terminal;
    this.read = read;
    this.recentLoaded = false;
    this.store = store;
    this.interval = interval;
    this.force = force;
    this.colour = colour;
    screen.title(title);
  }

  /** Runs until {@code q} or an interrupt (Ctrl-C). */
  void run() throws IOException {
    Attributes saved = terminal.enterRawMode();
    Thread self = Thread.currentThread();
    Terminal.SignalHandler previousInt =
        terminal.handle(Terminal.Signal.INT, s -> self.interrupt());
    Terminal.SignalHandler previousWinch =
        terminal.handle(Terminal.Signal.WINCH, s -> dirty.set(true));
    terminal.puts(Capability.enter_ca_mode);
    terminal.puts(Capability.keypad_xmit);
    terminal.puts(Capability.cursor_invisible);
    terminal.flush();
    FleetStore.Subscription subscription = null;
    try {
      subscription = store.subscribe(this::message, () -> dirty.set(true));
      loop();
    } finally {
      if (subscription != null) {
        subscription.close();
      }
      terminal.puts(Capability.cursor_visible);
      terminal.puts(Capability.keypad_local);
      terminal.puts(Capability.exit_ca_mode);
      terminal.flush();
      terminal.setAttributes(saved);
      terminal.handle(Terminal.Signal.INT, previousInt);
      terminal.handle(Terminal.Signal.WINCH, previousWinch);
      Thread.interrupted();
    }
  }

  private void message(String json) {
    try {
      String line = TopScreen.transitionLine(JSON.readTree(json));
      if (line != null) {
        screen.transition(line);
      }
    } catch (IOException | RuntimeException e) {
      // a message the screen cannot show: the next read shows the state anyway
    }
    dirty.set(true);
  }

  private void loop() throws IOException {
    NonBlockingReader keys = terminal.reader();
    long nextRead = 0;
    while (!Thread.currentThread().isInterrupted()) {
      long now = System.currentTimeMillis();
      if (dirty.getAndSet(false) || now >= nextRead) {
        refresh();
        nextRead = System.currentTimeMillis() + interval.toMillis();
      }
      draw();
      int c = keys.read(50);
      if (c == READ_EXPIRED) {
        continue;
      }
      if (c < 0 || !key(c, keys)) {
        return;
      }
    }
  }

  private void refresh() {
    try {
      List<BreakerView> rows = read.get();
      screen.rows(rows, System.currentTimeMillis());
      if (!recentLoaded) {
        recentLoaded = true;
        loadRecent(rows);
      }
    } catch (RuntimeException e) {
      screen.status("error: " + e.getMessage());
    }
  }

  /**
   * Fills the footer at start with the newest transitions in the listed breakers' streams (the
   * newest {@link TopScreen#RECENT} of each, read together, bounded by the timeout), so a breaker
   * that flapped a minute ago shows at once; a stream that cannot be read is left out.
   */
  private void loadRecent(List<BreakerView> rows) {
    List<CompletableFuture<List<BreakerEvent>>> reads = new ArrayList<>();
    for (BreakerView b : rows.subList(0, Math.min(rows.size(), RECENT_SCAN))) {
      if (b.problem() != null) {
        continue;
      }
      reads.add(
          store
              .newestEvents(BreakerId.parse(b.id()), TopScreen.RECENT)
              .exceptionally(e -> List.of()));
    }
    List<BreakerEvent> events = new ArrayList<>();
    long deadline = System.nanoTime() + interval.toNanos();
    for (CompletableFuture<List<BreakerEvent>> r : reads) {
      try {
        events.addAll(r.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException | TimeoutException e) {
        // left out: the footer shows what was read in time
      }
    }
    events.sort(Comparator.comparingLong(BreakerEvent::atMillis));
    for (BreakerEvent e :
        events.subList(Math.max(0, events.size() - TopScreen.RECENT), events.size())) {
      screen.transition(TopScreen.transitionLine(e)); // oldest first: the newest ends on top
    }
  }

  /**
   * Rewrites the lines that changed since the last frame, each from its first column (cursor
   * address, the line, clear to its end): no insert or delete of characters, which some terminals
   * place one column off.
   */
  private void draw() {
    int w = Math.max(20, terminal.getWidth());
    int h = Math.max(12, terminal.getHeight());
    if (w != width || h != height) {
      terminal.puts(Capability.clear_screen);
      shown = List.of();
      width = w;
      height = h;
    }
    // one column short of the edge: a full last line would scroll the screen on some terminals
    List<AttributedString> lines = screen.lines(w - 1, h, colour);
    for (int i = 0; i < lines.size(); i++) {
      if (i < shown.size() && shown.get(i).equals(lines.get(i))) {
        continue;
      }
      terminal.puts(Capability.cursor_address, i, 0);
      terminal.writer().print(lines.get(i).toAnsi(terminal));
      terminal.puts(Capability.clr_eol);
    }
    shown = lines;
    terminal.flush();
  }

  /** Handles one key; false ends top. */
  private boolean key(int c, NonBlockingReader keys) throws IOException {
    switch (c) {
      case 'q', 'Q' -> {
        return false;
      }
      case 27 -> arrow(keys);
      case 'j' -> screen.move(1);
      case 'k' -> screen.move(-1);
      case 's' -> screen.status("sorted by " + screen.nextSort().name().toLowerCase());
      case 'r' -> dirty.set(true);
      case '/' -> {
        String f = ask("filter (id or state, empty for all): ", keys);
        if (f != null) {
          screen.filter(f.trim());
          screen.status("");
        }
      }
      case 'o' -> override("open", keys);
      case 'c' -> override("clear", keys);
      default -> {
        // other keys do nothing
      }
    }
    return true;
  }

  private void arrow(NonBlockingReader keys) throws IOException {
    int a = keys.read(50);
    if (a != '[' && a != 'O') {
      return;
    }
    int b = keys.read(50);
    if (b == 'A') {
      screen.move(-1);
    } else if (b == 'B') {
      screen.move(1);
    }
  }

  private void override(String how, NonBlockingReader keys) throws IOException {
    String id = screen.selectedId();
    if (id == null) {
      screen.status("no breaker selected");
      return;
    }
    String verb = how.equals("open") ? "force open " : "clear the override of ";
    List<String> args = new java.util.ArrayList<>(List.of("force", how, id));
    String until = "";
    if (how.equals("open")) {
      String d = ask("force open " + id + " for how long? (30m, 2h; empty: until cleared) ", keys);
      if (d == null) {
        screen.status("cancelled: nothing was changed");
        return;
      }
      if (!d.isBlank()) {
        args.addAll(List.of("--for", d.strip())); // force checks it, as on the command line
        until = " for " + d.strip();
      }
    }
    String reason = ask("reason to " + verb + id + until + ": ", keys);
    if (reason == null || reason.isBlank()) {
      screen.status("cancelled: a reason is required, nothing was changed");
      return;
    }
    if (!confirm(verb + id + until + " (reason: " + reason + ")? [y/N] ", keys)) {
      screen.status("cancelled: nothing was changed");
      return;
    }
    screen.status(force.apply(args, reason));
    dirty.set(true);
  }

  /**
   * Asks a yes or no on the status line with one key: {@code y} is yes, any other key no (so an
   * {@code n}, {@code q} or {@code s} typed out of habit never lands in a half-typed answer).
   */
  private boolean confirm(String prompt, NonBlockingReader keys) throws IOException {
    screen.status(prompt);
    draw();
    while (!Thread.currentThread().isInterrupted()) {
      int c = keys.read(100);
      if (c == READ_EXPIRED) {
        continue;
      }
      screen.status("");
      return c == 'y' || c == 'Y';
    }
    return false;
  }

  /** Reads a line on the status line; null when cancelled with Escape or Ctrl-C. */
  private String ask(String prompt, NonBlockingReader keys) throws IOException {
    StringBuilder typed = new StringBuilder();
    while (!Thread.currentThread().isInterrupted()) {
      screen.status(prompt + typed + "_");
      draw();
      int c = keys.read(100);
      if (c == READ_EXPIRED) {
        continue;
      }
      if (c < 0 || c == 27 || c == 3) {
        screen.status("");
        return null;
      }
      if (c == '\r' || c == '\n') {
        screen.status("");
        return typed.toString();
      }
      if (c == 127 || c == 8) {
        if (!typed.isEmpty()) {
          typed.setLength(typed.length() - 1);
        }
      } else if (c >= 32 && typed.length() < 1024) {
        typed.append((char) c);
      }
    }
    return null;
  }
}
