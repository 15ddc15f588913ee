package io.breakerctl.runtime.redis;

import io.breakerctl.runtime.store.MalformedBreakerException;
import io.breakerctl.runtime.store.StoreException;
import io.breakerctl.runtime.store.StoreFault;
import io.breakerctl.runtime.store.StorePermissionException;
import io.breakerctl.runtime.store.StoreTlsException;
import io.breakerctl.runtime.store.StoreUnavailableException;
import io.breakerctl.runtime.store.TlsFailure;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Turns Lettuce's exceptions into the store's kinds (permission, unavailable, a named TLS failure,
 * malformed breaker, other), with a message naming the action.
 */
final class StoreErrors {
  private StoreErrors() {}

  /** The error text the scripts answer with for a malformed breaker, after Redis's {@code ERR}. */
  static final String MALFORMED_MARKER = "breakerctl: malformed breaker hash";

  static StoreException translate(String action, Throwable t) {
    Throwable e = unwrap(t);
    if (e instanceof StoreException se) {
      return se;
    }
    String msg = clean(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    TlsFailure tls = TlsFailures.of(e);
    if (tls != null) {
      String detail = TlsFailures.detail(e);
      return new StoreTlsException(
          action + ": " + tls.message() + (detail == null ? "" : " (" + clean(detail) + ")"),
          e,
          tls);
    }
    String refused = answer(e, "WRONGPASS", "NOAUTH");
    if (refused != null && !msg.startsWith("NOPERM") && !msg.contains("NOPERM ")) {
      return new StorePermissionException(
          action + ": authentication failed: " + refused, e, StoreFault.AUTH);
    }
    if (msg.startsWith("NOPERM")
        || msg.startsWith("WRONGPASS")
        || msg.startsWith("NOAUTH")
        || msg.contains("NOPERM ")) {
      return new StorePermissionException(
          action + ": permission denied: " + msg,
          e,
          msg.startsWith("NOPERM") || msg.contains("NOPERM ")
              ? StoreFault.NOPERM
              : StoreFault.AUTH);
    }
    String denied = answer(e, "NOPERM");
    if (denied != null) {
      // a connect refused by an ACL on every seed (e.g. a Cluster user without CLUSTER NODES)
      return new StorePermissionException(
          action + ": permission denied: " + clean(denied), e, StoreFault.NOPERM);
    }
    if (e instanceof RedisCommandTimeoutException || e instanceof TimeoutException) {
      return new StoreUnavailableException(
          action + ": Redis unavailable: " + msg, e, StoreFault.TIMEOUT);
    }
    if (e instanceof RedisConnectionException
        || e instanceof IOException
        || e instanceof CancellationException
        || (e instanceof RedisException && !(e instanceof RedisCommandExecutionException))) {
      return new StoreUnavailableException(
          action + ": Redis unavailable: " + msg, e, StoreFault.UNREACHABLE);
    }
    if (msg.contains(MALFORMED_MARKER)) {
      return new MalformedBreakerException(
          action + ": " + msg.substring(msg.indexOf(MALFORMED_MARKER)), e);
    }
    StoreFault fault = faultOfReply(msg);
    if (fault.hard()) {
      // Redis is there and refuses the work (full, a replica, loading, a script broken): the
      // node treats it as unavailable for this work, and the CLI exits 6 naming the reason
      return new StoreUnavailableException(
          action + ": Redis cannot do it (" + fault.code() + "): " + msg, e, fault);
    }
    return new StoreException(action + ": " + msg, e, fault);
  }

  /**
   * Whether the server of {@code uri} answers a plain-text {@code PING} with a RESP reply ({@code
   * +PONG}, or an error such as {@code -NOAUTH}): a plain Redis, where a TLS server would answer a
   * TLS alert or nothing. Bounded by {@code timeout} and at most 1 s (a plain Redis answers in
   * microseconds; a hung server must not double the wait); false on any failure.
   */
  static boolean answersPlainRedis(RedisURI uri, Duration timeout) {
    if (uri.getHost() == null || uri.getPort() <= 0) {
      return false;
    }
    int ms = (int) Math.max(1, Math.min(1000, timeout.toMillis()));
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), ms);
      s.setSoTimeout(ms);
      s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      int first = s.getInputStream().read();
      return first == '+' || first == '-';
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * The first of Redis's answers starting with one of {@code codes} among the causes of {@code e}
   * and what they suppressed (a Cluster connect keeps each seed's answer as a suppressed exception
   * under "Unable to establish a connection to Redis Cluster"), or null.
   */
  private static String answer(Throwable e, String... codes) {
    ArrayDeque<Throwable> todo = new ArrayDeque<>(List.of(e));
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    while (!todo.isEmpty() && seen.size() < 64) {
      Throwable t = todo.poll();
      if (!seen.add(t)) {
        continue;
      }
      String m = String.valueOf(t.getMessage());
      for (String code : codes) {
        if (m.startsWith(code)) {
          return m;
        }
      }
      if (t.getCause() != null) {
        todo.add(t.getCause());
      }
      todo.addAll(List.of(t.getSuppressed()));
    }
    return null;
  }

  /** Lettuce's text without its internals: {@code host/<unresolved>:port} is {@code host:port}. */
  static String clean(String message) {
    return message.replace("/<unresolved>", "");
  }

  static Throwable unwrap(Throwable t) {
    Throwable e = t;
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }

  /**
   * The fault of an error reply, from its error code (the reply's first word): {@code OOM}, {@code
   * READONLY}, ...; {@link StoreFault#SCRIPT} for a Lua runtime error ({@code ERR user_script:...}
   * on Redis 7, {@code ERR Error running script} on 6.2, unless it wraps a reply with a code of its
   * own, such as {@code -WRONGTYPE}); {@link StoreFault#OTHER} for anything else.
   */
  static StoreFault faultOfReply(String reply) {
    String r = reply == null ? "" : reply.strip();
    int space = r.indexOf(' ');
    String code = space < 0 ? r : r.substring(0, space);
    switch (code) {
      case "OOM":
        return StoreFault.OOM;
      case "READONLY":
        return StoreFault.READONLY;
      case "LOADING":
        return StoreFault.LOADING;
      case "BUSY":
        return StoreFault.BUSY;
      case "MASTERDOWN":
        return StoreFault.MASTERDOWN;
      case "CLUSTERDOWN":
        return StoreFault.CLUSTERDOWN;
      case "TRYAGAIN":
        return StoreFault.TRYAGAIN;
      case "NOPERM":
        return StoreFault.NOPERM;
      case "WRONGPASS":
      case "NOAUTH":
        return StoreFault.AUTH;
      case "WRONGTYPE":
        return StoreFault.WRONGTYPE;
      case "ERR":
        if (r.startsWith("ERR Error running script")) {
          // Redis 6.2 wraps the error of a command the script called: "... @user_script: 12: -OOM
          // command not allowed ..."; the wrapped code is the fault
          int dash = r.indexOf(": -");
          StoreFault inner = dash < 0 ? StoreFault.OTHER : faultOfReply(r.substring(dash + 3));
          return inner == StoreFault.OTHER ? StoreFault.SCRIPT : inner;
        }
        return r.startsWith("ERR user_script:") ? StoreFault.SCRIPT : StoreFault.OTHER;
      default:
        return StoreFault.OTHER;
    }
  }
}
