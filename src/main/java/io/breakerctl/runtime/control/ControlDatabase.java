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
import io.breakerctl.runtime.connection.Redaction;
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

  /**
   * The deployments whose history is stored here ({@code history.Deployments}); {@code _id} =
   * identity.
   */
  public static final String DEPLOYMENTS = "deployments";

  private final MongoClient client;
  private final boolean owned;
  private final MongoDatabase database;
  private final ControlConfig config;
  private final IndexedCollections collections;

  /** Whether a call soon after MongoDB was found unavailable fails at once ({@link #failFast}). */
  private volatile boolean failFast;

  /** The last call that found MongoDB unavailable, and when it ended ({@code System.nanoTime}). */
  private volatile ControlUnavailableException down;

  private volatile long downAt;

  private volatile String downWhy = "";

  /**
   * The guard of a long-running process ({@link #guard()}): the outage that makes every call fail
   * at once, or null while MongoDB answers.
   */
  private volatile Outage outage;

  private volatile boolean guarded;

  /** Calls that reached the driver and found MongoDB unavailable (each one waited). */
  private final java.util.concurrent.atomic.AtomicLong waits =
      new java.util.concurrent.atomic.AtomicLong();

  /** Whether the driver has been connected to a server at least once (the listener's baseline). */
  private volatile boolean everConnected;

  private ControlDatabase(
      MongoClient client, boolean owned, MongoDatabase database, ControlConfig config) {
    this.client = client;
    this.owned = owned;
    this.database = database;
    this.config = config;
    this.collections = new IndexedCollections(database, this);
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
    ControlDatabase[] self = new ControlDatabase[1];
    com.mongodb.event.ClusterListener watch =
        new com.mongodb.event.ClusterListener() {
          @Override
          public void clusterDescriptionChanged(
              com.mongodb.event.ClusterDescriptionChangedEvent e) {
            ControlDatabase d = self[0];
            if (d != null) {
              d.clusterChanged(e.getNewDescription());
            }
          }
        };
    MongoClientSettings settings =
        MongoClientSettings.builder()
            .applyConnectionString(uri)
            .applyToClusterSettings(
                b -> b.serverSelectionTimeout(ms, TimeUnit.MILLISECONDS).addClusterListener(watch))
            .applyToSocketSettings(
                b ->
                    b.connectTimeout((int) ms, TimeUnit.MILLISECONDS)
                        .readTimeout((int) ms, TimeUnit.MILLISECONDS))
            .build();
    MongoClient client = MongoClients.create(settings);
    ControlDatabase db =
        new ControlDatabase(client, true, client.getDatabase(config.database()), config);
    self[0] = db;
    return db;
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

  /**
   * Guards this database as the registry guards the coordinator ({@code StoreGuard}), for a
   * long-running process whose calls read it (fallback snapshots, deferred requests): once an
   * operation finds MongoDB unavailable (no server answered in time, a socket failed), or the
   * driver's monitor loses the server it was connected to, every operation fails at once with
   * {@link ControlUnavailableException} (no driver exception as its cause, the driver not asked)
   * until a background check, a {@code ping} bounded by the timeout every 250 ms backing off to 2
   * s, sees MongoDB answer. So at most the operations already in flight when it went away wait the
   * timeout; none after. Idempotent; the checker is a daemon thread that ends with {@link
   * #close()}.
   */
  public ControlDatabase guard() {
    guarded = true;
    return this;
  }

  /** Whether the guard holds MongoDB for unavailable (operations fail at once). */
  public boolean unavailable() {
    return outage != null;
  }

  /**
   * How many operations reached the driver and found MongoDB unavailable, each after waiting up to
   * the timeout: with the guard, about one per outage, not one per call.
   */
  public long unavailableWaits() {
    return waits.get();
  }

  /** An outage the guard holds: why, since when (wall clock), and its recovery check. */
  private record Outage(String why, java.time.Instant since) {}

  private static final long FIRST_CHECK_MILLIS = 250;
  private static final long MAX_CHECK_MILLIS = 2_000;

  private volatile java.util.concurrent.ScheduledExecutorService checker;

  /** Trips the guard (when guarded and not already tripped) and schedules the recovery check. */
  private void trip(String why) {
    if (!guarded) {
      return;
    }
    synchronized (this) {
      if (outage != null || closed) {
        return;
      }
      outage = new Outage(why, java.time.Instant.now());
      if (checker == null) {
        checker =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                r -> {
                  Thread t = new Thread(r, "breakerctl-control-check");
                  t.setDaemon(true);
                  return t;
                });
      }
      checker.schedule(() -> check(FIRST_CHECK_MILLIS), FIRST_CHECK_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  /** The recovery check: one ping; the guard opens when it answers, else it runs again later. */
  private void check(long delay) {
    if (closed) {
      return;
    }
    try {
      client.getDatabase("admin").runCommand(new Document("ping", 1));
      outage = null;
    } catch (RuntimeException e) {
      long next = Math.min(delay * 2, MAX_CHECK_MILLIS);
      synchronized (this) {
        if (!closed) {
          checker.schedule(() -> check(next), next, TimeUnit.MILLISECONDS);
        }
      }
    }
  }

  /**
   * The driver's view of the deployment changed: a server it was connected to is gone (the
   * monitor's connection broke), so the guard trips before any operation has to wait for it.
   */
  private void clusterChanged(com.mongodb.connection.ClusterDescription d) {
    boolean connected =
        d.getServerDescriptions().stream()
            .anyMatch(s -> s.getState() == com.mongodb.connection.ServerConnectionState.CONNECTED);
    if (connected) {
      everConnected = true;
    } else if (everConnected) {
      trip("the driver lost its connection to the server");
    }
  }

  private volatile boolean closed;

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
  public MongoCollection<Document> collection(String name) {
    return collections.collection(name);
  }

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
    collections.ensureIndexes();
  }

  /**
   * Runs a MongoDB operation, translating driver failures.
   *
   * @throws ControlUnavailableException when the server did not answer in time
   * @throws ControlException for any other failure
   */
  public <T> T call(String action, Supplier<T> op) {
    Outage o = outage;
    if (o != null) {
      throw new ControlUnavailableException(
          action
              + ": MongoDB at "
              + redacted()
              + " is unavailable since "
              + o.since()
              + " ("
              + o.why()
              + "); not asked until a background check sees it answer",
          null);
    }
    ControlUnavailableException known = down;
    if (failFast && known != null && System.nanoTime() - downAt < config.timeout().toNanos()) {
      throw new ControlUnavailableException(
          action
              + ": MongoDB at "
              + redacted()
              + " is unavailable: "
              + downWhy
              + " (found a moment ago, not asked again)",
          known.getCause());
    }
    try {
      return op.get();
    } catch (MongoTimeoutException | MongoSocketException e) {
      throw wentDown(action, e);
    } catch (MongoSecurityException e) {
      throw new ControlPermissionException(action + ": MongoDB refused the credentials", e);
    } catch (MongoException e) {
      if (e.getCode() == UNAUTHORIZED
          || (e instanceof MongoWriteException w && w.getError().getCode() == UNAUTHORIZED)) {
        throw new ControlPermissionException(
            action + ": MongoDB refused it (Unauthorized): " + describe(e), e);
      }
      if (e.getCause() instanceof MongoSocketException) {
        throw wentDown(action, e);
      }
      throw new ControlException(action + ": " + describe(e), e);
    }
  }

  /**
   * An operation found MongoDB unavailable: remembered for {@link #failFast}, the guard tripped,
   * and the exception to throw (the driver's failure in one line; guarded, not kept as the cause,
   * so no driver exception and no dump of its cluster view reaches a call site).
   */
  private ControlUnavailableException wentDown(String action, MongoException e) {
    waits.incrementAndGet();
    String why = describe(e);
    ControlUnavailableException x =
        new ControlUnavailableException(
            action + ": MongoDB at " + redacted() + " is unavailable: " + why, guarded ? null : e);
    downWhy = why;
    down = x;
    downAt = System.nanoTime();
    trip(why);
    return x;
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
  public static boolean isDuplicateKey(Throwable e) {
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
    synchronized (this) {
      closed = true;
      if (checker != null) {
        checker.shutdownNow();
      }
    }
    if (owned) {
      client.close();
    }
  }
}
