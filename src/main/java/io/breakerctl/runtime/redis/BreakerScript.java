package io.breakerctl.runtime.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts, the one copy of every state change. Each body is the script's own file under
 * {@code io/breakerctl/lua/} with {@code prelude.lua} inserted at its {@code --@prelude} line (or
 * first, when it has none: only acquire's closed fast path runs before the prelude's definitions);
 * it is fixed per build and called by its SHA-1.
 */
public enum BreakerScript {
  /** Records outcomes; trips, closes and reopens. */
  RECORD("record.lua"),
  /** Admission and half-open probe leases. */
  ACQUIRE("acquire.lua"),
  /** Keeps a running probe's lease alive; ends a probe past maxProbeMillis. */
  RENEW("renew.lua"),
  /** Sets, changes or clears an operator override. */
  OVERRIDE("override.lua"),
  /** Writes a resolved policy version (monotonic). */
  WARM("warm.lua"),
  /** Advances the forwarded-events cursor. */
  FORWARDED("forwarded.lua"),
  /** Elects the fleet's history forwarder (one key, outside the breakers). */
  FORWARDER_LEASE("forwarder-lease.lua"),
  /** Puts back a trip or override Redis lost; publishes a trip made while degraded. */
  REASSERT("reassert.lua"),
  /** Rebuilds a breaker's lost keys from history under a new epoch. */
  RESTORE("restore.lua"),
  /** A node's liveness for the fleet view (one key, outside the breakers). */
  ALIVE("alive.lua");

  private static final String BASE = "/io/breakerctl/lua/";

  /** The line where a script wants the prelude; scripts without it get the prelude first. */
  static final String PRELUDE_MARKER = "\n--@prelude\n";

  private final String file;
  private volatile String body;
  private volatile String sha;

  BreakerScript(String file) {
    this.file = file;
  }

  /** The script's file name. */
  public String file() {
    return file;
  }

  /** The full body sent with EVAL (prelude + script). */
  public String body() {
    String b = body;
    if (b == null) {
      String own = source(file);
      String prelude = source("prelude.lua");
      int at = own.indexOf(PRELUDE_MARKER);
      b =
          at < 0
              ? prelude + "\n" + own
              : own.substring(0, at + 1)
                  + prelude
                  + own.substring(at + PRELUDE_MARKER.length() - 1);
      body = b;
    }
    return b;
  }

  /** The SHA-1 Redis caches the body under. */
  public String sha() {
    String s = sha;
    if (s == null) {
      try {
        byte[] digest =
            MessageDigest.getInstance("SHA-1").digest(body().getBytes(StandardCharsets.UTF_8));
        s = HexFormat.of().formatHex(digest);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-1 unavailable", e);
      }
      sha = s;
    }
    return s;
  }

  /** One file of the scripts as shipped, e.g. {@code record.lua} or {@code prelude.lua}. */
  static String source(String name) {
    try (InputStream in = BreakerScript.class.getResourceAsStream(BASE + name)) {
      if (in == null) {
        throw new IllegalStateException("script resource missing: " + BASE + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
