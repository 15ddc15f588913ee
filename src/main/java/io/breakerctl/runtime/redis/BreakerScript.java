package io.breakerctl.runtime.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Lua scripts, the one copy of every state change. Each body is {@code prelude.lua} followed by
 * the script's own file under {@code io/breakerctl/lua/}; it is fixed per build and called by its
 * SHA-1.
 */
public enum BreakerScript {
  /** Records outcomes; trips, closes and reopens. */
  RECORD("record.lua"),
  /** Admission and half-open probe leases. */
  ACQUIRE("acquire.lua"),
  /** Sets, changes or clears an operator override. */
  OVERRIDE("override.lua"),
  /** Writes a resolved policy version (monotonic). */
  WARM("warm.lua"),
  /** Advances the forwarded-events cursor. */
  FORWARDED("forwarded.lua");

  private static final String BASE = "/io/breakerctl/lua/";

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
      b = read("prelude.lua") + "\n" + read(file);
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

  private static String read(String name) {
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
