package io.breakerctl.runtime.redis;

import java.util.List;

/** Reads the positional replies of the scripts. */
final class Replies {
  private Replies() {}

  static String str(List<Object> r, int i) {
    Object o = i < r.size() ? r.get(i) : null;
    return o == null ? "" : o.toString();
  }

  static long num(List<Object> r, int i) {
    Object o = i < r.size() ? r.get(i) : null;
    if (o instanceof Number n) {
      return n.longValue();
    }
    if (o == null || o.toString().isEmpty()) {
      return 0;
    }
    return Long.parseLong(o.toString());
  }

  static boolean flag(List<Object> r, int i) {
    return num(r, i) == 1;
  }
}
