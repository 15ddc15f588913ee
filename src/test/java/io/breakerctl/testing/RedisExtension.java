package io.breakerctl.testing;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension giving a test class a Redis server or cluster, with guaranteed cleanup.
 *
 * <pre>{@code
 * @RegisterExtension static final RedisExtension redis = RedisExtension.standalone();
 * @RegisterExtension static final RedisExtension redis = RedisExtension.cluster(RedisBinary::embedded);
 * @RegisterExtension static final RedisExtension redis = RedisExtension.manual(); // redis.manage(...)
 * }</pre>
 *
 * <p>As a static field the fixture is started before all tests and closed after all of them; as an
 * instance field it is started and closed around each test. Anything passed to {@link #manage} is
 * closed at the same time (last in, first out). Test methods and constructors may also declare a
 * {@link RedisServerProcess} or {@link RedisClusterProcess} parameter. Processes are registered
 * with {@link TestProcesses}, so even an aborted JVM does not leak them.
 */
public final class RedisExtension
    implements BeforeAllCallback,
        AfterAllCallback,
        BeforeEachCallback,
        AfterEachCallback,
        ParameterResolver {

  private enum Kind {
    STANDALONE,
    CLUSTER,
    MANUAL
  }

  private final Kind kind;
  private final Supplier<RedisBinary> binarySupplier;
  private final Deque<AutoCloseable> managed = new ArrayDeque<>();
  private RedisBinary binary;
  private RedisServerProcess server;
  private RedisClusterProcess cluster;
  private String owner;

  private RedisExtension(Kind kind, Supplier<RedisBinary> binarySupplier) {
    this.kind = kind;
    this.binarySupplier = binarySupplier;
  }

  /** A standalone server on the embedded 6.2 binary. */
  public static RedisExtension standalone() {
    return standalone(RedisBinary::embedded);
  }

  /** A standalone server on the given binary (resolved lazily, when the fixture starts). */
  public static RedisExtension standalone(Supplier<RedisBinary> binary) {
    return new RedisExtension(Kind.STANDALONE, binary);
  }

  /** A 3-master cluster on the embedded 6.2 binary. */
  public static RedisExtension cluster() {
    return cluster(RedisBinary::embedded);
  }

  /** A 3-master cluster on the given binary (resolved lazily, when the fixture starts). */
  public static RedisExtension cluster(Supplier<RedisBinary> binary) {
    return new RedisExtension(Kind.CLUSTER, binary);
  }

  /** Starts nothing; only closes what the test hands to {@link #manage}. */
  public static RedisExtension manual() {
    return new RedisExtension(Kind.MANUAL, RedisBinary::embedded);
  }

  /** The standalone server. */
  public synchronized RedisServerProcess server() {
    if (server == null) {
      throw new IllegalStateException("no standalone server (kind " + kind + ", or not started)");
    }
    return server;
  }

  /** The cluster (named so because {@code cluster()} is the static factory). */
  public synchronized RedisClusterProcess redisCluster() {
    if (cluster == null) {
      throw new IllegalStateException("no cluster (kind " + kind + ", or not started)");
    }
    return cluster;
  }

  /** URI of the server, or the comma-joined seed URIs of the cluster. */
  public synchronized String uri() {
    return kind == Kind.CLUSTER ? redisCluster().uri() : server().uri();
  }

  /** The binary the fixture runs on. */
  public synchronized RedisBinary binary() {
    if (binary == null) {
      binary = binarySupplier.get();
    }
    return binary;
  }

  /** Closes {@code resource} when this fixture is torn down; returns it. */
  public synchronized <T extends AutoCloseable> T manage(T resource) {
    managed.push(resource);
    return resource;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    startIfNeeded(context);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    startIfNeeded(context);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    closeIfOwner(context);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    closeIfOwner(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return (type == RedisServerProcess.class && kind == Kind.STANDALONE)
        || (type == RedisClusterProcess.class && kind == Kind.CLUSTER);
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == RedisServerProcess.class
        ? server()
        : redisCluster();
  }

  private synchronized void startIfNeeded(ExtensionContext context) {
    if (owner != null) {
      return;
    }
    owner = context.getUniqueId();
    if (kind == Kind.STANDALONE) {
      server = manage(RedisServerProcess.start(binary()));
    } else if (kind == Kind.CLUSTER) {
      cluster = manage(RedisClusterProcess.start(binary()));
    }
  }

  private synchronized void closeIfOwner(ExtensionContext context) {
    if (!context.getUniqueId().equals(owner)) {
      return;
    }
    owner = null;
    server = null;
    cluster = null;
    Exception first = null;
    while (!managed.isEmpty()) {
      try {
        managed.pop().close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw new IllegalStateException("closing Redis test fixtures", first);
    }
  }
}
