package io.breakerctl.runtime.control.fallback;

import io.breakerctl.runtime.control.ControlUnavailableException;
import java.util.Map;
import org.bson.Document;

/**
 * The node cache of {@link FallbackSnapshots}: documents by id with when they were read, bounded by
 * {@link FallbackSnapshots#CACHE_ENTRIES} (least recently used dropped first). An entry without a
 * document remembers for {@link FallbackSnapshots#CACHE_FRESH} that neither Redis nor MongoDB had
 * one (or that MongoDB was unavailable), so a key without a snapshot costs one lookup per second,
 * not one per call.
 */
final class SnapshotNodeCache {
  record Entry(Document doc, long readAt, ControlUnavailableException unavailable) {
    boolean fresh() {
      return System.nanoTime() - readAt < FallbackSnapshots.CACHE_FRESH.toNanos();
    }
  }

  private final java.util.LinkedHashMap<String, Entry> entries =
      new java.util.LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
          return size() > FallbackSnapshots.CACHE_ENTRIES;
        }
      };

  synchronized Entry get(String id) {
    return entries.get(id);
  }

  synchronized void put(String id, Document d) {
    entries.put(id, new Entry(d, System.nanoTime(), null));
  }

  synchronized void absent(String id, ControlUnavailableException unavailable) {
    entries.put(id, new Entry(null, System.nanoTime(), unavailable));
  }

  synchronized void remove(String id) {
    entries.remove(id);
  }
}
