package io.breakerctl.cli.commands;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.cli.ConfigFile;
import io.breakerctl.cli.Durations;
import io.breakerctl.cli.Inputs;
import io.breakerctl.cli.RedisUris;
import io.breakerctl.cli.Settings;
import io.breakerctl.runtime.connection.Redaction;
import io.breakerctl.runtime.store.KeyPrefix;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code breakerctl config set-context NAME}: a context from the global flags, checked before it is
 * saved; never a secret.
 */
@Command(
    name = "set-context",
    description = {
      "Create or update context NAME from the global flags given: --redis, --mongo, --prefix,"
          + " --timeout, --redis-user, --redis-password-file, --redis-ca-file; and from its own"
          + " --min-replicas. A URI that carries a password, and a password or CA file that does"
          + " not exist, are refused.",
      "Example: breakerctl config set-context prod --redis rediss://redis.prod:6380"
          + " --redis-ca-file /etc/ssl/prod-ca.pem --current"
    })
public final class ConfigSetContext implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "NAME", description = "The context's name.")
  String name;

  @Option(names = "--current", description = "Also make it the current context.")
  boolean current;

  @Option(
      names = "--min-replicas",
      paramLabel = "N",
      description =
          "The context's default for force --min-replicas: the replicas an override must reach"
              + " (0-"
              + Settings.MAX_MIN_REPLICAS
              + "; 0: none required).")
  String minReplicas;

  @Override
  public Integer call() {
    if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,62}")) {
      throw CliException.usage(
          "context name must be 1-63 characters of [A-Za-z0-9._-] but was '"
              + Inputs.cut(name)
              + "'");
    }
    Path p = ConfigCommand.path(spec);
    ConfigFile f = ConfigFile.load(p);
    ConfigFile.Context c = f.context(name).orElse(null);
    boolean created = c == null;
    if (created) {
      c = new ConfigFile.Context();
      c.name = name;
      f.contexts.add(c);
    }
    Settings.Flags flags = CliContext.of(spec).flags();
    refuseSecrets(flags);
    if (flags.mongo() != null) {
      Settings.checkMongoFully("--mongo", flags.mongo());
    }
    if (flags.redis() != null) {
      RedisUris.check("--redis", flags.redis());
    }
    if (flags.prefix() != null) {
      try {
        KeyPrefix.check(flags.prefix());
      } catch (IllegalArgumentException e) {
        throw CliException.usage("--prefix: " + e.getMessage());
      }
    }
    if (flags.timeout() != null && flags.timeout().isZero()) {
      throw CliException.usage("--timeout must be > 0");
    }
    if (minReplicas != null) {
      c.minReplicas = Integer.toString(Settings.parseMinReplicas("--min-replicas", minReplicas));
    }
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
