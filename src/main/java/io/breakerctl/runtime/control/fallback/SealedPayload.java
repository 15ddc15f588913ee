package io.breakerctl.runtime.control.fallback;

import org.bson.Document;
import org.bson.types.Binary;

/**
 * A payload as stored: the key id that encrypted it (empty when stored unencrypted), the 96-bit
 * nonce and the AES-GCM ciphertext with its tag.
 *
 * @param keyId the key id, empty for plaintext
 * @param nonce the nonce (empty for plaintext)
 * @param data the ciphertext and tag, or the plaintext
 */
public record SealedPayload(String keyId, byte[] nonce, byte[] data) {

  Document toDocument() {
    return new Document("keyId", keyId)
        .append("nonce", new Binary(nonce))
        .append("data", new Binary(data));
  }

  static SealedPayload fromDocument(Document d) {
    return new SealedPayload(
        d.getString("keyId"),
        d.get("nonce", Binary.class).getData(),
        d.get("data", Binary.class).getData());
  }
}
