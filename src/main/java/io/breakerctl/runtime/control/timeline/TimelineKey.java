package io.breakerctl.runtime.control.timeline;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The sort key of a timeline entry, and the value of a page cursor: (time ms, epoch, stream id,
 * entry id). Epochs and stream ids compare numerically.
 */
public record TimelineKey(long at, String epoch, String streamId, String id)
    implements Comparable<TimelineKey> {

  /** Before every entry. */
  static final TimelineKey START = new TimelineKey(Long.MIN_VALUE, "", "", "");

  @Override
  public int compareTo(TimelineKey o) {
    int c = Long.compare(at, o.at);
    if (c == 0) {
      c = compareNumeric(epoch, o.epoch);
    }
    if (c == 0) {
      c = compareStreamIds(streamId, o.streamId);
    }
    return c != 0 ? c : id.compareTo(o.id);
  }

  /** Compares two decimal strings by value ("" first). */
  public static int compareNumeric(String a, String b) {
    int c = Integer.compare(a.length(), b.length());
    return c != 0 ? c : a.compareTo(b);
  }

  /** Compares two stream ids {@code ms-seq} ("" first). */
  public static int compareStreamIds(String a, String b) {
    if (a.isEmpty() || b.isEmpty()) {
      return Boolean.compare(!a.isEmpty(), !b.isEmpty());
    }
    int da = a.indexOf('-');
    int db = b.indexOf('-');
    int c = compareNumeric(a.substring(0, da), b.substring(0, db));
    return c != 0 ? c : compareNumeric(a.substring(da + 1), b.substring(db + 1));
  }

  /** The opaque cursor text. */
  String encode() {
    String raw = at + "\n" + epoch + "\n" + streamId + "\n" + id;
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(raw.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Parses a cursor.
   *
   * @throws IllegalArgumentException when the text is not a cursor this reader wrote
   */
  static TimelineKey decode(String cursor) {
    try {
      String raw = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
      String[] p = raw.split("\n", -1);
      if (p.length != 4) {
        throw new IllegalArgumentException("4 parts expected");
      }
      return new TimelineKey(Long.parseLong(p[0]), p[1], p[2], p[3]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "timeline cursor '" + cursor + "' is not a cursor of this timeline", e);
    }
  }
}
