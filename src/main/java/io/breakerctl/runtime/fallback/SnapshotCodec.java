package io.breakerctl.runtime.fallback;

/** Turns an answer into the bytes of a fallback snapshot and back. */
public interface SnapshotCodec<T> {

  /** The bytes stored for {@code value}. */
  byte[] encode(T value);

  /** The value stored as {@code bytes}. */
  T decode(byte[] bytes);
}
