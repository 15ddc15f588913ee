package io.breakerctl.cli.output;

import io.breakerctl.runtime.model.State;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A plain-text table: columns separated by two spaces, each as wide as its content, fitted to the
 * style's width, the state column coloured, control characters escaped. Fitting, in order, until
 * the table fits: droppable and flexible columns that say nothing (every cell "-") are left out;
 * droppable columns are left out, least useful first ({@link #droppable}); flexible columns are
 * shortened (with "..."), in their order, down to their header's width, then down to 6. A column
 * that is neither (an id) is never cut: when the others cannot give enough, the line is wider than
 * the terminal.
 */
public final class Table {
  private static final int GAP = 2;
  private static final int MIN_FLEX = 6;

  private final List<String> headers;
  private final Set<Integer> flexible = new LinkedHashSet<>();
  private final List<Integer> droppable = new ArrayList<>();
  private final List<String[]> rows = new ArrayList<>();
  private final List<State> states = new ArrayList<>();
  private int stateColumn = -1;

  /** A table with these column headers. */
  public Table(String... headers) {
    this.headers = List.of(headers);
  }

  /** Marks columns that may be shortened to fit, the first shortened first. */
  public Table flexible(int... columns) {
    for (int c : columns) {
      flexible.add(c);
    }
    return this;
  }

  /** Marks columns that may be left out to fit, the least useful first. */
  public Table droppable(int... columns) {
    for (int c : columns) {
      droppable.add(c);
    }
    return this;
  }

  /** Colours this column by each row's state. */
  public Table stateColumn(int column) {
    this.stateColumn = column;
    return this;
  }

  /** Adds a row; {@code state} colours the state column (may be null); cells are escaped. */
  public void row(State state, String... cells) {
    if (cells.length != headers.size()) {
      throw new IllegalArgumentException(
          "row has " + cells.length + " cells but the table " + headers.size() + " columns");
    }
    String[] safe = new String[cells.length];
    for (int c = 0; c < cells.length; c++) {
      safe[c] = Printable.escape(cells[c]);
    }
    rows.add(safe);
    states.add(state);
  }

  /** Number of rows. */
  public int size() {
    return rows.size();
  }

  /** Prints the table, fitted to the style's width. */
  public void print(PrintWriter out, Style style, boolean withHeaders) {
    for (Line l : lines(style.width(), withHeaders)) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < l.cells().size(); i++) {
        String cell = l.cells().get(i);
        b.append(i == l.stateCell() && l.state() != null ? style.paint(cell, l.state()) : cell);
        b.append(l.pad(i));
      }
      out.println(b.toString().stripTrailing());
    }
    out.flush();
  }

  /**
   * One line of the fitted table, for a renderer that styles it itself ({@link #print}, {@code
   * top}): the shown cells, each cut to its column, their widths, and which cell is the state.
   *
   * @param cells the shown cells, cut (with "...") to their width, not padded
   * @param widths each shown column's width
   * @param stateCell the index in {@code cells} of the state column, -1 when not shown
   * @param state the row's state (null for the header and rows without one)
   */
  public record Line(List<String> cells, List<Integer> widths, int stateCell, State state) {
    /** The spaces that follow cell {@code i}: none after the last. */
    public String pad(int i) {
      return i == cells.size() - 1 ? "" : " ".repeat(widths.get(i) - cells.get(i).length() + GAP);
    }
  }

  /** The table's lines (the headers first when asked), fitted to {@code width} columns. */
  public List<Line> lines(int width, boolean withHeaders) {
    int n = headers.size();
    int[] w = new int[n];
    for (int c = 0; c < n; c++) {
      w[c] = withHeaders ? headers.get(c).length() : 0;
    }
    for (String[] r : rows) {
      for (int c = 0; c < n; c++) {
        w[c] = Math.max(w[c], r[c].length());
      }
    }
    boolean[] shown = fit(w, width, withHeaders);
    List<Line> out = new ArrayList<>();
    if (withHeaders) {
      out.add(line(headers.toArray(new String[0]), w, shown, null));
    }
    for (int i = 0; i < rows.size(); i++) {
      out.add(line(rows.get(i), w, shown, states.get(i)));
    }
    return out;
  }

  /** Fits the widths {@code w} to {@code width}; answers which columns are shown. */
  private boolean[] fit(int[] w, int width, boolean withHeaders) {
    boolean[] shown = new boolean[w.length];
    java.util.Arrays.fill(shown, true);
    List<Integer> quiet = new ArrayList<>(droppable);
    quiet.addAll(flexible);
    for (int c : quiet) {
      if (total(w, shown) > width && saysNothing(c)) {
        shown[c] = false;
      }
    }
    for (int c : droppable) {
      if (total(w, shown) > width) {
        shown[c] = false;
      }
    }
    shrink(w, shown, width, withHeaders);
    shrink(w, shown, width, false);
    return shown;
  }

  /** Whether every cell of column {@code c} is "-" (or there are no rows). */
  private boolean saysNothing(int c) {
    for (String[] r : rows) {
      if (!r[c].equals("-")) {
        return false;
      }
    }
    return true;
  }

  /**
   * Shortens flexible columns in their order, not below their header ({@code keepHeaders}) or 6.
   */
  private void shrink(int[] w, boolean[] shown, int width, boolean keepHeaders) {
    for (int c : flexible) {
      int excess = total(w, shown) - width;
      if (excess <= 0) {
        return;
      }
      if (shown[c]) {
        w[c] = Math.max(Math.min(w[c], floor(c, keepHeaders)), w[c] - excess);
      }
    }
  }

  private int floor(int c, boolean keepHeaders) {
    return keepHeaders ? Math.max(MIN_FLEX, headers.get(c).length()) : MIN_FLEX;
  }

  private static int total(int[] w, boolean[] shown) {
    int t = -GAP;
    for (int c = 0; c < w.length; c++) {
      if (shown[c]) {
        t += w[c] + GAP;
      }
    }
    return Math.max(0, t);
  }

  private Line line(String[] cells, int[] w, boolean[] shown, State state) {
    List<String> out = new ArrayList<>();
    List<Integer> widths = new ArrayList<>();
    int stateCell = -1;
    for (int c = 0; c < cells.length; c++) {
      if (!shown[c]) {
        continue;
      }
      String cell = cells[c];
      if (cell.length() > w[c]) {
        cell = cell.substring(0, Math.max(0, w[c] - 3)) + "...";
      }
      if (c == stateColumn) {
        stateCell = out.size();
      }
      out.add(cell);
      widths.add(w[c]);
    }
    return new Line(List.copyOf(out), List.copyOf(widths), stateCell, state);
  }
}
