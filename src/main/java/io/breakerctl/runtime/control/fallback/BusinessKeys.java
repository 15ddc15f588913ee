package io.breakerctl.runtime.control.fallback;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Turns business keys (a member id, an order number) into the only form that is stored: SHA-256 of
 * a per-environment salt and the key, as hex. The key itself is never stored, put in a Redis key,
 * logged or used as a metric tag.
 */
public final class BusinessKeys {

  /** The environment variable holding the salt. */
  public static final String ENV_SALT = "BREAKERCTL_FALLBACK_SALT";

  private final byte[] salt;

  /**
   * Hashes with {@code salt}.
   *
   * @throws IllegalArgumentException when the salt is shorter than 16 characters
   */
  public BusinessKeys(String salt) {
    Objects.requireNonNull(salt, "salt");
    if (salt.length() < 16) {
      throw new IllegalArgumentException(
          "fallback salt must be at least 16 characters but was " + salt.length());
    }
    this.salt = salt.getBytes(StandardCharsets.UTF_8);
  }

  /** The stored form of {@code businessKey}. */
  public String hash(String businessKey) {
    Objects.requireNonNull(businessKey, "businessKey");
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update(salt);
      md.update((byte) 0);
      return HexFormat.of().formatHex(md.digest(businessKey.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 unavailable", e);
    }
  }

  @Override
  public String toString() {
    return "BusinessKeys[salted SHA-256]";
  }
}
