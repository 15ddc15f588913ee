package io.breakerctl.runtime.model;

/**
 * Orders incarnations. An epoch names one incarnation of a breaker's keys: Redis time in
 * microseconds when a script created them (or re-asserted over a rewound Redis), a counter in the
 * in-process store. A later incarnation always has a larger epoch, so a Redis that answers with a
 * smaller one than a node has seen went back in time (restarted from an older RDB, restored from a
 * backup, failed over to a replica that missed a flush and what followed): {@code reassert.lua}'s
 * {@code epoch_before} is the same rule.
 */
public final class Epoch {
  private Epoch() {}

  /**
   * Whether {@code a} names an incarnation created before {@code b}'s. False unless both are
   * decimal numbers (an absent key has the empty epoch, which is never before anything).
   */
  public static boolean before(String a, String b) {
    if (!decimal(a) || !decimal(b)) {
      return false;
    }
    return a.length() != b.length() ? a.length() < b.length() : a.compareTo(b) < 0;
  }

  private static boolean decimal(String s) {
    if (s == null || s.isEmpty() || s.length() > 18) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return s.length() == 1 || s.charAt(0) != '0';
  }
}
