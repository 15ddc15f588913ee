package io.breakerctl.cli;

import com.mongodb.ConnectionString;
import io.breakerctl.runtime.connection.ConnectionUris;
import io.breakerctl.runtime.connection.Redaction;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The resolved connection settings: flag, then {@code BREAKERCTL_*} environment, then the config
 * file's context, then the defaults.
 *
 * @param context the context in use, or null
 * @param redis Redis URI(s), comma-separated for cluster seeds
 * @param mongo MongoDB URI
 * @param prefix key prefix
 * @param timeout bounds every backend call
 * @param redisUser Redis ACL user, or null
 * @param redisPassword Redis password, or null (never printed)
 * @param redisCaFile PEM CA file for rediss://, or null
 * @param configPath the config file consulted
 * @param mongoConfigured whether MongoDB was given (flag, environment or context), not only the
 *     default: commands that read Redis consult MongoDB on the side only then
 * @param minReplicas the replicas an override must reach before {@code force} succeeds, when its
 *     {@code --min-replicas} is not given ({@code BREAKERCTL_MIN_REPLICAS}, the context's {@code
 *     minReplicas}; default 0: none required)
 */
public record Settings(
    String context,
    String redis,
    String mongo,
    String prefix,
    Duration timeout,
    String redisUser,
    String redisPassword,
    Path redisCaFile,
    Path configPath,
    boolean mongoConfigured,
    int minReplicas) {

  /** Default Redis. */
  public static final String DEFAULT_REDIS = "redis://127.0.0.1:6379";

  /** Default MongoDB. */
  public static final String DEFAULT_MONGO = "mongodb://127.0.0.1:27017";

  /** Default prefix. */
  public static final String DEFAULT_PREFIX = "cb";

  /** The most replicas {@code --min-replicas} may ask for. */
  public static final int MAX_MIN_REPLICAS = 100;

  /** Default timeout. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  /**
   * The flags that may override everything else; null fields are unset. The constructor throws
   * {@link CliException} (usage) for an empty value or a URI that is not one: a script whose
   * variable is unset must not reach another cluster through the fallbacks.
   */
  public record Flags(
      String context,
      String redis,
      String mongo,
      String prefix,
      Duration timeout,
      String redisUser,
      Path redisPasswordFile,
      Path redisCaFile) {

    /** Validates the values given. */
    public Flags {
      nonEmpty("--context", context);
      nonEmpty("--mongo", mongo);
      nonEmpty("--prefix", prefix);
      nonEmpty("--redis-user", redisUser);
      nonEmpty(
          "--redis-password-file", redisPasswordFile == null ? null : redisPasswordFile.toString());
      nonEmpty("--redis-ca-file", redisCaFile == null ? null : redisCaFile.toString());
      if (redis != null) {
        RedisUris.check("--redis", redis);
      }
      if (mongo != null) {
        checkMongo("--mongo", mongo);
      }
      if (timeout != null && timeout.isZero()) {
        throw CliException.usage("--timeout must be > 0");
      }
    }

    /**
     * These flags switched to context {@code name}: the target flags (Redis, MongoDB, prefix, Redis
     * user, password file, CA file) left out so the context's own apply, as {@code breakerctl
     * --context NAME} without them would; the timeout stays.
     */
    public Flags inContext(String name) {
      return new Flags(name, null, null, null, timeout, null, null, null);
    }

    private static void nonEmpty(String flag, String value) {
      if (value != null && value.isBlank()) {
        throw CliException.usage(
            flag + " must not be empty (leave the flag out to use the environment or the context)");
      }
    }
  }

  /**
   * Throws a usage error naming {@code what} when {@code uri} is not a MongoDB URI: its scheme and
   * a host and a user info the driver reads as written here (every command resolves settings, and
   * the driver's parser costs start-up time); the driver's full parse in {@link #checkMongoFully}
   * where a URI is saved.
   */
  public static void checkMongo(String what, String uri) {
    String rest =
        uri.startsWith("mongodb://")
            ? uri.substring(10)
            : uri.startsWith("mongodb+srv://") ? uri.substring(14) : null;
    String hosts =
        rest == null ? "" : rest.substring(rest.lastIndexOf('@') + 1).split("[/?]", 2)[0];
    if (hosts.isEmpty()) {
      throw CliException.usage(
          what
              + " '"
              + Inputs.cut(Redaction.uri(uri))
              + "' is not a MongoDB URI (expected mongodb://HOST[:PORT][,HOST[:PORT]...][/DB]"
              + " or mongodb+srv://HOST)");
    }
    String userInfo = ConnectionUris.userInfoProblem(uri);
    if (userInfo != null) {
      throw CliException.usage(what + " '" + Inputs.cut(Redaction.uri(uri)) + "': " + userInfo);
    }
  }

  /** {@link #checkMongo}, then the driver's own parse of the URI. */
  public static void checkMongoFully(String what, String uri) {
    checkMongo(what, uri);
    try {
      new ConnectionString(uri);
    } catch (IllegalArgumentException e) {
      throw CliException.usage(
          what
              + " '"
              + Inputs.cut(Redaction.uri(uri))
              + "' is not a MongoDB URI: "
              + Redaction.uri(e.getMessage()));
    }
  }

  /**
   * Refuses to act as another identity: a Redis user named without a password (from the
   * environment, a file or the URI) is an authentication error, never the {@code default} user.
   *
   * @throws CliException (permission) naming the user
   */
  public void requireRedisIdentity() {
    if (redisUser != null && redisPassword == null && !Redaction.hasSecret(redis)) {
      throw CliException.permission(
          "Redis user '"
              + redisUser
              + "' is named but no password is given: set BREAKERCTL_REDIS_PASSWORD (an empty"
              + " value is an empty password) or pass --redis-password-file FILE"
              + " (BREAKERCTL_REDIS_PASSWORD_FILE, the context's redisPasswordFile); breakerctl"
              + " never falls back to the default user");
    }
  }

  /** Never prints the password. */
  @Override
  public String toString() {
    return "Settings[context="
        + context
        + ", redis="
        + Redaction.uri(redis)
        + ", mongo="
        + Redaction.uri(mongo)
        + "]";
  }

  /** The config file: BREAKERCTL_CONFIG, else $XDG_CONFIG_HOME or ~/.config /breakerctl. */
  public static Path configPath(Environment env) {
    String explicit = env.get("BREAKERCTL_CONFIG");
    if (explicit != null) {
      return Path.of(explicit);
    }
    String xdg = env.get("XDG_CONFIG_HOME");
    Path base =
        xdg != null
            ? Path.of(xdg)
            : Path.of(
                env.get("HOME") != null ? env.get("HOME") : System.getProperty("user.home"),
                ".config");
    return base.resolve("breakerctl").resolve("config.yaml");
  }

  /**
   * Resolves the settings.
   *
   * @throws CliException (usage) for a context that does not exist or an unreadable file
   */
  public static Settings resolve(Flags flags, Environment env) {
    Path path = configPath(env);
    ConfigFile file = ConfigFile.load(path);
    if (env.get("BREAKERCTL_CONFIG") != null && !Files.exists(path)) {
      throw CliException.usage("BREAKERCTL_CONFIG names " + path + ", which does not exist");
    }
    String contextName = first(flags.context(), env.get("BREAKERCTL_CONTEXT"), file.currentContext);
    ConfigFile.Context ctx = new ConfigFile.Context();
    if (contextName != null) {
      ctx =
          file.context(contextName)
              .orElseThrow(
                  () ->
                      CliException.usage(
                          "context '"
                              + contextName
                              + "' is not defined in "
                              + path
                              + " (see 'breakerctl config get-contexts')"));
    }
    String timeoutText = first(null, env.get("BREAKERCTL_TIMEOUT"), ctx.timeout);
    Duration timeout = DEFAULT_TIMEOUT;
    if (flags.timeout() != null) {
      timeout = flags.timeout();
    } else if (timeoutText != null) {
      try {
        timeout = Durations.parse(timeoutText);
      } catch (IllegalArgumentException e) {
        throw CliException.usage(
            (env.get("BREAKERCTL_TIMEOUT") != null
                    ? "BREAKERCTL_TIMEOUT"
                    : "the timeout of context '" + contextName + "'")
                + ": "
                + e.getMessage());
      }
    }
    if (timeout.isZero()) {
      throw CliException.usage("--timeout must be > 0");
    }
    String passwordFile =
        first(
            flags.redisPasswordFile() == null ? null : flags.redisPasswordFile().toString(),
            env.get("BREAKERCTL_REDIS_PASSWORD_FILE"),
            ctx.redisPasswordFile);
    // set but empty is an empty password, not "no password"
    String password = env.variables().get("BREAKERCTL_REDIS_PASSWORD");
    if (flags.redisPasswordFile() != null || password == null) {
      password = passwordFile == null ? null : readSecret(Path.of(passwordFile));
    }
    String ca =
        first(
            flags.redisCaFile() == null ? null : flags.redisCaFile().toString(),
            env.get("BREAKERCTL_REDIS_CA_FILE"),
            ctx.redisCaFile);
    // a target variable set but empty is a missing secret in CI, never "use localhost"
    for (String target : new String[] {"BREAKERCTL_REDIS", "BREAKERCTL_MONGO"}) {
      String raw = env.variables().get(target);
      boolean flagged = target.endsWith("REDIS") ? flags.redis() != null : flags.mongo() != null;
      if (!flagged && raw != null && raw.isBlank()) {
        throw CliException.usage(
            target
                + " is set but empty (a missing secret?): give it a URI, or unset it to use the"
                + " context or the default");
      }
    }
    String redisEnv = env.get("BREAKERCTL_REDIS");
    if (flags.redis() == null && redisEnv != null) {
      RedisUris.check("BREAKERCTL_REDIS", redisEnv);
    }
    String mongoEnv = env.get("BREAKERCTL_MONGO");
    if (flags.mongo() == null && mongoEnv != null) {
      checkMongo("BREAKERCTL_MONGO", mongoEnv);
    }
    return new Settings(
        contextName,
        first(flags.redis(), redisEnv, ctx.redis, DEFAULT_REDIS),
        first(flags.mongo(), mongoEnv, ctx.mongo, DEFAULT_MONGO),
        first(flags.prefix(), env.get("BREAKERCTL_PREFIX"), ctx.prefix, DEFAULT_PREFIX),
        timeout,
        first(flags.redisUser(), env.get("BREAKERCTL_REDIS_USER"), ctx.redisUser),
        password,
        ca == null ? null : Path.of(ca),
        path,
        first(flags.mongo(), mongoEnv, ctx.mongo) != null,
        minReplicas(env, ctx, contextName));
  }

  /** BREAKERCTL_MIN_REPLICAS, else the context's minReplicas, else 0. */
  private static int minReplicas(Environment env, ConfigFile.Context ctx, String contextName) {
    String envValue = env.get("BREAKERCTL_MIN_REPLICAS");
    if (envValue != null) {
      return parseMinReplicas("BREAKERCTL_MIN_REPLICAS", envValue);
    }
    return ctx.minReplicas == null
        ? 0
        : parseMinReplicas("the minReplicas of context '" + contextName + "'", ctx.minReplicas);
  }

  /**
   * A replica count as {@code --min-replicas} takes it: 0 to {@link #MAX_MIN_REPLICAS}.
   *
   * @throws CliException (usage) naming {@code what} otherwise
   */
  public static int parseMinReplicas(String what, String value) {
    try {
      int n = Integer.parseInt(value.strip());
      if (n >= 0 && n <= MAX_MIN_REPLICAS) {
        return n;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw CliException.usage(
        what
            + " must be a whole number from 0 to "
            + MAX_MIN_REPLICAS
            + " but was '"
            + Inputs.cut(value)
            + "'");
  }

  private static String readSecret(Path file) {
    if (!Files.exists(file)) {
      throw CliException.usage("password file " + file + " does not exist");
    }
    try {
      return Files.readString(file).strip();
    } catch (IOException e) {
      throw CliException.usage(
          "cannot read password file " + file + " (" + e.getClass().getSimpleName() + ")");
    }
  }

  private static String first(String... values) {
    for (String v : values) {
      if (v != null && !v.isEmpty()) {
        return v;
      }
    }
    return null;
  }
}
