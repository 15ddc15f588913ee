package io.breakerctl.runtime.control;

import com.mongodb.ConnectionString;
import com.mongodb.ErrorCategory;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoSecurityException;
import com.mongodb.MongoSocketException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import io.breakerctl.runtime.Redaction;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bson.Document;

/**
 * The control plane's MongoDB database: the connection, its collections and their indexes. The
 * collections and unique indexes are created idempotently on first use; see the package
 * documentation for the layout. Every operation is bounded by {@link ControlConfig#timeout()}.
 */
public final class ControlDatabase implements AutoCloseable {

  /** Immutable policy versions; unique (policyId, version). */
  public static final String POLICY_VERSIONS = "policy_versions";

  /** Current pointer per policy ({@code _id} = policy id). */
  public static final String POLICIES = "policies";

  /** Audit records of manual actions; unique correlationId. */
  public static final String AUDIT = "audit";

  /** Operators' notes on breakers. */
  public static final String NOTES = "notes";

  /** One document per transition; unique (breakerId, epoch, streamId). */
  public static final String HISTORY = "history";

  /** The forwarder's durable cursor per (breaker, epoch). */
  public static final String CURSORS = "cursors";

  /**
   * Events a stream lost before forwarding (its cap, or the history hold), per (breaker, epoch).
   */
  public static final String GAPS = "gaps";

  /** Approved last-known-good fallback values per breaker and hashed business key. */
  public static final String SNAPSHOTS = "snapshots";

  /** Deferred requests, replayed when the dependency recovers. */
  public static final String DEFERRED = "deferred";

  /** The deployments whose history is stored here ({@link Deployments}); {@code _id} = identity. */
  public static final String DEPLOYMENTS = "deployments";

  private final MongoClient client;
  private final boolean owned;
  private final MongoDatabase database;
  private final ControlConfig config;
  private volatile boolean indexed;

  /** Whether a call soon after MongoDB was found unavailable fails at once ({@link #failFast}). */
  private volatile boolean failFast;

  /** The last call that found MongoDB unavailable, and when it ended ({@code System.nanoTime}). */
  private volatile ControlUnavailableException down;

  private volatile long downAt;

  private ControlDatabase(
      MongoClient client, boolean owned, MongoDatabase database, ControlConfig config) {
    this.client = client;
    this.owned = owned;
    this.database = database;
    this.config = config;
  }

  /**
   * Creates a client for {@code config}. Does not contact the server: the first operation does, and
   * fails with {@link ControlUnavailableException} after the timeout if none answers.
   *
   * @throws IllegalArgumentException when the driver cannot parse the URI (shown redacted)
   */
  public static ControlDatabase connect(ControlConfig config) {
    long ms = config.timeout().toMillis();
    ConnectionString uri;
    try {
      uri = new ConnectionString(config.uri());
    } catch (IllegalArgumentException e) {
      // the driver's message may quote pieces of the URI: redacted, and not kept as the cause of
      // a URI that carries a secret
      throw new IllegalArgumentException(
          "bad MongoDB URI '" + Redaction.uri(config.uri()) + "': " + Redaction.uri(e.getMessage()),
          Redaction.hasSecret(config.uri()) ? null : e);
    }
    MongoClientSettings settings =
        MongoClientSettings.builder()
            .applyConnectionString(uri)
            .applyToClusterSettings(b -> b.serverSelectionTimeout(ms, TimeUnit.MILLISECONDS))
            .applyToSocketSettings(
                b ->
                    b.connectTimeout((int) ms, TimeUnit.MILLISECONDS)
                        .readTimeout((int) ms, TimeUnit.MILLISECONDS))
            .build();
    MongoClient client = MongoClients.create(settings);
    return new ControlDatabase(client, true, client.getDatabase(config.database()), config);
  }

  /**
   * A server's answer to a health check.
   *
   * @param pingMillis the round trip of one {@code ping}
   * @param version the server's version ({@code buildInfo})
   */
  public record ServerInfo(double pingMillis, String version) {}

  /**
   * Pings the server and reads its version ({@code breakerctl doctor}).
   *
   * @throws ControlUnavailableException when MongoDB does not answer within the timeout
   */
  public ServerInfo probe() {
    return call(
        "ping MongoDB",
        () -> {
          MongoDatabase admin = client.getDatabase("admin");
          long t0 = System.nanoTime();
          admin.runCommand(new Document("ping", 1));
          double ms = (System.nanoTime() - t0) / 1e6;
          Document info = admin.runCommand(new Document("buildInfo", 1));
          return new ServerInfo(ms, String.valueOf(info.get("version")));
        });
  }

  /**
   * Makes every call within one timeout after a call that found MongoDB unavailable (no server
   * answered, a socket failed) fail at once with the same cause: a short command (the CLI during an
   * incident: its write check, then the audit) waits for an unreachable MongoDB once, not once per
   * step. Off by default: a long-running process asks each time.
   */
  public ControlDatabase failFast() {
    failFast = true;
    return this;
  }

  /** The configuration in use. */
  public ControlConfig config() {
    return config;
  }

  /**
   * A collection. Its indexes are ensured before its first write (any insert, update, replace,
   * delete, find-and-modify or bulk write), never for a read: a review credential that may only
   * read runs {@code policy apply --dry-run}, {@code history}, {@code replay} and {@code doctor}
   * without creating anything.
   */
  @SuppressWarnings("unchecked")
  public MongoCollection<Document> collection(String name) {
    return (MongoCollection<Document>) writesEnsureIndexes(database.getCollection(name));
  }

  private Object writesEnsureIndexes(MongoCollection<?> target) {
    InvocationHandler h =
        (proxy, method, args) -> {
          if (WRITES.matcher(method.getName()).lookingAt()) {
            ensureIndexes();
          }
          try {
            Object r = method.invoke(target, args);
            // withReadPreference, withWriteConcern, ...: the same collection, the same rule
            return r instanceof MongoCollection<?> c ? writesEnsureIndexes(c) : r;
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return Proxy.newProxyInstance(
        MongoCollection.class.getClassLoader(), new Class<?>[] {MongoCollection.class}, h);
  }

  /** The names of the collection methods that write. */
  private static final Pattern WRITES =
      Pattern.compile("insert|update|replace|delete|findOneAnd|bulkWrite|rename");

  /**
   * Checks, before a write, that the user MongoDB authenticated (if any) holds every action the
   * control plane's writes need on this database ({@code connectionStatus} with {@code
   * showPrivileges}). Nothing to check when MongoDB runs without authentication or does not know
   * the command; the write's own {@code Unauthorized} answer then maps to the same exception.
   *
   * @param what the write, named in the message
   * @throws ControlPermissionException naming the user and the missing actions
   */
  public void requireWritable(String what) {
    Document status =
        call(
            "read the MongoDB user's privileges",
            () -> {
              try {
                return database.runCommand(
                    new Document("connectionStatus", 1).append("showPrivileges", true));
              } catch (MongoCommandException e) {
                return null; // a server without the command: the write's answer decides
              }
            });
    String missing = ControlPrivileges.missing(status, database.getName());
    if (!missing.isEmpty()) {
      throw new ControlPermissionException(
          what
              + ": refused before anything was written: MongoDB user "
              + ControlPrivileges.users(status)
              + " may not "
              + missing
              + " on database "
              + database.getName(),
          null);
    }
  }

  /**
   * Creates the collections' unique indexes if missing. Idempotent; runs once per instance.
   *
   * @throws ControlUnavailableException when MongoDB does not answer
   */
  public void ensureIndexes() {
    if (indexed) {
      return;
    }
    synchronized (this) {
      if (indexed) {
        return;
      }
      call(
          "create indexes",
          () -> {
            IndexOptions unique = new IndexOptions().unique(true);
            database
                .getCollection(POLICY_VERSIONS)
                .createIndex(
                    Indexes.ascending("policyId", "version"), unique.name("policyId_version"));
            database
                .getCollection(AUDIT)
                .createIndex(
                    Indexes.ascending("correlationId"),
                    new IndexOptions().unique(true).name("correlationId"));
            database
                .getCollection(HISTORY)
                .createIndex(
                    Indexes.ascending("breakerId", "epoch", "streamId"),
                    new IndexOptions().unique(true).name("breakerId_epoch_streamId"));
            // query helpers only; nothing depends on them (the test server ignores them)
            database
                .getCollection(HISTORY)
                .createIndex(
                    Indexes.ascending("breakerId", "at"), new IndexOptions().name("breakerId_at"));
            database
                .getCollection(NOTES)
                .createIndex(Indexes.ascending("breakerId", "at"), new IndexOptions().name("at"));
            database
                .getCollection(DEFERRED)
                .createIndex(
                    Indexes.ascending("breakerId", "status", "createdAt"),
                    new IndexOptions().name("breakerId_status_createdAt"));
            return null;
          });
      indexed = true;
    }
  }

  /**
   * Runs a MongoDB operation, translating driver failures.
   *
   * @throws ControlUnavailableException when the server did not answer in time
   * @throws ControlException for any other failure
   */
  public <T> T call(String action, Supplier<T> op) {
    ControlUnavailableException known = down;
    if (failFast && known != null && System.nanoTime() - downAt < config.timeout().toNanos()) {
      throw new ControlUnavailableException(
          action
              + ": MongoDB at "
              + redacted()
              + " is unavailable: "
              + describe(known.getCause())
              + " (found a moment ago, not asked again)",
          known.getCause());
    }
    try {
      return op.get();
    } catch (MongoTimeoutException | MongoSocketException e) {
      down =
          new ControlUnavailableException(
              action + ": MongoDB at " + redacted() + " is unavailable: " + describe(e), e);
      downAt = System.nanoTime();
      throw down;
    } catch (MongoSecurityException e) {
      throw new ControlPermissionException(action + ": MongoDB refused the credentials", e);
    } catch (MongoException e) {
      if (e.getCode() == UNAUTHORIZED
          || (e instanceof MongoWriteException w && w.getError().getCode() == UNAUTHORIZED)) {
        throw new ControlPermissionException(
            action + ": MongoDB refused it (Unauthorized): " + describe(e), e);
      }
      if (e.getCause() instanceof MongoSocketException) {
        down =
            new ControlUnavailableException(
                action + ": MongoDB at " + redacted() + " is unavailable: " + describe(e), e);
        downAt = System.nanoTime();
        throw down;
      }
      throw new ControlException(action + ": " + describe(e), e);
    }
  }

  /**
   * A driver failure in one line: a timeout without the driver's dump of its cluster view, with the
   * innermost cause that dump names, e.g. {@code no server answered in time (Connection refused)};
   * any other failure's message as it is.
   */
  public static String describe(Throwable e) {
    String m = Redaction.uri(String.valueOf(e.getMessage()));
    int view = m.indexOf(". Client view of cluster state is");
    if (view < 0) {
      return m;
    }
    Matcher c = DUMPED_CAUSE.matcher(m);
    String cause = null;
    while (c.find()) {
      cause = c.group(1);
    }
    return "no server answered in time" + (cause == null ? "" : " (" + cause + ")");
  }

  /** Whether {@code e} is a duplicate key error of a unique index. */
  static boolean isDuplicateKey(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof MongoWriteException w
          && w.getError().getCategory() == ErrorCategory.DUPLICATE_KEY) {
        return true;
      }
      if (t instanceof MongoException m && m.getCode() == 11000) {
        return true;
      }
    }
    return false;
  }

  private static final Pattern DUMPED_CAUSE =
      Pattern.compile("\\{[A-Za-z0-9_.$]+(?:Exception|Error): ([^{}]*)\\}");

  /** MongoDB's {@code Unauthorized} error code. */
  private static final int UNAUTHORIZED = 13;

  private String redacted() {
    ConnectionString cs = new ConnectionString(config.uri());
    return String.join(",", cs.getHosts());
  }

  @Override
  public void close() {
    if (owned) {
      client.close();
    }
  }
}
