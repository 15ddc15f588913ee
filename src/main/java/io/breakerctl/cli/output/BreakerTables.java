package io.breakerctl.cli.output;

import io.breakerctl.runtime.model.State;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The human (table) rendering of the breaker views. */
public final class BreakerTables {
  private BreakerTables() {}

  /**
   * The status table; {@code wide} adds lease owners, node names, where the history goes (HISTORY:
   * destination, events waiting for the forwarder and their age, events expired unforwarded), what
   * holds the keys past the idle TTL (HELD) and the override reason. CALLS/S, REJ/S and FB/S are
   * the fleet's rates over the nodes' last beat ({@link BreakerView.Rates}), {@code -} where no
   * live node sent counts.
   */
  public static Table status(List<BreakerView> views, boolean wide, Style style) {
    String[] columns = {
      "ID",
      "STATE",
      "FAILURES",
      RATE_COLUMNS[0],
      RATE_COLUMNS[1],
      RATE_COLUMNS[2],
      "OPEN UNTIL",
      "LEASES",
      "OVERRIDE",
      "POLICY",
      "NODES"
    };
    Table t =
        new Table(
            wide
                ? java.util.stream.Stream.concat(
                        java.util.Arrays.stream(columns),
                        java.util.stream.Stream.of(
                            "DISAGREE", "DEGRADED", "OLD POLICY", "HISTORY", "HELD", "REASON"))
                    .toArray(String[]::new)
                : columns);
    // shortened first: nodes, policy, failures; the override (its expiry first) last
    t.stateColumn(1).flexible(10, 9, 2, 8);
    if (wide) {
      t.flexible(7, 11, 12, 13, 16);
      t.droppable(15, 14, 5, 3, 4);
    } else {
      // at 80 columns the override's expiry, the rejections and the open window matter most:
      // leases, fallbacks, nodes and the policy go first, then calls, then an open window (shown
      // until then: when the next probe comes), then rejections
      t.droppable(7, 5, 10, 9, 3, 6, 4);
    }
    for (BreakerView v : views) {
      if (v.problem() != null) {
        String[] cells = new String[wide ? 17 : 11];
        java.util.Arrays.fill(cells, "-");
        cells[0] = v.id();
        cells[1] = v.state();
        cells[cells.length - 1] = v.problem();
        t.row(null, cells);
        continue;
      }
      long now = millis(v.redisTime());
      String leases =
          v.leases().isEmpty()
              ? "-"
              : wide
                  ? v.leases().stream()
                      .map(l -> l.owner() + " " + since(l.acquiredAt(), now, style))
                      .collect(Collectors.joining(","))
                  : Integer.toString(v.leases().size());
      // the expiry first: a shortened cell still shows when the override ends
      String override =
          v.override() == null
              ? "-"
              : (v.override().until() == null
                      ? "until cleared"
                      : "until " + style.time(millis(v.override().until()), now))
                  + " by "
                  + v.override().actor();
      BreakerView.Nodes n = v.nodes();
      BreakerView.Rates r = v.rates();
      String[] cells = {
        v.id(),
        v.state(),
        failures(v.failures()),
        rateCell(r, 0),
        rateCell(r, 1),
        rateCell(r, 2),
        v.openUntil() == null ? "-" : style.time(millis(v.openUntil()), now),
        leases,
        override,
        policyCell(v),
        wide ? Integer.toString(n.reporting()) : nodes(n),
      };
      if (wide) {
        cells =
            new String[] {
              cells[0],
              cells[1],
              cells[2],
              cells[3],
              cells[4],
              cells[5],
              cells[6],
              cells[7],
              cells[8],
              cells[9],
              cells[10],
              names(n.disagreeing()),
              n.degraded().isEmpty()
                  ? "-"
                  : n.degraded().stream()
                      .map(n::degradedLabel)
                      .collect(java.util.stream.Collectors.joining(",")),
              names(n.oldPolicy()),
              HistoryText.cell(v.history(), now),
              HistoryText.heldCell(v.history()),
              v.override() == null ? "-" : v.override().reason()
            };
      }
      t.row(State.fromCode(v.state()), cells);
    }
    return t;
  }

  /**
   * The describe text: sections of "Key: value" lines and small tables; every value from Redis
   * escaped ({@link Printable}), every table row through {@link Table}.
   */
  public static void describe(BreakerDetailView v, Style style, PrintWriter out) {
    if (v.problem() != null) {
      out.println("Id:            " + Printable.escape(v.id()));
      out.println("State:         " + BreakerView.INVALID);
      out.println("Problem:       " + Printable.escape(v.problem()));
      out.println("Stored fields:");
      v.storedFields()
          .forEach((f, value) -> out.println("  " + Printable.escape(f + ": " + value)));
      out.flush();
      return;
    }
    long now = millis(v.redisTime());
    State state = State.fromCode(v.state());
    String stored = v.storedState().equals(v.state()) ? "" : " (stored " + v.storedState() + ")";
    out.println("Id:            " + Printable.escape(v.id()));
    out.println("State:         " + style.paint(v.state(), state) + stored);
    out.println("Epoch:         " + (v.epoch().isEmpty() ? "-" : Printable.escape(v.epoch())));
    out.println("Generation:    " + v.generation());
    out.println(
        "Failures:      " + failures(v.failures()) + " (calls " + v.failures().calls() + ")");
    if (v.open() != null) {
      out.println(
          "Open window:   "
              + style.time(millis(v.open().openedAt()), now)
              + " to "
              + style.time(millis(v.open().until()), now)
              + " ("
              + Style.age(v.open().millis())
              + ")");
      BreakerDetailView.BackoffHintView h = v.open().backoffHint();
      if (h != null) {
        out.println(
            "Back-off hint: "
                + Style.age(h.millis())
                + " asked ("
                + h.source()
                + "), in force to "
                + style.time(millis(h.until()), now));
      }
    }
    BreakerView.Override o = v.override();
    out.println(
        "Override:      "
            + (o == null
                ? "none"
                : o.state()
                    + " by "
                    + Printable.escape(o.actor())
                    + ": \""
                    + Printable.escape(o.reason())
                    + "\" since "
                    + style.time(millis(o.at()), now)
                    + (o.until() == null
                        ? ", until cleared"
                        : ", until " + style.time(millis(o.until()), now))
                    + " (correlation "
                    + Printable.escape(o.correlationId())
                    + ")"));
    BreakerDetailView.NodeView enforcing = enforcingUnwarmed(v);
    if (enforcing != null) {
      // Redis holds no policy while a live node enforces a version: Redis lost it (a FLUSHALL, an
      // empty replica promoted) and the node has not warmed it back yet; "registry defaults"
      // would contradict the node table below
      out.println(
          "Policy:        none warmed in Redis, but live nodes enforce "
              + Printable.escape(enforcing.policyId())
              + " v"
              + enforcing.policyVersion()
              + " (Redis lost it? the nodes put it back when they next check Redis;"
              + " `breakerctl policy warm` puts back what MongoDB holds)");
    } else if (v.policy() == null) {
      out.println("Policy:        none warmed (nodes use their registry defaults)");
    } else {
      out.println(
          "node-defaults".equals(v.policy().source())
              ? "Policy:        none warmed; the nodes' registry defaults:"
              : "Policy:        "
                  + Printable.escape(v.policy().id())
                  + " v"
                  + v.policy().version());
      for (Map.Entry<String, Object> e : v.policy().spec().entrySet()) {
        if (e.getValue() != null) {
          out.println("  " + Printable.escape(e.getKey() + ": " + e.getValue()));
        }
      }
    }
    out.println("Leases:" + (v.leases().isEmpty() ? "        none" : ""));
    if (!v.leases().isEmpty()) {
      Table t = new Table("  ID", "OWNER", "ACQUIRED", "EXPIRES", "RENEWALS");
      for (BreakerView.Lease l : v.leases()) {
        t.row(
            null,
            "  " + l.id(),
            l.owner(),
            since(l.acquiredAt(), now, style),
            style.time(millis(l.expiresAt()), now),
            l.renewals() == null ? "-" : Long.toString(l.renewals()));
      }
      t.print(out, style, true);
    }
    out.println("Nodes:" + (v.nodes().isEmpty() ? "         none reporting" : ""));
    if (!v.nodes().isEmpty()) {
      Table t = new Table("  NODE", "STATE", "POLICY", "DEGRADED", "LAST SEEN", "NOTE");
      t.stateColumn(1);
      for (BreakerDetailView.NodeView n : v.nodes()) {
        String note =
            (n.disagrees() ? "disagrees " : "")
                + (n.oldPolicy() ? "old-policy " : "")
                + (n.idleFallbacks().isEmpty()
                    ? ""
                    : String.join("+", n.idleFallbacks())
                        + " fallback registered, policy says NONE")
                + (n.refuses().isEmpty()
                    ? ""
                    : "call sites refuse "
                        + n.refuses()
                        + " (accept "
                        + String.join("+", n.accepts())
                        + ")");
        t.row(
            State.fromCode(n.state()),
            "  " + n.node(),
            n.state(),
            (n.policyId().isEmpty() ? "-" : n.policyId()) + " v" + n.policyVersion(),
            !n.degraded()
                ? "no"
                : n.degradedReason().isEmpty() ? "yes" : "yes (" + n.degradedReason() + ")",
            style.time(millis(n.lastSeen()), now),
            note.isBlank() ? "-" : note.trim());
      }
      t.print(out, style, true);
    }
    BreakerView.Rates r = v.rates();
    out.println(
        "Calls:         "
            + (r.known()
                ? perSecond(r.callsPerSecond())
                    + "/s admitted, "
                    + perSecond(r.rejectedPerSecond())
                    + "/s rejected, "
                    + perSecond(r.fallbacksPerSecond())
                    + "/s served by a fallback ("
                    + window(r.windowMillis())
                    + ", summed over the live nodes)"
                : "unknown (" + window(0) + ")"));
    if (!v.nodeRates().isEmpty()) {
      Table t = new Table("  NODE", "CALLS/S", "REJ/S", "FB/S", "WINDOW");
      for (BreakerDetailView.NodeRates n : v.nodeRates()) {
        t.row(
            null,
            "  " + n.node(),
            perSecond(n.callsPerSecond()),
            perSecond(n.rejectedPerSecond()),
            perSecond(n.fallbacksPerSecond()),
            Style.age(n.windowMillis()));
      }
      t.print(out, style, true);
    }
    out.println("Events:" + (v.events().isEmpty() ? "        none" : " (newest first)"));
    if (!v.events().isEmpty()) {
      Table t = new Table("  AT", "FROM", "TO", "CAUSE", "DETAIL");
      t.flexible(4);
      for (BreakerDetailView.EventView e : v.events()) {
        String detail =
            e.fields().entrySet().stream()
                .filter(f -> !f.getValue().isEmpty() && !f.getKey().equals("epoch"))
                .map(f -> f.getKey() + "=" + f.getValue())
                .collect(Collectors.joining(" "));
        t.row(null, "  " + style.time(millis(e.at()), now), e.from(), e.to(), e.cause(), detail);
      }
      t.print(out, style, true);
    }
    if (v.eventsDropped() > 0) {
      out.println(
          "Events lost unforwarded (the stream cap, or the stream evicted): " + v.eventsDropped());
    }
    HistoryText.describe(v.history(), style, now, out);
    out.flush();
  }

  private static String failures(BreakerView.Failures f) {
    String s = f.window() + "/" + (f.threshold() == null ? "-" : f.threshold());
    if (f.rateThreshold() != null) {
      s += " " + trim(f.rate()) + "%/" + trim(f.rateThreshold()) + "%";
    }
    return s;
  }

  /** The headers of the rate columns (status and top). */
  public static final String[] RATE_COLUMNS = {"CALLS/S", "REJ/S", "FB/S"};

  /**
   * The cell of rate column {@code i} ({@link #RATE_COLUMNS}: calls, rejected, fallbacks); {@code
   * -} when no live node sent counts.
   */
  public static String rateCell(BreakerView.Rates r, int i) {
    if (!r.known()) {
      return "-";
    }
    return perSecond(
        switch (i) {
          case 0 -> r.callsPerSecond();
          case 1 -> r.rejectedPerSecond();
          default -> r.fallbacksPerSecond();
        });
  }

  /** A rate per second, short: {@code 0}, {@code 0.25}, {@code 4.5}, {@code 120}, {@code 12.3k}. */
  public static String perSecond(double r) {
    if (r >= 10_000) {
      return trim(Math.round(r / 100) / 10.0) + "k";
    }
    if (r >= 100) {
      return Long.toString(Math.round(r));
    }
    if (r >= 10) {
      return trim(Math.round(r * 10) / 10.0);
    }
    return trim(Math.round(r * 100) / 100.0);
  }

  /** "over the last 10s" for a window of 10,000 ms; "no node reported calls" for none. */
  public static String window(long millis) {
    return millis <= 0 ? "no live node sent call counts" : "over the last " + Style.age(millis);
  }

  private static String trim(Double d) {
    return d == Math.rint(d) ? Long.toString(d.longValue()) : d.toString();
  }

  private static String nodes(BreakerView.Nodes n) {
    List<String> notes = new java.util.ArrayList<>();
    if (!n.disagreeing().isEmpty()) {
      notes.add(n.disagreeing().size() + " disagree");
    }
    if (!n.degraded().isEmpty()) {
      notes.add(n.degraded().size() + " degraded");
    }
    if (!n.oldPolicy().isEmpty()) {
      notes.add(n.oldPolicy().size() + " old policy");
    }
    if (!n.policyDrift().isEmpty()) {
      notes.add(n.policyDrift().size() + " policy drift");
    }
    return n.reporting() + (notes.isEmpty() ? "" : " (" + String.join(", ", notes) + ")");
  }

  private static String names(List<String> names) {
    return names.isEmpty() ? "-" : String.join(",", names);
  }

  private static String since(String at, long now, Style style) {
    return at == null ? "-" : style.time(millis(at), now);
  }

  private static long millis(String rfc3339) {
    return rfc3339 == null ? 0 : Instant.parse(rfc3339).toEpochMilli();
  }

  /**
   * With no policy warmed in Redis (none, or only the nodes' recorded defaults), the live node
   * enforcing the highest policy version, else null.
   */
  private static BreakerDetailView.NodeView enforcingUnwarmed(BreakerDetailView v) {
    if (v.policy() != null && !"node-defaults".equals(v.policy().source())) {
      return null;
    }
    BreakerDetailView.NodeView top = null;
    for (BreakerDetailView.NodeView n : v.nodes()) {
      if (n.policyVersion() > 0
          && !n.policyId().isEmpty()
          && (top == null || n.policyVersion() > top.policyVersion())) {
        top = n;
      }
    }
    return top;
  }

  /**
   * The warmed policy ({@code id vN}, {@code -} for none) and, when MongoDB holds another in force,
   * what it holds: {@code id v5 (MongoDB v6)}, {@code - (MongoDB id v6)}.
   */
  public static String policyCell(BreakerView v) {
    BreakerView.PolicyRef p = v.policy();
    String warmed = p == null ? "-" : p.id() + " v" + p.version();
    BreakerView.InForce f = v.inForce();
    if (f == null || !f.drift()) {
      return warmed;
    }
    String held =
        f.id() == null
            ? "none"
            : p != null && p.id().equals(f.id()) ? "v" + f.version() : f.id() + " v" + f.version();
    return warmed + " (MongoDB " + held + ")";
  }
}
