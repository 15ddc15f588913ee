package io.breakerctl.console;

import io.breakerctl.cli.CliException;
import io.breakerctl.cli.CommandLines;
import io.breakerctl.cli.ConfigFile;
import io.breakerctl.cli.Environment;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.FleetStores;
import io.breakerctl.cli.GlobalOptions;
import io.breakerctl.cli.Settings;
import io.breakerctl.cli.output.Printable;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.reader.impl.DefaultParser;
import org.jline.terminal.Terminal;
import picocli.CommandLine;

/**
 * The admin console on a JLine terminal: reads a command a line (every breakerctl command without
 * the prefix, plus {@code use CONTEXT} and {@code exit}), runs it through the command model with
 * the session's connections, prints its errors and goes on. Ctrl-C stops the running command (its
 * thread is interrupted: a {@code status --watch} ends with exit 5) and clears a half-typed line;
 * Ctrl-D exits.
 *
 * <p>Every line starts from the global options the console was started with ({@code breakerctl
 * --redis URI console} and {@code breakerctl console --redis URI} alike: see {@link
 * io.breakerctl.cli.GlobalOptions}); a line's own option holds for that line only. {@code use
 * CONTEXT} switches the session to that context as {@code breakerctl --context CONTEXT} would run
 * (the target options the console was started with no longer apply; timeout, output and verbosity
 * stay). The prompt names where the next line acts ({@link TargetLabel}). The history is {@link
 * ConsoleHistory}: private, and without the lines that carry a secret.
 */
public final class Console {
  private static final ThreadLocal<Terminal> CURRENT = new ThreadLocal<>();

  private final Terminal terminal;
  private final Environment env;
  private final ConsoleSessions sessions;
  private final CommandLines commandLines;
  private final TrailingLine output;
  private final PrintWriter writer;
  private final PrintWriter err;
  private int lastFailure;

  /**
   * A console on {@code terminal} whose lines start from {@code options} and run on command lines
   * from {@code commandLines}, connecting through {@code stores}; settings and history locations
   * come from {@code env}.
   */
  public Console(
      Terminal terminal,
      Environment env,
      GlobalOptions options,
      CommandLines commandLines,
      FleetStores stores) {
    this.terminal = terminal;
    this.env = env;
    this.sessions = new ConsoleSessions(options, stores);
    this.commandLines = commandLines;
    this.output = new TrailingLine(terminal.writer());
    this.writer = new PrintWriter(output, true);
    this.err = writer;
  }

  /** The console's terminal while a command runs inside it on this thread, else null. */
  static Terminal current() {
    return CURRENT.get();
  }

  /** Where the history is kept: {@code $XDG_STATE_HOME/breakerctl/history}. */
  public static Path historyFile(Environment env) {
    String state = env.get("XDG_STATE_HOME");
    Path base =
        state != null
            ? Path.of(state)
            : Path.of(
                env.variables().getOrDefault("HOME", System.getProperty("user.home")),
                ".local",
                "state");
    return base.resolve("breakerctl").resolve("history");
  }

  /** Runs until Ctrl-D or {@code exit}; returns 0. */
  public int run() throws IOException {
    Path file = historyFile(env);
    ConsoleHistory history = new ConsoleHistory(file);
    history.clean();
    DefaultParser parser = new DefaultParser();
    parser.setEscapeChars(new char[0]);
    LineReader reader =
        LineReaderBuilder.builder()
            .terminal(terminal)
            .appName("breakerctl")
            .parser(parser)
            .completer(
                new ConsoleCompleter(
                    commandLines.create(env).getCommandSpec(),
                    prefix -> LiveCandidates.breakerIds(sessions, env, prefix),
                    () -> LiveCandidates.contexts(env)))
            .history(history)
            .variable(LineReader.HISTORY_FILE, file)
            .variable(LineReader.HISTORY_SIZE, 1000)
            .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true)
            .build();
    BufferedReader stdin = new PromptReader(reader, output);
    writer.println(
        "breakerctl console: every command without 'breakerctl', 'use CONTEXT', TAB completes,"
            + " Ctrl-C stops a command, Ctrl-D or 'exit' leaves.");
    try {
      while (true) {
        String line;
        try {
          line = reader.readLine(prompt());
        } catch (UserInterruptException e) {
          continue;
        } catch (EndOfFileException e) {
          break;
        }
        List<String> words = words(reader.getParser().parse(line, line.length()).words());
        if (words.isEmpty()) {
          continue;
        }
        if (words.get(0).equals("exit") || words.get(0).equals("quit")) {
          break;
        }
        if (ConsoleHistory.carriesSecret(line)) {
          err.println(
              "note: this line holds a secret and is not kept in the history"
                  + " (--redis-password-file or BREAKERCTL_REDIS_PASSWORD keep it off the line)");
        }
        execute(words, stdin, true);
      }
    } finally {
      reader.getHistory().save();
      sessions.close();
    }
    return ExitCode.OK;
  }

  /**
   * Piped stdin: one command a line (blank lines and {@code #} comments skipped), no prompt;
   * returns the exit code of the last command that failed (0 when none did).
   */
  public static int piped(
      Environment env,
      GlobalOptions options,
      CommandLines commandLines,
      FleetStores stores,
      PrintWriter out,
      PrintWriter err)
      throws IOException {
    Console c = new Console(env, options, commandLines, stores, out, err);
    DefaultParser parser = new DefaultParser();
    parser.setEscapeChars(new char[0]);
    try {
      for (String line = env.stdin().readLine(); line != null; line = env.stdin().readLine()) {
        if (line.isBlank() || line.strip().startsWith("#")) {
          continue;
        }
        List<String> words = words(parser.parse(line, line.length()).words());
        if (words.get(0).equals("exit") || words.get(0).equals("quit")) {
          break;
        }
        c.execute(words, env.stdin(), false);
      }
    } finally {
      c.sessions.close();
    }
    return c.lastFailure;
  }

  private Console(
      Environment env,
      GlobalOptions options,
      CommandLines commandLines,
      FleetStores stores,
      PrintWriter out,
      PrintWriter err) {
    this.terminal = null;
    this.env = env;
    this.sessions = new ConsoleSessions(options, stores);
    this.commandLines = commandLines;
    this.output = null;
    this.writer = out;
    this.err = err;
  }

  private static List<String> words(List<String> parsed) {
    List<String> words = new ArrayList<>(parsed);
    words.removeIf(String::isEmpty);
    if (!words.isEmpty() && words.get(0).equals("breakerctl")) {
      words.remove(0);
    }
    return words;
  }

  /** {@code breakerctl (CONTEXT: REDIS, prefix P)> }; {@code breakerctl> } when unresolvable. */
  private String prompt() {
    try {
      return "breakerctl (" + TargetLabel.of(settings(sessions.options())) + ")> ";
    } catch (RuntimeException e) {
      return "breakerctl> "; // the next command says what is wrong
    }
  }

  /** The settings lines run with under {@code options} (reads the config, never the network). */
  private Settings settings(GlobalOptions options) {
    return Settings.resolve(options.flags(), env);
  }

  /** Runs one command line; returns its exit code. */
  int execute(List<String> words, BufferedReader stdin, boolean interactive) {
    int code;
    if (words.get(0).equals("use")) {
      code = use(words);
    } else if (words.get(0).equals("console")) {
      err.println("error: already in the console");
      code = ExitCode.USAGE;
    } else {
      code = run(words, stdin, interactive);
    }
    if (code != ExitCode.OK) {
      lastFailure = code;
    }
    writer.flush();
    err.flush();
    return code;
  }

  private int run(List<String> words, BufferedReader stdin, boolean interactive) {
    Map<String, String> vars = new HashMap<>(env.variables());
    if (terminal != null && terminal.getWidth() > 0 && env.get("COLUMNS") == null) {
      vars.put("COLUMNS", Integer.toString(terminal.getWidth()));
    }
    if (interactive && dumb()) {
      vars.put("NO_COLOR", "1"); // a dumb terminal shows escapes as text
    }
    Environment commandEnv = new Environment(vars, interactive, env.clock(), stdin, env.user());
    CommandLine cl = commandLines.create(commandEnv, sessions);
    cl.setOut(writer);
    cl.setErr(err);
    Thread self = Thread.currentThread();
    Terminal.SignalHandler previous = null;
    if (terminal != null) {
      previous = terminal.handle(Terminal.Signal.INT, s -> self.interrupt());
      CURRENT.set(terminal);
    }
    try {
      return cl.execute(words.toArray(new String[0]));
    } finally {
      if (terminal != null) {
        terminal.handle(Terminal.Signal.INT, previous);
        CURRENT.remove();
      }
      Thread.interrupted(); // a Ctrl-C that came as the command ended stops nothing else
      writer.flush();
    }
  }

  private boolean dumb() {
    return terminal == null
        || Terminal.TYPE_DUMB.equals(terminal.getType())
        || Terminal.TYPE_DUMB_COLOR.equals(terminal.getType());
  }

  private int use(List<String> words) {
    if (words.size() != 2) {
      err.println(
          "error: usage: use CONTEXT (one of: "
              + String.join(", ", LiveCandidates.contexts(env))
              + ")");
      return ExitCode.USAGE;
    }
    String name = words.get(1);
    Path config = Settings.configPath(env);
    GlobalOptions switched = sessions.options().inContext(name);
    Settings settings;
    try {
      if (ConfigFile.load(config).context(name).isEmpty()) {
        err.println(
            "error: no context '"
                + Printable.escape(name)
                + "' in "
                + config
                + " (contexts: "
                + String.join(", ", LiveCandidates.contexts(env))
                + "); the console stays where it was");
        return ExitCode.NOT_FOUND;
      }
      settings = settings(switched);
    } catch (CliException e) {
      err.println(
          "error: " + Printable.escape(e.getMessage()) + "; the console stays where it was");
      return e.exitCode();
    }
    sessions.options(switched);
    writer.println(
        "using context '"
            + Printable.escape(name)
            + "' for the commands of this console: "
            + TargetLabel.of(settings));
    return ExitCode.OK;
  }
}
