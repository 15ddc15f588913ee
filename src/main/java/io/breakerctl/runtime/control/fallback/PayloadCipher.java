package io.breakerctl.runtime.control.fallback;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Encrypts payloads at rest with AES-GCM under the current key of a {@link PayloadKeys} (a random
 * 96-bit nonce per write, a 128-bit tag), binding each ciphertext to its record ({@code context} as
 * associated data), and decrypts under whichever key id a payload names.
 */
public final class PayloadCipher {

  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;

  private final PayloadKeys keys;
  private final SecureRandom random = new SecureRandom();

  /** A cipher over {@code keys}. */
  public PayloadCipher(PayloadKeys keys) {
    this.keys = keys;
  }

  /**
   * Seals {@code plaintext} for the record {@code context}; plaintext when no key is configured.
   */
  public SealedPayload seal(byte[] plaintext, String context) {
    if (!keys.encrypts()) {
      return new SealedPayload("", new byte[0], plaintext.clone());
    }
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    SecretKey key = keys.key(keys.currentId()).orElseThrow();
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      c.updateAAD(context.getBytes(StandardCharsets.UTF_8));
      return new SealedPayload(keys.currentId(), nonce, c.doFinal(plaintext));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM unavailable", e);
    }
  }

  /**
   * Opens a sealed payload of the record {@code context}.
   *
   * @throws PayloadException when the key id is unknown or the ciphertext, nonce or context was
   *     altered (the message names the key id, never the key)
   */
  public byte[] open(SealedPayload p, String context) {
    if (p.keyId().isEmpty()) {
      if (!keys.readsPlaintext()) {
        throw new PayloadException(
            "payload stored in clear, and this node has keys: refused (PayloadKeys"
                + ".acceptingPlaintext() reads it during a migration)");
      }
      return p.data().clone();
    }
    SecretKey key =
        keys.key(p.keyId())
            .orElseThrow(() -> new PayloadException("no fallback key with id '" + p.keyId() + "'"));
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, p.nonce()));
      c.updateAAD(context.getBytes(StandardCharsets.UTF_8));
      return c.doFinal(p.data());
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new PayloadException(
          "payload under key '" + p.keyId() + "' does not decrypt (altered or wrong key)", e);
    }
  }

  /** Whether payloads are encrypted (keys are configured). */
  public boolean encrypts() {
    return keys.encrypts();
  }

  /** A payload that cannot be decrypted: it is never served. */
  public static final class PayloadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    PayloadException(String message) {
      super(message);
    }

    PayloadException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
