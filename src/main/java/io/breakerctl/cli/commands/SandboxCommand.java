package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.ConfigFile;
import io.breakerctl.cli.Environment;
import io.breakerctl.cli.ExitCode;
import io.breakerctl.cli.Settings;
import io.breakerctl.sandbox.Sandbox;
import io.breakerctl.sandbox.SandboxShutdown;
import io.breakerctl.sandbox.SandboxStart;
import io.breakerctl.sandbox.SandboxState;
import io.breakerctl.sandbox.SandboxStatus;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code breakerctl sandbox up|down|status}: a local Redis and MongoDB for trying breakerctl. */
@Command(
    name = "sandbox",
    description = {
      "Run a local sandbox: a real redis-server (the one on PATH when >= 6.2, else the bundled 6.2"
          + " binary) and a MongoDB-wire server (mongo-java-server, H2 files) in a detached"
          + " daemon JVM on free loopback ports.",
      "Data and logs live in $XDG_STATE_HOME/breakerctl/sandbox (else"
          + " ~/.local/state/breakerctl/sandbox). Not for production."
    },
    subcommands = {SandboxCommand.Up.class, SandboxCommand.Down.class, SandboxCommand.Status.class})
public final class SandboxCommand implements Callable<Integer> {

  /** The name of the context {@code sandbox up} writes and makes current. */
  public static final String CONTEXT = "sandbox";

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "a subcommand is required: up, down, status");
  }

  /** The sandbox of this environment ($XDG_STATE_HOME/breakerctl/sandbox). */
  public static Sandbox sandbox(Environment env) {
    Path dir = env.stateHome().resolve("sandbox");
    for (Path p = dir; p != null; p = p.getParent()) {
      if (Files.exists(p)) {
        if (!Files.isDirectory(p)) {
          String state = env.get("XDG_STATE_HOME");
          throw CliException.usage(
              (state != null && Path.of(state).equals(p)
                      ? "XDG_STATE_HOME (" + p + ") is not a directory"
                      : p + " is not a directory")
                  + ": the sandbox lives in "
                  + dir
                  + "; point XDG_STATE_HOME at a directory, or unset it for"
                  + " ~/.local/state");
        }
        break;
      }
    }
    return new Sandbox(dir);
  }

  /** Writes (or updates) the {@code sandbox} context and makes it current; returns the file. */
  public static Path useSandboxContext(Environment env, SandboxState state) {
    Path path = Settings.configPath(env);
    ConfigFile file = ConfigFile.load(path);
    ConfigFile.Context ctx =
        file.context(CONTEXT)
            .orElseGet(
                () -> {
                  ConfigFile.Context c = new ConfigFile.Context();
                  c.name = CONTEXT;
                  file.contexts.add(c);
                  return c;
                });
    ctx.redis = state.redisUri();
    ctx.mongo = state.mongoUri();
    file.currentContext = CONTEXT;
    file.save(path);
    return path;
  }

  /** Starts the sandbox (or finds it running) and makes its context current. */
  public static SandboxStart up(Environment env, PrintWriter err) {
    Sandbox sandbox = sandbox(env);
    if (!sandbox.status().running()) {
      err.println("starting the sandbox in " + sandbox.dir() + " ...");
      err.flush();
    }
    SandboxStart start = sandbox.up();
    Path config = useSandboxContext(env, start.state());
    err.println(
        "context '" + CONTEXT + "' (" + start.state().redisUri() + ") is current in " + config);
    return start;
  }

  @Command(
      name = "up",
      description =
          "Start the sandbox (or keep the running one), write the 'sandbox' context into the config"
              + " file and make it current.")
  static final class Up implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      CliContext root = CliContext.of(spec);
      PrintWriter out = spec.commandLine().getOut();
      SandboxStart start = up(root.env(), spec.commandLine().getErr());
      out.println(
          (start.alreadyRunning() ? "sandbox already running: " : "sandbox running: ")
              + "redis "
              + start.state().redisUri()
              + ", mongodb "
              + start.state().mongoUri());
      out.println("try: breakerctl status   (stop it with: breakerctl sandbox down)");
      return ExitCode.OK;
    }
  }

  @Command(
      name = "down",
      description =
          "Stop the sandbox gracefully (SIGTERM: acknowledged MongoDB writes are kept), killing it"
              + " after a bound; cleans up after a crashed daemon. The data stays for the next up.")
  static final class Down implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      Sandbox sandbox = sandbox(CliContext.of(spec).env());
      SandboxShutdown result = sandbox.down();
      PrintWriter out = spec.commandLine().getOut();
      switch (result.outcome()) {
        case NOT_RUNNING ->
            spec.commandLine()
                .getErr()
                .println("the sandbox is not running (no state file in " + sandbox.dir() + ")");
        case STOPPED -> out.println("sandbox stopped; data kept in " + sandbox.dir());
        case KILLED ->
            out.println(
                "sandbox killed after ignoring SIGTERM; see " + sandbox.logFile() + " for why");
        case CLEANED_UP ->
            out.println("the sandbox daemon had died; cleaned up what it left in " + sandbox.dir());
      }
      return ExitCode.OK;
    }
  }

  @Command(
      name = "status",
      description =
          "Show the sandbox's ports, process ids, data directory and start time. Exit 7 when it is"
              + " not running, 6 when it is broken.")
  static final class Status implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      Sandbox sandbox = sandbox(CliContext.of(spec).env());
      SandboxStatus status = sandbox.status();
      if (status.state().isEmpty()) {
        throw CliException.notFound(
            "the sandbox is not running; start it with 'breakerctl sandbox up'");
      }
      SandboxState s = status.state().get();
      PrintWriter out = spec.commandLine().getOut();
      out.printf("status:      %s%n", status.summary());
      out.printf(
          "redis:       %s  (pid %d, redis-server %s)%n",
          s.redisUri(), s.redisPid(), s.redisVersion());
      out.printf("mongodb:     %s  (in the daemon)%n", s.mongoUri());
      out.printf("daemon pid:  %d%n", s.daemonPid());
      out.printf("data dir:    %s%n", s.dataDir());
      out.printf("log:         %s%n", sandbox.logFile());
      out.printf("started at:  %s%n", s.startedAt());
      return status.running() ? ExitCode.OK : ExitCode.UNAVAILABLE;
    }
  }
}
