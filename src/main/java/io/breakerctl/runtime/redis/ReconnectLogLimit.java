package io.breakerctl.runtime.redis;

import io.netty.util.internal.logging.InternalLogLevel;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Rate-limits Lettuce's reconnect logging. Lettuce logs through Netty's logger factory (to SLF4J
 * when a binding is present, else java.util.logging), and while Redis is away every connection's
 * watchdog logs "Reconnecting, last destination was ..." and "Cannot reconnect ..." every 5 s, the
 * cluster topology refresh "Unable to connect to ..." as often: a service JVM logged 135 such lines
 * in the 70 s after a Cluster master died (issue 42). This factory wraps Netty's default one and,
 * for the loggers of Lettuce's reconnect path ({@link #LIMITED}), keeps the first {@code lines}
 * records at INFO and above in each {@code window} per logger, counts the rest, and logs "N more
 * ... suppressed" with the first record after the window, at the highest level suppressed: the
 * beginning of an outage and a periodic count stay visible, the flood does not. DEBUG and TRACE
 * (turned on deliberately) and every other logger pass untouched.
 *
 * <p>Default 5 lines per minute. {@code -Dbreakerctl.reconnectLogLimit=off} (or the environment
 * variable {@code BREAKERCTL_RECONNECT_LOG_LIMIT=off}) shows every line; {@code 20/30s} keeps 20
 * lines per 30 s. Installed once per JVM by the first {@link RedisFleetStore} (before it creates a
 * Lettuce client): Lettuce's loggers are created when its classes load, so a JVM that used Lettuce
 * before (another Redis client of the service) keeps those classes' loggers unlimited.
 */
final class ReconnectLogLimit extends InternalLoggerFactory {

  /** The system property that sets the limit ({@code off}, {@code N} or {@code N/DURATION}). */
  public static final String PROPERTY = "breakerctl.reconnectLogLimit";

  /** The environment variable read when the property is not set. */
  public static final String ENVIRONMENT = "BREAKERCTL_RECONNECT_LOG_LIMIT";

  /** The logger names (prefixes) of Lettuce's reconnect path. */
  static final List<String> LIMITED =
      List.of(
          "io.lettuce.core.protocol.ConnectionWatchdog",
          "io.lettuce.core.protocol.ReconnectionHandler",
          "io.lettuce.core.protocol.CommandHandler",
          "io.lettuce.core.cluster.topology.",
          "io.lettuce.core.cluster.RedisClusterClient",
          "io.lettuce.core.cluster.PooledClusterConnectionProvider");

  private static final Method NEW_INSTANCE;

  static {
    try {
      NEW_INSTANCE = InternalLoggerFactory.class.getDeclaredMethod("newInstance", String.class);
      NEW_INSTANCE.setAccessible(true);
    } catch (NoSuchMethodException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static boolean installed;

  private final InternalLoggerFactory delegate;
  private final int lines;
  private final long windowNanos;
  private final LongSupplier ticker;

  ReconnectLogLimit(
      InternalLoggerFactory delegate, int lines, Duration window, LongSupplier ticker) {
    this.delegate = delegate;
    this.lines = lines;
    this.windowNanos = window.toNanos();
    this.ticker = ticker;
  }

  /**
   * Installs the limit as Netty's default logger factory, once per JVM, as the property or the
   * environment says (nothing when {@code off}).
   */
  static synchronized void install() {
    if (installed) {
      return;
    }
    installed = true;
    String spec = System.getProperty(PROPERTY);
    if (spec == null) {
      spec = System.getenv(ENVIRONMENT);
    }
    ReconnectLogLimit limit;
    try {
      limit = parse(spec, InternalLoggerFactory.getDefaultFactory(), System::nanoTime);
    } catch (IllegalArgumentException e) {
      System.getLogger(ReconnectLogLimit.class.getName())
          .log(System.Logger.Level.WARNING, e.getMessage() + "; the default (5/60s) applies");
      limit = parse(null, InternalLoggerFactory.getDefaultFactory(), System::nanoTime);
    }
    if (limit != null) {
      InternalLoggerFactory.setDefaultFactory(limit);
    }
  }

  /**
   * The limit {@code spec} asks for over {@code delegate}: null for {@code off}.
   *
   * @throws IllegalArgumentException naming the property for a spec that is not one
   */
  static ReconnectLogLimit parse(String spec, InternalLoggerFactory delegate, LongSupplier ticker) {
    if (spec == null || spec.isBlank()) {
      return new ReconnectLogLimit(delegate, 5, Duration.ofMinutes(1), ticker);
    }
    String s = spec.strip().toLowerCase(Locale.ROOT);
    if (s.equals("off")) {
      return null;
    }
    try {
      int slash = s.indexOf('/');
      int n = Integer.parseInt(slash < 0 ? s : s.substring(0, slash));
      Duration window =
          slash < 0 ? Duration.ofMinutes(1) : Duration.parse("PT" + s.substring(slash + 1));
      if (n >= 1 && !window.isNegative() && !window.isZero()) {
        return new ReconnectLogLimit(delegate, n, window, ticker);
      }
    } catch (RuntimeException e) {
      // named below
    }
    throw new IllegalArgumentException(
        PROPERTY
            + " / "
            + ENVIRONMENT
            + " must be off, N or N/DURATION (N >= 1, e.g. 5/60s) but was '"
            + spec
            + "'");
  }

  @Override
  protected InternalLogger newInstance(String name) {
    InternalLogger logger;
    try {
      logger = (InternalLogger) NEW_INSTANCE.invoke(delegate, name);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    } catch (InvocationTargetException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
    return limited(name) ? limit(logger) : logger;
  }

  static boolean limited(String name) {
    return LIMITED.stream().anyMatch(name::startsWith);
  }

  /** {@code logger} with this limit on its records at INFO and above. */
  InternalLogger limit(InternalLogger logger) {
    return (InternalLogger)
        Proxy.newProxyInstance(
            InternalLogger.class.getClassLoader(),
            new Class<?>[] {InternalLogger.class},
            new Limited(logger));
  }

  /** One logger's window: what passed and what was suppressed in it. */
  private final class Limited implements InvocationHandler {
    private final InternalLogger logger;
    private long windowStart;
    private boolean started;
    private int passed;
    private long suppressed;
    private InternalLogLevel suppressedLevel;

    Limited(InternalLogger logger) {
      this.logger = logger;
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      InternalLogLevel level = levelOf(m, args);
      if (level == null
          || level.ordinal() < InternalLogLevel.INFO.ordinal()
          || !logger.isEnabled(level)
          || admit(level)) {
        try {
          return m.invoke(logger, args);
        } catch (InvocationTargetException e) {
          throw e.getCause();
        }
      }
      return null;
    }

    /** Whether a record at {@code level} passes; logs the last window's count first. */
    private boolean admit(InternalLogLevel level) {
      long summary;
      InternalLogLevel summaryLevel;
      long window;
      synchronized (this) {
        long now = ticker.getAsLong();
        if (started && now - windowStart < windowNanos) {
          if (passed < lines) {
            passed++;
            return true;
          }
          suppressed++;
          if (suppressedLevel == null || level.ordinal() > suppressedLevel.ordinal()) {
            suppressedLevel = level;
          }
          return false;
        }
        window = started ? now - windowStart : 0;
        summary = suppressed;
        summaryLevel = suppressedLevel;
        started = true;
        windowStart = now;
        suppressed = 0;
        suppressedLevel = null;
        passed = 1;
      }
      if (summary > 0) {
        logger.log(
            summaryLevel,
            "{} more line(s) of {} suppressed in the last {} s (breakerctl's reconnect log"
                + " limit; -D{}=off shows every line)",
            summary,
            logger.name(),
            Duration.ofNanos(window).toSeconds(),
            PROPERTY);
      }
      return true;
    }
  }

  /** The level a logging method logs at; null for the others (name, isEnabled, ...). */
  private static InternalLogLevel levelOf(Method m, Object[] args) {
    switch (m.getName()) {
      case "trace":
        return InternalLogLevel.TRACE;
      case "debug":
        return InternalLogLevel.DEBUG;
      case "info":
        return InternalLogLevel.INFO;
      case "warn":
        return InternalLogLevel.WARN;
      case "error":
        return InternalLogLevel.ERROR;
      case "log":
        return (InternalLogLevel) args[0];
      default:
        return null;
    }
  }
}
