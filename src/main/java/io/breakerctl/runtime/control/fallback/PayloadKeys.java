package io.breakerctl.runtime.control.fallback;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The AES keys that encrypt fallback payloads at rest, by key id, and the id new writes use.
 * Rotation adds a key and makes it current: payloads written under older ids still decrypt, new
 * ones use the current key. Keys never appear in {@link #toString()}, errors or logs.
 *
 * <p>Text form (environment variable {@code BREAKERCTL_FALLBACK_KEYS} or one entry a line in a
 * file): {@code id=base64key} entries separated by commas or newlines; the current key is the one
 * named by {@code BREAKERCTL_FALLBACK_KEY_ID}, else the last entry. A key is 16, 24 or 32 bytes.
 */
public final class PayloadKeys {

  /** The environment variable holding the keys. */
  public static final String ENV_KEYS = "BREAKERCTL_FALLBACK_KEYS";

  /** The environment variable naming the current key id. */
  public static final String ENV_KEY_ID = "BREAKERCTL_FALLBACK_KEY_ID";

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

  private final Map<String, SecretKey> keys;
  private final String current;
  private final boolean acceptsPlaintext;

  private PayloadKeys(Map<String, SecretKey> keys, String current) {
    this(keys, current, false);
  }

  private PayloadKeys(Map<String, SecretKey> keys, String current, boolean acceptsPlaintext) {
    this.keys = Map.copyOf(keys);
    this.current = current;
    this.acceptsPlaintext = acceptsPlaintext;
  }

  /**
   * The same keys, also reading payloads stored in clear: only for a migration from a deployment
   * that wrote without keys. Without it a node with keys refuses a payload in clear (a snapshot is
   * not served, a deferred request is quarantined), since anyone who can write MongoDB could plant
   * one.
   */
  public PayloadKeys acceptingPlaintext() {
    return new PayloadKeys(keys, current, true);
  }

  /** Whether a payload stored in clear is read: no keys, or {@link #acceptingPlaintext()}. */
  public boolean readsPlaintext() {
    return keys.isEmpty() || acceptsPlaintext;
  }

  /** No keys: payloads are stored unencrypted (key id empty). */
  public static PayloadKeys none() {
    return new PayloadKeys(Map.of(), "");
  }

  /**
   * Keys by id; {@code current} encrypts new writes.
   *
   * @throws IllegalArgumentException naming the bad id or key length (never the key)
   */
  public static PayloadKeys of(Map<String, byte[]> raw, String current) {
    Map<String, SecretKey> keys = new LinkedHashMap<>();
    raw.forEach(
        (id, bytes) -> {
          if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException(
                "fallback key id '" + id + "' must be 1-64 of [A-Za-z0-9._-]");
          }
          if (bytes.length != 16 && bytes.length != 24 && bytes.length != 32) {
            throw new IllegalArgumentException(
                "fallback key '" + id + "' must be 16, 24 or 32 bytes but was " + bytes.length);
          }
          keys.put(id, new SecretKeySpec(bytes.clone(), "AES"));
        });
    if (!keys.containsKey(current)) {
      throw new IllegalArgumentException("current fallback key id '" + current + "' has no key");
    }
    return new PayloadKeys(keys, current);
  }

  /**
   * Keys from the environment ({@link #ENV_KEYS}, {@link #ENV_KEY_ID}); none when unset.
   *
   * @throws IllegalArgumentException when the text is malformed
   */
  public static PayloadKeys fromEnvironment(Map<String, String> env) {
    String text = env.get(ENV_KEYS);
    return text == null || text.isBlank() ? none() : parse(text, env.get(ENV_KEY_ID), ENV_KEYS);
  }

  /**
   * Keys from a file (one {@code id=base64key} a line); {@code currentId} or the last entry is
   * current.
   *
   * @throws UncheckedIOException when the file cannot be read
   */
  public static PayloadKeys fromFile(Path file, String currentId) {
    try {
      return parse(Files.readString(file, StandardCharsets.UTF_8), currentId, file.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read fallback keys from " + file, e);
    }
  }

  private static PayloadKeys parse(String text, String currentId, String where) {
    Map<String, byte[]> raw = new LinkedHashMap<>();
    String last = null;
    int n = 0;
    for (String entry : text.split("[,\\n]")) {
      n++;
      String e = entry.strip();
      if (e.isEmpty() || e.startsWith("#")) {
        continue;
      }
      int eq = e.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(where + ": entry " + n + " is not id=base64key");
      }
      String id = e.substring(0, eq).strip();
      try {
        raw.put(id, Base64.getDecoder().decode(e.substring(eq + 1).strip()));
      } catch (IllegalArgumentException bad) {
        throw new IllegalArgumentException(where + ": the key of '" + id + "' is not base64");
      }
      last = id;
    }
    if (last == null) {
      return none();
    }
    return of(raw, currentId == null || currentId.isBlank() ? last : currentId);
  }

  /** Whether payloads are encrypted. */
  public boolean encrypts() {
    return !keys.isEmpty();
  }

  /** The id new writes use, empty when no key is configured. */
  public String currentId() {
    return current;
  }

  Optional<SecretKey> key(String id) {
    return Optional.ofNullable(keys.get(id));
  }

  @Override
  public String toString() {
    return "PayloadKeys" + keys.keySet() + " current=" + current;
  }
}
