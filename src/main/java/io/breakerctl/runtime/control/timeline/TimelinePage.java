package io.breakerctl.runtime.control.timeline;

import java.util.List;
import java.util.Optional;

/**
 * One page of a timeline.
 *
 * @param entries the entries, in timeline order
 * @param cursor where the next page starts (after the last entry; the query's own cursor when the
 *     page is empty), so a follower can keep asking
 * @param more whether entries beyond this page were already there when it was read
 * @param partial whether a source could not be read (see {@code problems}): with MongoDB down the
 *     page holds only the Redis streams, with Redis down only MongoDB
 * @param problems one line per source that failed
 * @param answered whether any source was read (false: Redis and MongoDB both down or not
 *     configured, so an empty page says nothing about the history)
 */
public record TimelinePage(
    List<TimelineEntry> entries,
    Optional<String> cursor,
    boolean more,
    boolean partial,
    List<String> problems,
    boolean answered) {

  /** Copies the lists. */
  public TimelinePage {
    entries = List.copyOf(entries);
    problems = List.copyOf(problems);
  }
}
