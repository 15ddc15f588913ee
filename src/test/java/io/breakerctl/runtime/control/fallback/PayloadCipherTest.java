package io.breakerctl.runtime.control.fallback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@DisplayName("Fallback payload encryption and business-key hashing")
class PayloadCipherTest {

  static final byte[] K1 = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  static final byte[] K2 = "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII);
  static final byte[] PLAIN = "{\"plan\":\"gold\"}".getBytes(StandardCharsets.UTF_8);

  @Nested
  @DisplayName("AES-GCM")
  class Gcm {

    @Test
    @DisplayName("a random nonce per write; the key id travels with the payload")
    void nonces() {
      PayloadCipher c = new PayloadCipher(PayloadKeys.of(Map.of("k1", K1), "k1"));

      SealedPayload a = c.seal(PLAIN, "doc-1");
      SealedPayload b = c.seal(PLAIN, "doc-1");

      assertThat(a.nonce()).hasSize(12).isNotEqualTo(b.nonce());
      assertThat(a.data()).isNotEqualTo(b.data()).isNotEqualTo(PLAIN);
      assertThat(a.keyId()).isEqualTo("k1");
      assertThat(c.open(a, "doc-1")).isEqualTo(PLAIN);
    }

    @Test
    @DisplayName("altered ciphertext, nonce or record context is rejected")
    void tamper() {
      PayloadCipher c = new PayloadCipher(PayloadKeys.of(Map.of("k1", K1), "k1"));
      SealedPayload p = c.seal(PLAIN, "doc-1");
      byte[] data = p.data().clone();
      data[0] ^= 1;
      byte[] nonce = p.nonce().clone();
      nonce[3] ^= 1;

      assertThatThrownBy(() -> c.open(new SealedPayload("k1", p.nonce(), data), "doc-1"))
          .isInstanceOf(PayloadCipher.PayloadException.class)
          .hasMessageContaining("k1");
      assertThatThrownBy(() -> c.open(new SealedPayload("k1", nonce, p.data()), "doc-1"))
          .isInstanceOf(PayloadCipher.PayloadException.class);
      assertThatThrownBy(() -> c.open(p, "doc-2"))
          .isInstanceOf(PayloadCipher.PayloadException.class);
    }

    @Test
    @DisplayName(
        "rotation: a payload under key 1 reads after rotating to key 2; new writes use key 2")
    void rotation() {
      SealedPayload old =
          new PayloadCipher(PayloadKeys.of(Map.of("k1", K1), "k1")).seal(PLAIN, "d");
      PayloadCipher rotated = new PayloadCipher(PayloadKeys.of(Map.of("k1", K1, "k2", K2), "k2"));

      assertThat(rotated.open(old, "d")).isEqualTo(PLAIN);
      assertThat(rotated.seal(PLAIN, "d").keyId()).isEqualTo("k2");
      PayloadCipher dropped = new PayloadCipher(PayloadKeys.of(Map.of("k2", K2), "k2"));
      assertThatThrownBy(() -> dropped.open(old, "d"))
          .isInstanceOf(PayloadCipher.PayloadException.class)
          .hasMessageContaining("no fallback key with id 'k1'");
    }

    @Test
    @DisplayName("without a key payloads are stored as given, under an empty key id")
    void noKey() {
      PayloadCipher c = new PayloadCipher(PayloadKeys.none());

      SealedPayload p = c.seal(PLAIN, "d");

      assertThat(p.keyId()).isEmpty();
      assertThat(c.open(p, "d")).isEqualTo(PLAIN);
    }
  }

  @Nested
  @DisplayName("keys from the environment or a file")
  class Keys {

    @Test
    @DisplayName("id=base64 entries; the named or last key is current; keys never in toString")
    void parse() {
      String b1 = Base64.getEncoder().encodeToString(K1);
      String b2 = Base64.getEncoder().encodeToString(K2);

      PayloadKeys keys =
          PayloadKeys.fromEnvironment(Map.of(PayloadKeys.ENV_KEYS, "k1=" + b1 + ",k2=" + b2));
      PayloadKeys pinned =
          PayloadKeys.fromEnvironment(
              Map.of(PayloadKeys.ENV_KEYS, "k1=" + b1 + ",k2=" + b2, PayloadKeys.ENV_KEY_ID, "k1"));

      assertThat(keys.currentId()).isEqualTo("k2");
      assertThat(pinned.currentId()).isEqualTo("k1");
      assertThat(keys.toString()).doesNotContain(b1).doesNotContain(b2).contains("k1", "k2");
      assertThat(PayloadKeys.fromEnvironment(Map.of()).encrypts()).isFalse();
    }

    @Test
    @DisplayName("bad entries are named without the key")
    void bad() {
      assertThatThrownBy(
              () -> PayloadKeys.fromEnvironment(Map.of(PayloadKeys.ENV_KEYS, "k1=c2hvcnQ=")))
          .hasMessageContaining("'k1' must be 16, 24 or 32 bytes but was 5")
          .hasMessageNotContaining("c2hvcnQ=");
      assertThatThrownBy(() -> PayloadKeys.fromEnvironment(Map.of(PayloadKeys.ENV_KEYS, "nokey")))
          .hasMessageContaining("entry 1 is not id=base64key");
      assertThatThrownBy(() -> PayloadKeys.of(Map.of("k1", K1), "k9"))
          .hasMessageContaining("'k9' has no key");
    }
  }

  @Test
  @DisplayName("business keys: salted SHA-256, never the key itself")
  void businessKeys() {
    BusinessKeys prod = new BusinessKeys("prod-salt-0123456789");
    BusinessKeys staging = new BusinessKeys("staging-salt-0123456789");

    String h = prod.hash("member-4711");

    assertThat(h).matches("[0-9a-f]{64}").doesNotContain("4711");
    assertThat(prod.hash("member-4711")).isEqualTo(h);
    assertThat(staging.hash("member-4711")).isNotEqualTo(h);
    assertThatThrownBy(() -> new BusinessKeys("short")).hasMessageContaining("at least 16");
  }
}
