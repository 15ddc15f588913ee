package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.ConfigFile;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.Settings;
import io.breakerctl.cli.output.Documents;
import io.breakerctl.cli.output.OutputFormat;
import io.breakerctl.cli.output.OutputOptions;
import io.breakerctl.cli.output.Table;
import io.breakerctl.runtime.connection.Redaction;
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
      "A context holds redis, mongo, prefix, timeout, redisUser, redisPasswordFile,"
          + " redisCaFile and minReplicas (force's --min-replicas default); secrets are never"
          + " stored, only a password file's path."
    },
    subcommands = {
      ConfigCommand.View.class,
      ConfigCommand.CurrentContext.class,
      ConfigCommand.GetContexts.class,
      ConfigCommand.UseContext.class,
      ConfigSetContext.class
    })
public final class ConfigCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(
        spec.commandLine(),
        "a subcommand is required: view, current-context, get-contexts, use-context, set-context");
  }

  static Path path(CommandSpec spec) {
    return Settings.configPath(CliContext.of(spec).env());
  }

  /** The config file as it is, to change and save: BREAKERCTL_CONFIG must name one that exists. */
  private static ConfigFile load(CommandSpec spec) {
    Path p = path(spec);
    if (CliContext.of(spec).env().get("BREAKERCTL_CONFIG") != null && !Files.exists(p)) {
      throw CliException.usage("BREAKERCTL_CONFIG names " + p + ", which does not exist");
    }
    return ConfigFile.load(p);
  }

  /** The config file to show, its URIs' passwords hidden: never saved. */
  private static ConfigFile read(CommandSpec spec) {
    ConfigFile f = load(spec);
    f.contexts.forEach(
        c -> {
          c.redis = Redaction.uri(c.redis);
          c.mongo = Redaction.uri(c.mongo);
        });
    return f;
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

    @Mixin OutputOptions output;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      OutputFormat format = output.format();
      if (!resolved) {
        ConfigFile f = read(spec);
        if (format == OutputFormat.NAME) {
          f.contexts.forEach(c -> out.println(c.name));
        } else if (format.isTable()) {
          out.print(f.toYaml());
        } else {
          Documents.single(format, "Config", f, out);
        }
      } else {
        Settings s = CliContext.of(spec).services().settings();
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
        m.put("minReplicas", s.minReplicas());
        if (format == OutputFormat.NAME) {
          out.println(s.context() == null ? "" : s.context());
        } else if (format.isTable()) {
          m.forEach((k, v) -> out.println(k + ": " + (v == null ? "" : v)));
        } else {
          Documents.single(format, "ResolvedConfig", m, out);
        }
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
      if (output.format() == OutputFormat.NAME) {
        f.contexts.forEach(c -> out.println(c.name));
        out.flush();
        return 0;
      }
      if (!output.format().isTable()) {
        try (Documents.ListWriter w = Documents.list(output.format(), "ContextList", out)) {
          f.contexts.forEach(c -> w.item(c, c.name));
        }
        return 0;
      }
      Table t = new Table("CURRENT", "NAME", "REDIS", "MONGO", "PREFIX", "TIMEOUT");
      t.flexible(2, 3);
      for (ConfigFile.Context c : f.contexts) {
        t.row(
            null,
            c.name.equals(f.currentContext) ? "*" : "",
            c.name,
            orDash(c.redis),
            orDash(c.mongo),
            orDash(c.prefix),
            orDash(c.timeout));
      }
      t.print(out, CliContext.of(spec).style(), output.headers());
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
      ConfigFile f = load(spec);
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
}
