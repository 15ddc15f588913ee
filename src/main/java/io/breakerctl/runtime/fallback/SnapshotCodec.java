package io.breakerctl.runtime.fallback;

/** Turns an answer into the bytes of a fallback snapshot and back. */
public interface SnapshotCodec<T> {

  /** The bytes stored for {@code value}. */
  byte[] encode(T value);

  /** The value stored as {@code bytes}. */
  T decode(byte[] bytes);

  /** Text as UTF-8. */
  static SnapshotCodec<String> utf8() {
    return new SnapshotCodec<>() {
      @Override
      public byte[] encode(String value) {
        return value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      }

      @Override
      public String decode(byte[] bytes) {
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
      }
    };
  }
}
