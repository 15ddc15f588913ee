package io.breakerctl.cli.commands;

import io.breakerctl.cli.BreakerCtl;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.ConfigFile;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.Inputs;
import io.breakerctl.cli.Settings;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Table;
import io.breakerctl.runtime.Redaction;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code breakerctl config}: kubectl-style contexts in the config file; never connects. */
@Command(
    name = "config",
    description = {
      "Manage named contexts in the config file ($BREAKERCTL_CONFIG, else"
          + " $XDG_CONFIG_HOME/breakerctl/config.yaml, else ~/.config/breakerctl/config.yaml).",
      "A context holds redis, mongo, prefix, timeout, redisUser, redisPasswordFile and"
          + " redisCaFile; secrets are never stored, only a password file's path."
    },
    subcommands = {
      ConfigCommand.View.class,
      ConfigCommand.CurrentContext.class,
      ConfigCommand.GetContexts.class,
      ConfigCommand.UseContext.class,
      ConfigCommand.SetContext.class
    })
public final class ConfigCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(
        spec.commandLine(),
        "a subcommand is required: view, current-context, get-contexts, use-context, set-context");
  }

  private static Path path(CommandSpec spec) {
    return Settings.configPath(BreakerCtl.of(spec).env());
  }

  /** The config file to read: BREAKERCTL_CONFIG must name one that exists. */
  private static ConfigFile read(CommandSpec spec) {
    Path p = path(spec);
    if (BreakerCtl.of(spec).env().get("BREAKERCTL_CONFIG") != null && !Files.exists(p)) {
      throw CliException.usage("BREAKERCTL_CONFIG names " + p + ", which does not exist");
    }
    return ConfigFile.load(p);
  }

  @Command(
      name = "view",
      description = "Print the config file, or with --resolved the settings in effect.")
  static final class View implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(
        names = "--resolved",
        description = "Show the settings after flags, environment and context (no secrets).")
    boolean resolved;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      if (!resolved) {
        ConfigFile f = read(spec);
        f.contexts.forEach(
            c -> {
              c.redis = Redaction.uri(c.redis);
              c.mongo = Redaction.uri(c.mongo);
            });
        out.print(f.toYaml());
      } else {
        Settings s = BreakerCtl.of(spec).services().settings();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("config", s.configPath().toString());
        m.put("context", s.context());
        m.put("redis", Redaction.uri(s.redis()));
        m.put("mongo", Redaction.uri(s.mongo()));
        m.put("prefix", s.prefix());
        m.put("timeout", Durations.format(s.timeout()));
        m.put("redisUser", s.redisUser());
        m.put("redisPassword", s.redisPassword() == null ? null : "(set)");
        m.put("redisCaFile", s.redisCaFile() == null ? null : s.redisCaFile().toString());
        m.forEach((k, v) -> out.println(k + ": " + (v == null ? "" : v)));
      }
      out.flush();
      return 0;
    }
  }

  @Command(name = "current-context", description = "Print the current context's name.")
  static final class CurrentContext implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      ConfigFile f = read(spec);
      if (f.currentContext == null) {
        throw CliException.notFound("no current context is set in " + path(spec));
      }
      spec.commandLine().getOut().println(f.currentContext);
      spec.commandLine().getOut().flush();
      return 0;
    }
  }

  @Command(name = "get-contexts", description = "List the contexts; * marks the current one.")
  static final class GetContexts implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Mixin OutputOptions output;

    @Override
    public Integer call() {
      ConfigFile f = read(spec);
      PrintWriter out = spec.commandLine().getOut();
      if (output.format() == io.breakerctl.cli.output.OutputFormat.NAME) {
        f.contexts.forEach(c -> out.println(c.name));
        out.flush();
        return 0;
      }
      Table t = new Table("CURRENT", "NAME", "REDIS", "MONGO", "PREFIX", "TIMEOUT");
      t.flexible(2, 3);
      for (ConfigFile.Context c : f.contexts) {
        t.row(
            null,
            c.name.equals(f.currentContext) ? "*" : "",
            c.name,
            orDash(Redaction.uri(c.redis)),
            orDash(Redaction.uri(c.mongo)),
            orDash(c.prefix),
            orDash(c.timeout));
      }
      t.print(out, BreakerCtl.of(spec).style(), output.headers());
      return 0;
    }

    private static String orDash(String s) {
      return s == null ? "-" : s;
    }
  }

  @Command(name = "use-context", description = "Make NAME the current context.")
  static final class UseContext implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "NAME", description = "An existing context.")
    String name;

    @Override
    public Integer call() {
      Path p = path(spec);
      ConfigFile f = read(spec);
      if (f.context(name).isEmpty()) {
        throw CliException.notFound("context '" + name + "' is not defined in " + p);
      }
      f.currentContext = name;
      f.save(p);
      spec.commandLine().getOut().println("Switched to context \"" + name + "\".");
      spec.commandLine().getOut().flush();
      return 0;
    }
  }

  @Command(
      name = "set-context",
      description = {
        "Create or update context NAME from the global flags given: --redis, --mongo, --prefix,"
            + " --timeout, --redis-user, --redis-password-file, --redis-ca-file.",
        "Example: breakerctl config set-context prod --redis rediss://redis.prod:6380"
            + " --redis-ca-file /etc/ssl/prod-ca.pem --current"
      })
  static final class SetContext implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "NAME", description = "The context's name.")
    String name;

    @Option(names = "--current", description = "Also make it the current context.")
    boolean current;

    @Override
    public Integer call() {
      if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,62}")) {
        throw CliException.usage(
            "context name must be 1-63 characters of [A-Za-z0-9._-] but was '"
                + Inputs.cut(name)
                + "'");
      }
      Path p = path(spec);
      ConfigFile f = ConfigFile.load(p);
      ConfigFile.Context c = f.context(name).orElse(null);
      boolean created = c == null;
      if (created) {
        c = new ConfigFile.Context();
        c.name = name;
        f.contexts.add(c);
      }
      Settings.Flags flags = BreakerCtl.of(spec).flags();
      refuseSecrets(flags);
      c.redis = flags.redis() != null ? flags.redis() : c.redis;
      c.mongo = flags.mongo() != null ? flags.mongo() : c.mongo;
      c.prefix = flags.prefix() != null ? flags.prefix() : c.prefix;
      c.timeout = flags.timeout() != null ? Durations.format(flags.timeout()) : c.timeout;
      c.redisUser = flags.redisUser() != null ? flags.redisUser() : c.redisUser;
      c.redisPasswordFile =
          flags.redisPasswordFile() != null
              ? flags.redisPasswordFile().toAbsolutePath().toString()
              : c.redisPasswordFile;
      c.redisCaFile =
          flags.redisCaFile() != null
              ? flags.redisCaFile().toAbsolutePath().toString()
              : c.redisCaFile;
      if (current || f.currentContext == null) {
        f.currentContext = name;
      }
      f.save(p);
      spec.commandLine()
          .getOut()
          .println("Context \"" + name + "\" " + (created ? "created" : "modified") + ".");
      spec.commandLine().getOut().flush();
      return 0;
    }

    /** The config file never holds a secret, and never a path to a file that is not there. */
    private static void refuseSecrets(Settings.Flags flags) {
      refuse(
          "--redis",
          flags.redis(),
          "give the URI without it and the password in a file (--redis-password-file FILE stores"
              + " its path) or in BREAKERCTL_REDIS_PASSWORD when you run breakerctl");
      refuse(
          "--mongo",
          flags.mongo(),
          "store the URI without credentials and give the full one in BREAKERCTL_MONGO when you"
              + " run breakerctl");
      mustExist("--redis-password-file", flags.redisPasswordFile());
      mustExist("--redis-ca-file", flags.redisCaFile());
    }

    private static void refuse(String flag, String uri, String instead) {
      if (Redaction.hasSecret(uri)) {
        throw CliException.usage(
            flag
                + " '"
                + Inputs.cut(Redaction.uri(uri))
                + "' carries a password, and the config file never stores one: "
                + instead);
      }
    }

    private static void mustExist(String flag, Path file) {
      if (file != null && !Files.isReadable(file)) {
        throw CliException.usage(
            flag + " " + file + (Files.exists(file) ? " is not readable" : " does not exist"));
      }
    }
  }
}
