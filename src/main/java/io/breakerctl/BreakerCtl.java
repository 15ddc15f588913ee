package io.breakerctl;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CommandLines;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.Environment;
import io.breakerctl.cli.ErrorPolicy;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.FleetStores;
import io.breakerctl.cli.GlobalOptions;
import io.breakerctl.cli.Logging;
import io.breakerctl.cli.ServiceFactory;
import io.breakerctl.cli.Sessions;
import io.breakerctl.cli.Settings;
import io.breakerctl.cli.commands.CompleteCommand;
import io.breakerctl.cli.commands.CompletionCommand;
import io.breakerctl.cli.commands.ConfigCommand;
import io.breakerctl.cli.commands.DemoCommand;
import io.breakerctl.cli.commands.DescribeCommand;
import io.breakerctl.cli.commands.DoctorCommand;
import io.breakerctl.cli.commands.ExporterCommand;
import io.breakerctl.cli.commands.FallbackCommand;
import io.breakerctl.cli.commands.ForceCommand;
import io.breakerctl.cli.commands.HelpCommand;
import io.breakerctl.cli.commands.HistoryCommand;
import io.breakerctl.cli.commands.NoteCommand;
import io.breakerctl.cli.commands.PolicyCommand;
import io.breakerctl.cli.commands.ReplayCommand;
import io.breakerctl.cli.commands.SandboxCommand;
import io.breakerctl.cli.commands.StatusCommand;
import io.breakerctl.cli.commands.VersionCommand;
import io.breakerctl.cli.commands.WaitCommand;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.Style;
import io.breakerctl.cli.output.TerminalWriter;
import io.breakerctl.console.ConsoleCommand;
import io.breakerctl.console.TopCommand;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The root command and the composition root of the command line: the global options, every
 * subcommand (the cli's and the console's) and the one error policy. Commands reach it as their
 * {@link CliContext}, never by this class.
 */
@Command(
    name = "breakerctl",
    // Inherited by every subcommand: -h/--help and -V/--version everywhere.
    scope = ScopeType.INHERIT,
    mixinStandardHelpOptions = true,
    versionProvider = VersionCommand.Provider.class,
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
      "Operate the distributed circuit breakers whose state lives in Redis, with the MongoDB"
          + " control plane."
    },
    footerHeading = "%nEnvironment:%n",
    footer = {
      "  Settings resolve flag > environment > config file context > default. Every variable"
          + " (BREAKERCTL_CONTEXT, BREAKERCTL_REDIS, BREAKERCTL_MONGO, BREAKERCTL_REDIS_USER,"
          + " BREAKERCTL_REDIS_PASSWORD, BREAKERCTL_CONFIG, NO_COLOR, ...): 'breakerctl help"
          + " environment'."
    })
public final class BreakerCtl implements Callable<Integer>, CliContext {

  /** The subcommands, in the order help lists them. */
  static final List<Class<?>> SUBCOMMANDS =
      List.of(
          StatusCommand.class,
          DescribeCommand.class,
          ForceCommand.class,
          PolicyCommand.class,
          HistoryCommand.class,
          ReplayCommand.class,
          NoteCommand.class,
          WaitCommand.class,
          ExporterCommand.class,
          FallbackCommand.class,
          DoctorCommand.class,
          ConfigCommand.class,
          SandboxCommand.class,
          DemoCommand.class,
          ConsoleCommand.class,
          TopCommand.class,
          VersionCommand.class,
          HelpCommand.class,
          CompletionCommand.class,
          CompleteCommand.class);

  /** The stores every command line connects (the only ones: Redis). */
  private static final FleetStores STORES = new RedisFleetStores();

  /** Subcommands that read their siblings' models: with them, every subcommand is built. */
  private static final Set<String> NEED_ALL = Set.of("help", "completion", "__complete", "console");

  @Spec CommandSpec spec;

  @Option(
      names = "--context",
      scope = ScopeType.INHERIT,
      paramLabel = "NAME",
      description =
          "Config file context to use (default: BREAKERCTL_CONTEXT, else current-context).")
  String context;

  @Option(
      names = "--redis",
      scope = ScopeType.INHERIT,
      paramLabel = "URI",
      description =
          "Redis: redis://, rediss:// (TLS), redis-sentinel://H:P[,H:P]?sentinelMasterId=M, or"
              + " comma-separated Cluster seeds (default: redis://127.0.0.1:6379). A password in"
              + " the URI percent-encodes / ? # %% @ and spaces.")
  String redis;

  @Option(
      names = "--mongo",
      scope = ScopeType.INHERIT,
      paramLabel = "URI",
      description = "MongoDB control plane (default: mongodb://127.0.0.1:27017).")
  String mongo;

  @Option(
      names = "--prefix",
      scope = ScopeType.INHERIT,
      paramLabel = "PREFIX",
      description = "Redis key prefix (default: cb).")
  String prefix;

  @Option(
      names = "--timeout",
      scope = ScopeType.INHERIT,
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "Bounds every Redis and MongoDB call, e.g. 500ms, 5s (default: 5s).")
  Duration timeout;

  @Option(
      names = "--redis-user",
      scope = ScopeType.INHERIT,
      paramLabel = "USER",
      description =
          "Redis ACL user; its password comes from BREAKERCTL_REDIS_PASSWORD or a file (none:"
              + " exit 4, never the default user).")
  String redisUser;

  @Option(
      names = "--redis-password-file",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      description = "File holding the Redis password.")
  Path redisPasswordFile;

  @Option(
      names = "--redis-ca-file",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      description =
          "PEM file of the CA certificates trusted for rediss:// (default: the JDK's trust store);"
              + " a file missing or without a certificate is exit 2.")
  Path redisCaFile;

  @Option(
      names = {"-o", "--output"},
      scope = ScopeType.INHERIT,
      paramLabel = "FORMAT",
      description =
          "Output format: ${COMPLETION-CANDIDATES} (default: table). json and yaml are one"
              + " versioned document; jsonl is one object a line.")
  OutputFormat output = OutputFormat.TABLE;

  @Option(
      names = "--no-color",
      scope = ScopeType.INHERIT,
      description = "No colour (also when NO_COLOR is set or stdout is not a terminal).")
  boolean noColor;

  @Option(
      names = {"-v", "--verbose"},
      scope = ScopeType.INHERIT,
      description = "Diagnostics: library warnings and stack traces on stderr.")
  boolean verbose;

  private final Environment env;
  private final Sessions sessions;
  private ServiceFactory services;

  BreakerCtl(Environment env, Sessions sessions) {
    this.env = env;
    this.sessions = sessions;
  }

  /** A ready command line on the real environment. */
  public static CommandLine commandLine() {
    return commandLine(Environment.system());
  }

  /** A ready command line: the command model, the error policy and lazy services. */
  public static CommandLine commandLine(Environment env) {
    return commandLine(env, null);
  }

  /**
   * A ready command line whose connections come from {@code sessions} and stay open after the
   * command (the console's); null: opened on demand and closed when the command ends ({@link
   * CommandLines}).
   */
  public static CommandLine commandLine(Environment env, Sessions sessions) {
    return commandLine(env, sessions, null);
  }

  /**
   * The command line of one run whose first argument is {@code first}: when it names a subcommand
   * that does not read its siblings, only that subcommand's model is built. Picocli builds every
   * model up front by reflection (about 250 ms of CPU for all of them, most of {@code version}'s
   * start-up); a run needs one. Anything else (no argument, an option first, a misspelled name,
   * help) builds them all, so help and suggestions see every command.
   */
  public static CommandLine commandLine(Environment env, Sessions sessions, String first) {
    BreakerCtl root = new BreakerCtl(env, sessions);
    CommandLine cl = new TerminalSafeCommandLine(root);
    Class<?> only = first == null || NEED_ALL.contains(first) ? null : named(first);
    for (Class<?> sub : SUBCOMMANDS) {
      if (only == null || sub == only) {
        cl.addSubcommand(sub);
      }
    }
    cl.setOut(cl.getOut()); // the default writers behind the sanitiser too, for every subcommand
    cl.setErr(cl.getErr());
    ErrorPolicy policy = new ErrorPolicy(root);
    cl.setExecutionExceptionHandler(policy);
    cl.setParameterExceptionHandler(policy);
    cl.setExitCodeExceptionMapper(policy);
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    // `--context sandbox`: a context may be named like a subcommand (sandbox up writes that one).
    cl.setAllowSubcommandsAsOptionParameters(true);
    cl.setExecutionStrategy(
        parseResult -> {
          root.startFrom(sessions == null ? null : sessions.options(), parseResult);
          Logging.configure(root.verbose);
          try {
            return new CommandLine.RunLast().execute(parseResult);
          } finally {
            root.closeServices();
          }
        });
    documentExitCodes(cl);
    return cl;
  }

  /** The subcommand class named {@code name} (or one of its aliases), else null. */
  private static Class<?> named(String name) {
    for (Class<?> sub : SUBCOMMANDS) {
      Command c = sub.getAnnotation(Command.class);
      if (c.name().equals(name) || Arrays.asList(c.aliases()).contains(name)) {
        return sub;
      }
    }
    return null;
  }

  private static void documentExitCodes(CommandLine cl) {
    cl.getCommandSpec()
        .usageMessage()
        .exitCodeListHeading("%nExit codes:%n")
        .exitCodeList(ExitCode.helpList());
    for (CommandLine sub : cl.getSubcommands().values()) {
      documentExitCodes(sub);
    }
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    spec.commandLine().getErr().println("error: a command is required");
    return ExitCode.USAGE;
  }

  @Override
  public Settings.Flags flags() {
    return new Settings.Flags(
        context, redis, mongo, prefix, timeout, redisUser, redisPasswordFile, redisCaFile);
  }

  @Override
  public GlobalOptions globals() {
    return new GlobalOptions(flags(), output, noColor, verbose);
  }

  /**
   * Gives every global option the line did not give the session's value; a line that names its own
   * {@code --context} takes none of the session's target options (see {@link GlobalOptions}).
   */
  private void startFrom(GlobalOptions session, ParseResult line) {
    if (session == null) {
      return;
    }
    Settings.Flags s = session.flags();
    boolean target = !given(line, "--context");
    context = given(line, "--context") ? context : s.context();
    redis = given(line, "--redis") || !target ? redis : s.redis();
    mongo = given(line, "--mongo") || !target ? mongo : s.mongo();
    prefix = given(line, "--prefix") || !target ? prefix : s.prefix();
    redisUser = given(line, "--redis-user") || !target ? redisUser : s.redisUser();
    redisPasswordFile =
        given(line, "--redis-password-file") || !target ? redisPasswordFile : s.redisPasswordFile();
    redisCaFile = given(line, "--redis-ca-file") || !target ? redisCaFile : s.redisCaFile();
    timeout = given(line, "--timeout") ? timeout : s.timeout();
    output = given(line, "--output") ? output : session.output();
    noColor |= session.noColor();
    verbose |= session.verbose();
  }

  /** Whether {@code option} was given on the root or on any subcommand of the line. */
  private static boolean given(ParseResult line, String option) {
    for (ParseResult p = line; p != null; p = p.subcommand()) {
      if (p.hasMatchedOption(option)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public ServiceFactory services() {
    if (sessions != null) {
      return sessions.services(flags(), env);
    }
    if (services == null) {
      services = ServiceFactory.of(this::flags, env, STORES);
    }
    return services;
  }

  @Override
  public FleetStores stores() {
    return STORES;
  }

  @Override
  public boolean inConsole() {
    return sessions != null;
  }

  @Override
  public Environment env() {
    return env;
  }

  @Override
  public OutputFormat output() {
    return output;
  }

  @Override
  public boolean verbose() {
    return verbose;
  }

  @Override
  public Style style() {
    boolean colour = env.interactive() && !noColor && env.get("NO_COLOR") == null;
    return Style.of(colour, env.interactive(), env.get("COLUMNS"), env.clock());
  }

  private void closeServices() {
    if (services != null) {
      services.close();
      services = null;
    }
  }

  @Override
  public CommandLines commandLines() {
    return BreakerCtl::commandLine;
  }

  /**
   * A command line whose out and err, whoever sets them (the process, the console, {@code top}, a
   * test), are {@link TerminalWriter}s; picocli hands them to every subcommand.
   */
  private static final class TerminalSafeCommandLine extends CommandLine {
    TerminalSafeCommandLine(Object command) {
      super(command);
    }

    @Override
    public CommandLine setOut(PrintWriter out) {
      return super.setOut(TerminalWriter.of(out));
    }

    @Override
    public CommandLine setErr(PrintWriter err) {
      return super.setErr(TerminalWriter.of(err));
    }
  }
}
