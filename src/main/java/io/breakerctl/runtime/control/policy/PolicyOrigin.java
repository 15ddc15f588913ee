package io.breakerctl.runtime.control.policy;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Where a policy version came from (its provenance), stored as {@code origin} in {@code
 * policy_versions}: {@code ci:<commit>} (a CI rollout of a policy repository at that commit),
 * {@code hand} (a person ran {@code policy apply}), {@code rollback:v<N>} (a rollback to version
 * N), {@code revert:v<N>} (the control plane reverted expired temporary version N), or {@code
 * unknown} (a version recorded before origins were). A deletion by {@code apply --prune} carries
 * the origin of the apply that made it.
 *
 * @param kind what made the version
 * @param detail the commit (CI) or the version number (rollback, revert); empty otherwise
 */
public record PolicyOrigin(Kind kind, String detail) {

  /** What made a version. */
  public enum Kind {
    /** A CI rollout ({@code scripts/ci-rollout}); the detail is the commit. */
    CI,
    /** A person's {@code policy apply}. */
    HAND,
    /** A rollback; the detail is the version whose spec it restored. */
    ROLLBACK,
    /** The revert of an expired temporary version; the detail is that version. */
    REVERT,
    /** Recorded before origins were. */
    UNKNOWN
  }

  /** A commit: letters, digits, '.', '_', '-', '/', at most 64 characters. */
  private static final Pattern COMMIT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/-]{0,63}");

  /** A hand apply. */
  public static final PolicyOrigin HAND = new PolicyOrigin(Kind.HAND, "");

  /** A version recorded before origins were. */
  public static final PolicyOrigin UNKNOWN = new PolicyOrigin(Kind.UNKNOWN, "");

  /** Validates. */
  public PolicyOrigin {
    if (kind == null) {
      throw new IllegalArgumentException("origin kind must not be null");
    }
    detail = detail == null ? "" : detail;
    boolean needsDetail = kind != Kind.HAND && kind != Kind.UNKNOWN;
    if (needsDetail && detail.isEmpty()) {
      throw new IllegalArgumentException(
          "origin " + kind.name().toLowerCase(Locale.ROOT) + " needs a detail");
    }
    if (!needsDetail && !detail.isEmpty()) {
      throw new IllegalArgumentException(
          "origin " + kind.name().toLowerCase(Locale.ROOT) + " takes no detail but had " + detail);
    }
    if (kind == Kind.CI && !COMMIT.matcher(detail).matches()) {
      throw new IllegalArgumentException(
          "a CI origin's commit must match " + COMMIT.pattern() + " but was '" + detail + "'");
    }
  }

  /** A CI rollout of {@code commit}. */
  public static PolicyOrigin ci(String commit) {
    return new PolicyOrigin(Kind.CI, commit);
  }

  /** A rollback to {@code version}. */
  public static PolicyOrigin rollback(long version) {
    return new PolicyOrigin(Kind.ROLLBACK, "v" + version);
  }

  /** The revert of expired temporary {@code version}. */
  public static PolicyOrigin revert(long version) {
    return new PolicyOrigin(Kind.REVERT, "v" + version);
  }

  /** Whether a CI rollout made the version. */
  public boolean isCi() {
    return kind == Kind.CI;
  }

  /**
   * Parses the stored form ({@link #toString()}); null or empty reads as {@link #UNKNOWN}.
   *
   * @throws IllegalArgumentException when the text is no origin
   */
  public static PolicyOrigin parse(String text) {
    if (text == null || text.isEmpty()) {
      return UNKNOWN;
    }
    int colon = text.indexOf(':');
    String kind = colon < 0 ? text : text.substring(0, colon);
    String detail = colon < 0 ? "" : text.substring(colon + 1);
    for (Kind k : Kind.values()) {
      if (k.name().toLowerCase(Locale.ROOT).equals(kind)) {
        return new PolicyOrigin(k, detail);
      }
    }
    throw new IllegalArgumentException(
        "an origin is ci:<commit>, hand, rollback:v<N>, revert:v<N> or unknown, but was '"
            + text
            + "'");
  }

  /** The stored form: {@code kind} or {@code kind:detail}, e.g. {@code ci:3f2a9c1d0b7e}. */
  @Override
  public String toString() {
    String k = kind.name().toLowerCase(Locale.ROOT);
    return detail.isEmpty() ? k : k + ":" + detail;
  }
}
