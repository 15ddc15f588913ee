package io.breakerctl.runtime.fallback;

import java.util.Locale;

/**
 * Why the fallback a policy names could not serve a call (the call got a {@link
 * ControlledFailureException} instead): the {@code reason} tag of {@code
 * breakerctl.breaker.fallback.unavailable}, a fixed set, so bounded cardinality. Never carries the
 * data itself: a corrupt payload is named by what is wrong with it, not by its content.
 */
public enum Unserved {
  /** The kind's store or work is not configured on this node (no snapshot store, ...). */
  NOT_CONFIGURED,
  /** A CACHED call without a business key. */
  NO_BUSINESS_KEY,
  /** A DEFERRED call without a payload (not made with {@code submit}). */
  NO_PAYLOAD,
  /** No snapshot for the breaker and business key. */
  NOT_FOUND,
  /** The snapshot waits for an operator's approval. */
  PENDING,
  /** The snapshot was revoked. */
  REVOKED,
  /** The snapshot expired. */
  EXPIRED,
  /** The snapshot's payload does not decrypt (altered, or its key is gone). */
  UNDECRYPTABLE,
  /** The stored snapshot is malformed (a field missing, of another type or an unknown value). */
  MALFORMED,
  /** The payload decrypted but the codec could not decode it. */
  UNDECODABLE,
  /**
   * The call site does not accept the kind the policy names ({@code Fallbacks.Builder.accepts}).
   */
  NOT_ACCEPTED,
  /** The static default the policy names is not registered on this node. */
  NOT_REGISTERED,
  /** MongoDB unavailable (and no hot copy could answer). */
  CONTROL_UNAVAILABLE,
  /** MongoDB answered with an error. */
  CONTROL_ERROR;

  private final String code = name().toLowerCase(Locale.ROOT);

  /** The tag value: the name in lower case ({@code not_found}). */
  public String code() {
    return code;
  }
}
