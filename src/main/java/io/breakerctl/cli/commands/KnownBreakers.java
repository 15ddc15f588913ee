package io.breakerctl.cli.commands;

import static com.mongodb.client.model.Filters.eq;

import io.breakerctl.cli.CliContext;
import io.breakerctl.cli.CliException;
import io.breakerctl.runtime.control.ControlDatabase;
import io.breakerctl.runtime.model.BreakerId;
import io.breakerctl.runtime.store.BreakerSnapshot;
import io.breakerctl.runtime.store.FleetScan;
import io.breakerctl.runtime.store.FleetSelection;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * Whether an exact breaker id is one the system knows, so that a misspelt id never passes as a
 * breaker nobody used: {@code wait orders:pricng --for state=CLOSED} exited 0 at once ("CLOSED")
 * and {@code force open orders:pricng} set an override on keys nothing reads. Known: the breaker
 * has keys in Redis (its hash, node reports), or MongoDB holds a policy with that id, a note on it,
 * or its history. Unknown: none of them; the error names the nearest known ids. When MongoDB is
 * configured but does not answer, whether the id is known cannot be told: the command goes on as
 * before, with a warning.
 */
final class KnownBreakers {
  private KnownBreakers() {}

  /**
   * Returns when {@code id} is known (or cannot be told), else throws exit 7 naming the nearest
   * known ids; {@code hint} is appended to the message (how to go on deliberately).
   */
  static void require(
      CliContext root, PrintWriter err, BreakerId id, BreakerSnapshot s, String hint) {
    if (s.exists() || !s.nodes().isEmpty()) {
      return;
    }
    List<String> candidates = new ArrayList<>();
    FleetScan known = root.services().redis().fleet(root.services().settings().timeout(), 1000);
    known.ids(FleetSelection.ALL, b -> candidates.add(b.toString()));
    known.requireComplete(); // an id in the slots not read may be known
    boolean asked = root.services().settings().mongo() != null;
    if (asked) {
      try {
        ControlDatabase db = root.services().control();
        String key = id.toString();
        if (db.collection(ControlDatabase.POLICIES).find(eq("_id", key)).first() != null
            || db.collection(ControlDatabase.HISTORY).find(eq("breakerId", key)).first() != null
            || db.collection(ControlDatabase.NOTES).find(eq("breakerId", key)).first() != null) {
          return;
        }
        for (org.bson.Document p : db.collection(ControlDatabase.POLICIES).find()) {
          String pid = String.valueOf(p.get("_id"));
          if (!pid.contains("*")) {
            candidates.add(pid);
          }
        }
      } catch (RuntimeException e) {
        err.println(
            "warning: "
                + id
                + " has no keys in Redis, and whether MongoDB knows it cannot be told ("
                + e.getClass().getSimpleName()
                + "): going on as for a breaker no node has used yet");
        err.flush();
        return;
      }
    }
    List<String> near = nearest(id.toString(), candidates);
    throw CliException.notFound(
        "unknown breaker "
            + id
            + ": no keys in Redis"
            + (asked ? ", no policy, note or history in MongoDB" : " (no MongoDB configured)")
            + (near.isEmpty() ? "" : "; did you mean " + String.join(", ", near) + "?")
            + (hint.isEmpty() ? "" : "; " + hint));
  }

  /**
   * "; did you mean A, B?" naming the breakers with keys in Redis nearest to {@code id}, or empty
   * (describe's not-found error).
   */
  static String suggestion(CliContext root, BreakerId id) {
    List<String> ids = new ArrayList<>();
    root.services()
        .redis()
        .fleet(root.services().settings().timeout(), 1000)
        .ids(FleetSelection.ALL, b -> ids.add(b.toString())); // suggestions: what was read
    List<String> near = nearest(id.toString(), ids);
    return near.isEmpty() ? "" : "; did you mean " + String.join(", ", near) + "?";
  }

  /** Up to three known ids within a small edit distance of {@code id}, nearest first. */
  static List<String> nearest(String id, List<String> known) {
    int limit = Math.max(2, id.length() / 4);
    TreeSet<String> unique = new TreeSet<>(known);
    unique.remove(id);
    return unique.stream()
        .filter(k -> distance(id, k) <= limit)
        .sorted(Comparator.comparingInt((String k) -> distance(id, k)).thenComparing(k -> k))
        .limit(3)
        .toList();
  }

  /** Levenshtein distance. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
