package io.breakerctl.console;

import com.fasterxml.jackson.databind.JsonNode;
import io.breakerctl.cli.output.BreakerTables;
import io.breakerctl.cli.output.BreakerView;
import io.breakerctl.cli.output.Printable;
import io.breakerctl.cli.output.Style;
import io.breakerctl.cli.output.Table;
import io.breakerctl.runtime.model.State;
import io.breakerctl.runtime.store.BreakerEvent;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;

/**
 * What {@code top} shows, as lines for a screen of a given size: a header, the breakers sorted by
 * severity (forced open, open, half-open, invalid, other overrides, degraded or disagreeing nodes,
 * the rest) or by id or failures, failures against thresholds, time left open, leases, nodes,
 * overrides, a footer of recent transitions, the keys and a status line. States are coloured when
 * colour is on and always spelled out, so the screen reads without colour. Every line goes through
 * {@link #fit}: nothing read from Redis reaches the terminal unescaped.
 */
final class TopScreen {
  /** The orders {@code s} cycles through. */
  enum Sort {
    SEVERITY,
    ID,
    FAILURES
  }

  static final int RECENT = 5;
  private static final DateTimeFormatter CLOCK =
      DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);

  private List<BreakerView> rows = List.of();
  private final Deque<String> recent = new ArrayDeque<>();
  private String title = "";
  private String filter = "";
  private Sort sort = Sort.SEVERITY;
  private int selected;
  private String status = "";
  private long updatedAt;

  synchronized void rows(List<BreakerView> all, long atMillis) {
    this.rows = all;
    this.updatedAt = atMillis;
  }

  synchronized void transition(String line) {
    recent.addFirst(line);
    while (recent.size() > RECENT) {
      recent.removeLast();
    }
  }

  synchronized void title(String title) {
    this.title = title;
  }

  synchronized void filter(String filter) {
    this.filter = filter;
    selected = 0;
  }

  synchronized String filter() {
    return filter;
  }

  synchronized Sort nextSort() {
    sort = Sort.values()[(sort.ordinal() + 1) % Sort.values().length];
    return sort;
  }

  synchronized void move(int delta) {
    int n = visible().size();
    selected = n == 0 ? 0 : Math.max(0, Math.min(n - 1, selected + delta));
  }

  synchronized void status(String status) {
    this.status = status;
  }

  /** The id of the selected breaker, or null when none is shown. */
  synchronized String selectedId() {
    List<BreakerView> v = visible();
    return v.isEmpty() ? null : v.get(Math.min(selected, v.size() - 1)).id();
  }

  /** The screen: exactly {@code height} lines of at most {@code width} columns. */
  synchronized List<AttributedString> lines(int width, int height, boolean colour) {
    List<BreakerView> shown = visible();
    long open = rows.stream().filter(r -> rank(r) <= 1).count();
    List<AttributedString> out = new ArrayList<>();
    out.add(
        plain(
            "breakerctl top  "
                + title
                + "  "
                + rows.size()
                + " breakers, "
                + open
                + " open  sort: "
                + sort.name().toLowerCase(Locale.ROOT)
                + (filter.isEmpty() ? "" : "  filter: " + filter)
                + rateWindow(rows)
                + "  updated "
                + CLOCK.format(Instant.ofEpochMilli(updatedAt)),
            width,
            colour ? AttributedStyle.BOLD : AttributedStyle.DEFAULT));
    // one table over every visible row: columns sized to their content, stable while scrolling,
    // fitted to the screen (Table: quiet columns, then LEASES, FB/S, NODES and CALLS/S go first;
    // the override, its expiry first, is shortened last)
    List<Table.Line> table = table(shown).lines(Math.max(1, width - 2), true);
    out.add(
        plain(
            "  " + joined(table.get(0)),
            width,
            colour ? AttributedStyle.INVERSE : AttributedStyle.DEFAULT));
    int footer = 2 + RECENT + 2;
    int room = Math.max(1, height - out.size() - footer);
    int sel = Math.min(selected, Math.max(0, shown.size() - 1));
    int first = Math.max(0, Math.min(sel - room / 2, shown.size() - room));
    for (int i = first; i < Math.min(shown.size(), first + room); i++) {
      out.add(row(table.get(i + 1), shown.get(i), i == sel, width, colour));
    }
    if (shown.isEmpty()) {
      out.add(plain(rows.isEmpty() ? "  no breakers" : "  no breaker matches", width, null));
    }
    while (out.size() < height - footer) {
      out.add(new AttributedString(""));
    }
    out.add(plain("", width, null));
    out.add(plain("recent transitions:", width, colour ? AttributedStyle.BOLD : null));
    List<String> r = new ArrayList<>(recent);
    for (int i = 0; i < RECENT; i++) {
      out.add(plain(i < r.size() ? "  " + r.get(i) : "", width, null));
    }
    out.add(
        plain(
            "q quit  up/down select  / filter  s sort  o force open  c clear override  r refresh",
            width,
            colour ? AttributedStyle.INVERSE : null));
    out.add(plain(status, width, null));
    return out.subList(Math.max(0, out.size() - height), out.size());
  }

  private List<BreakerView> visible() {
    List<BreakerView> v = new ArrayList<>();
    for (BreakerView b : rows) {
      if (filter.isEmpty() || b.id().contains(filter) || b.state().contains(filter.toUpperCase())) {
        v.add(b);
      }
    }
    Comparator<BreakerView> byId = Comparator.comparing(BreakerView::id);
    v.sort(
        switch (sort) {
          case SEVERITY -> Comparator.comparingInt(TopScreen::rank).thenComparing(byId);
          case ID -> byId;
          case FAILURES ->
              Comparator.comparingLong((BreakerView b) -> -failures(b)).thenComparing(byId);
        });
    return v;
  }

  /** 0 forced open, 1 open, 2 half-open, 3 invalid, 4 other overrides, 5 nodes astray, 6 rest. */
  static int rank(BreakerView b) {
    if (b.problem() != null) {
      return 3;
    }
    State s = State.fromCode(b.state());
    if (s == State.FORCED_OPEN) {
      return 0;
    }
    if (s == State.OPEN) {
      return 1;
    }
    if (s == State.HALF_OPEN) {
      return 2;
    }
    if (s.isOverride()) {
      return 4;
    }
    if (b.nodes() != null
        && (!b.nodes().degraded().isEmpty() || !b.nodes().disagreeing().isEmpty())) {
      return 5;
    }
    return 6;
  }

  /** " rates over 60s": the longest window the rows' call rates cover; empty for none. */
  private static String rateWindow(List<BreakerView> rows) {
    long w = 0;
    for (BreakerView b : rows) {
      w = Math.max(w, b.rates().windowMillis());
    }
    return w <= 0 ? "" : "  rates/s over " + Style.age(w);
  }

  private static long failures(BreakerView b) {
    return b.failures() == null ? 0 : b.failures().window();
  }

  /** The table of {@code views}: one row each, cells as read (the table escapes them). */
  private static Table table(List<BreakerView> views) {
    Table t =
        new Table(
                "ID",
                "STATE",
                "FAILURES",
                BreakerTables.RATE_COLUMNS[0],
                BreakerTables.RATE_COLUMNS[1],
                BreakerTables.RATE_COLUMNS[2],
                "OPEN LEFT",
                "LEASES",
                "NODES",
                "OVERRIDE")
            .stateColumn(1)
            .flexible(8, 7, 2, 9)
            .droppable(7, 5, 8, 3, 6, 4);
    for (BreakerView b : views) {
      String failures =
          b.failures() == null
              ? "-"
              : b.failures().window()
                  + "/"
                  + (b.failures().threshold() == null ? "?" : b.failures().threshold());
      String leases =
          b.leases() == null || b.leases().isEmpty()
              ? "-"
              : b.leases().size() + " " + b.leases().get(0).owner();
      String nodes = "-";
      if (b.nodes() != null) {
        nodes =
            b.nodes().reporting()
                + (b.nodes().disagreeing().isEmpty() ? "" : " !" + b.nodes().disagreeing().size())
                + (b.nodes().degraded().isEmpty() ? "" : " ~" + b.nodes().degraded().size());
      }
      BreakerView.Rates r = b.rates();
      t.row(
          null,
          b.id(),
          b.state(),
          failures,
          BreakerTables.rateCell(r, 0),
          BreakerTables.rateCell(r, 1),
          BreakerTables.rateCell(r, 2),
          openLeft(b),
          leases,
          nodes,
          override(b));
    }
    return t;
  }

  /** The override: its expiry first (a shortened cell still shows it), then who and why. */
  static String override(BreakerView b) {
    BreakerView.Override o = b.override();
    if (o == null) {
      return b.problem() == null ? "-" : b.problem();
    }
    String until = "until cleared";
    if (o.until() != null && b.redisTime() != null) {
      long left =
          Instant.parse(o.until()).toEpochMilli() - Instant.parse(b.redisTime()).toEpochMilli();
      until = left <= 0 ? "ending" : "until in " + Style.age(left);
    }
    return until + " by " + o.actor() + ": " + o.reason();
  }

  private static String joined(Table.Line line) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < line.cells().size(); i++) {
      b.append(line.cells().get(i)).append(line.pad(i));
    }
    return b.toString();
  }

  private static AttributedString row(
      Table.Line cells, BreakerView b, boolean selected, int width, boolean colour) {
    AttributedStringBuilder sb = new AttributedStringBuilder();
    sb.append(selected ? "> " : "  ");
    for (int i = 0; i < cells.cells().size(); i++) {
      if (i == cells.stateCell()) {
        sb.style(colour ? style(b) : AttributedStyle.DEFAULT);
        sb.append(cells.cells().get(i));
        sb.style(AttributedStyle.DEFAULT);
      } else {
        sb.append(cells.cells().get(i));
      }
      sb.append(cells.pad(i));
    }
    AttributedString line = sb.toAttributedString();
    if (selected && colour) {
      line = line.styleMatches(Pattern.compile("^> .*"), AttributedStyle.INVERSE);
    }
    return fit(line, width);
  }

  private static String openLeft(BreakerView b) {
    if (b.openUntil() == null || b.redisTime() == null) {
      return "-";
    }
    long left =
        Instant.parse(b.openUntil()).toEpochMilli() - Instant.parse(b.redisTime()).toEpochMilli();
    return left <= 0 ? "0s" : String.format(Locale.ROOT, "%.1fs", left / 1000.0);
  }

  private static AttributedStyle style(BreakerView b) {
    if (b.problem() != null) {
      return AttributedStyle.DEFAULT.foreground(AttributedStyle.MAGENTA);
    }
    return switch (State.fromCode(b.state())) {
      case OPEN, FORCED_OPEN -> AttributedStyle.BOLD.foreground(AttributedStyle.RED);
      case HALF_OPEN -> AttributedStyle.DEFAULT.foreground(AttributedStyle.YELLOW);
      case CLOSED -> AttributedStyle.DEFAULT.foreground(AttributedStyle.GREEN);
      default -> AttributedStyle.DEFAULT.foreground(AttributedStyle.MAGENTA);
    };
  }

  private static AttributedString plain(String text, int width, AttributedStyle style) {
    return fit(new AttributedString(text, style == null ? AttributedStyle.DEFAULT : style), width);
  }

  /**
   * Every line of the screen passes here: its unsafe characters escaped ({@link Printable}), each
   * escape in the style of the character it replaces, then cut to {@code width} columns.
   */
  static AttributedString fit(AttributedString line, int width) {
    String text = line.toString();
    if (Printable.escape(text).equals(text)) {
      return line.columnSubSequence(0, width);
    }
    AttributedStringBuilder b = new AttributedStringBuilder();
    for (int i = 0; i < line.length(); i++) {
      b.style(line.styleAt(i));
      b.append(Printable.escape(String.valueOf(line.charAt(i))));
    }
    return b.toAttributedString().columnSubSequence(0, width);
  }

  /**
   * The footer line of a transition read from a breaker's stream, as its message shows it; fields
   * as stored (a malformed event is shown as it is, escaped like every line, at the time Redis
   * appended it when its own is not one: {@link BreakerEvent#atMillis()}).
   */
  static String transitionLine(BreakerEvent e) {
    return line(
        e.atMillis(),
        e.id().toString(),
        e.fromText(),
        e.toText(),
        e.causeText(),
        e.node(),
        e.actor());
  }

  /** A transition message of the events channel as a footer line, or null for anything else. */
  static String transitionLine(JsonNode m) {
    if (!"transition".equals(m.path("type").asText(""))) {
      return null;
    }
    return line(
        m.path("at").asLong(System.currentTimeMillis()),
        m.path("id").asText("?"),
        m.path("from").asText("?"),
        m.path("to").asText("?"),
        m.path("cause").asText("?"),
        m.path("node").asText(""),
        m.path("actor").asText(""));
  }

  /** One footer line, the same for a published message and an event read from a stream. */
  private static String line(
      long at, String id, String from, String to, String cause, String node, String actor) {
    return CLOCK.format(Instant.ofEpochMilli(at))
        + " "
        + id
        + " "
        + from
        + " -> "
        + to
        + " ("
        + cause
        + (node.isEmpty() ? "" : ", " + node)
        + (actor.isEmpty() ? "" : ", by " + actor)
        + ")";
  }
}
